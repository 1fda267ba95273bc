package api

import (
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/wire"
)

// GetItemInput is the GetItem request. Prepare sets Projection (from
// ProjectionExpression or AttributesToGet).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GetItem.html
type GetItemInput struct {
	TableName              *string
	Key                    attr.Item
	ProjectionExpression   *string
	ExpressionParams       ExpressionParams
	AttributesToGet        []string
	ConsistentRead         *bool
	ReturnConsumedCapacity *string

	// Projection is the parsed ProjectionExpression or AttributesToGet;
	// nil means all attributes. Set by Prepare.
	Projection []*expr.Path
}

// Decode implements Input.
func (in *GetItemInput) Decode(r *wire.Reader) error {
	_, err := object(r, "GetItemInput", func(k string) error {
		if ok, err := in.ExpressionParams.decodeMember(r, k); ok {
			return err
		}
		switch k {
		case "TableName":
			return readString(r, &in.TableName)
		case "Key":
			return readItem(r, &in.Key)
		case "ProjectionExpression":
			return readString(r, &in.ProjectionExpression)
		case "AttributesToGet":
			_, err := readStringList(r, &in.AttributesToGet)
			return err
		case "ConsistentRead":
			return readBool(r, &in.ConsistentRead)
		case "ReturnConsumedCapacity":
			return readString(r, &in.ReturnConsumedCapacity)
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the request without the table and parses its
// projection.
func (in *GetItemInput) Prepare() error { return in.prepareAt("") }

// prepareAt is Prepare with constraint paths under prefix (a
// TransactGetItems Get).
func (in *GetItemInput) prepareAt(prefix string) error {
	c := constraints{prefix: prefix}
	c.name("tableName", in.TableName, true)
	if in.Key == nil {
		c.add("", true, "key", "Member must not be null")
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, returnConsumedCapacityValues...)
	if in.AttributesToGet != nil && len(in.AttributesToGet) == 0 {
		c.add("[]", false, "attributesToGet", "Member must have length greater than or equal to 1")
	}
	if err := c.err(); err != nil {
		return err
	}
	var legacy []string
	if in.AttributesToGet != nil {
		legacy = append(legacy, "AttributesToGet")
	}
	ctx, err := in.ExpressionParams.newContext([]exprParam{{expr.ProjectionExpression, in.ProjectionExpression}}, legacy)
	if err != nil {
		return err
	}
	if err := attr.ValidateItemIn(in.Key, in.ExpressionParams.layer); err != nil {
		return err
	}
	if in.Projection, err = attributesToGet(in.AttributesToGet); err != nil {
		return err
	}
	if in.ProjectionExpression != nil {
		if in.Projection, err = ctx.ParseProjection(*in.ProjectionExpression); err != nil {
			return err
		}
	}
	return ctx.CheckUnused()
}

// IsConsistent reports whether ConsistentRead was requested.
func (in *GetItemInput) IsConsistent() bool { return in.ConsistentRead != nil && *in.ConsistentRead }
