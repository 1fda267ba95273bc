package api

import (
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/wire"
)

// CommonWrite holds the members PutItem, DeleteItem and UpdateItem share.
type CommonWrite struct {
	TableName                           *string
	ConditionExpression                 *string
	ExpressionParams                    ExpressionParams
	Expected                            map[string]expr.LegacyCondition
	ConditionalOperator                 *string
	ReturnValues                        *string
	ReturnConsumedCapacity              *string
	ReturnItemCollectionMetrics         *string
	ReturnValuesOnConditionCheckFailure *string

	// Condition is the parsed ConditionExpression (or converted
	// Expected), nil when the request has none. Set by Prepare.
	Condition expr.Expr

	// older is set when DynamoDB reads the request in its older form
	// (olderReadingDepth).
	older bool
}

// olderReadingDepth is the JSON nesting past which PutItem, UpdateItem
// and DeleteItem read a request in an older form: ConditionalOperator and
// ReturnValues are checked in their older per-value wording ahead of the
// nesting error of a deep value, and expressions are parsed before the
// item's values are checked. Past about 62 levels of single-key map
// wrappers (2 JSON levels each) DynamoDB switches; a value 40 levels deep
// stays in the newer form. Source: the conformance suite's
// tests/tier3/validation-ordering/deepRequests.test.ts (eu-west-2 and
// us-east-1, 2026-10-09; 63 and 100 levels older, 33 and 40 newer).
const olderReadingDepth = 128

func (w *CommonWrite) keepDepth(d int) { w.older = d > olderReadingDepth }

func (w *CommonWrite) decodeMember(r *wire.Reader, k string) (bool, error) {
	if ok, err := w.ExpressionParams.decodeMember(r, k); ok {
		return true, err
	}
	switch k {
	case "TableName":
		return true, readString(r, &w.TableName)
	case "ConditionExpression":
		return true, readString(r, &w.ConditionExpression)
	case "Expected":
		return true, decodeLegacyConditions(r, "ExpectedAttributeValue", &w.Expected)
	case "ConditionalOperator":
		return true, readString(r, &w.ConditionalOperator)
	case "ReturnValues":
		return true, readString(r, &w.ReturnValues)
	case "ReturnConsumedCapacity":
		return true, readString(r, &w.ReturnConsumedCapacity)
	case "ReturnItemCollectionMetrics":
		return true, readString(r, &w.ReturnItemCollectionMetrics)
	case "ReturnValuesOnConditionCheckFailure":
		return true, readString(r, &w.ReturnValuesOnConditionCheckFailure)
	}
	return false, nil
}

// constraints adds the member constraints shared by the write operations.
// ConditionalOperator is one of them only in the older reading; the newer
// one checks it first, on its own (newerConditionalOperator).
func (w *CommonWrite) constraints(c *constraints) {
	dataTableName(c, w.TableName)
	c.enum("returnConsumedCapacity", w.ReturnConsumedCapacity, returnConsumedCapacityValues...)
	c.enum("returnItemCollectionMetrics", w.ReturnItemCollectionMetrics, returnItemCollectionMetricsValues...)
	c.enum("returnValues", w.ReturnValues, returnValuesValues...)
	c.enum("returnValuesOnConditionCheckFailure", w.ReturnValuesOnConditionCheckFailure, returnValuesOnCCFValues...)
	if w.older {
		c.enum("conditionalOperator", w.ConditionalOperator, olderConditionalOperatorValues...)
	}
}

// dataTableName checks the TableName of a single-item write. An empty
// name breaks only the length constraint, whose minimum is 1 (the member
// also takes a table ARN): "Value ” at 'tableName' failed to satisfy
// constraint: Member must have length greater than or equal to 1" (the
// conformance suite's tests/tier3/validation-ordering/updateItem.test.ts,
// eu-west-2 and us-east-1, 2026-10-09; error-messages/putItem.test.ts).
// Other names keep the table-name pattern and lengths.
func dataTableName(c *constraints, v *string) {
	if v != nil && *v == "" {
		c.add("", false, "tableName", "Member must have length greater than or equal to 1")
		return
	}
	c.name("tableName", v, true)
}

func (w *CommonWrite) legacyParams() []string {
	var l []string
	if w.Expected != nil {
		l = append(l, "Expected")
	}
	if w.ConditionalOperator != nil {
		l = append(l, "ConditionalOperator")
	}
	return l
}

// prepareCondition validates the expression members and parses the
// condition (or converts Expected). extra lists further expression
// members of the operation (UpdateExpression), parsed by the caller with
// the returned context before CheckUnused.
func (w *CommonWrite) prepareCondition(extra ...exprParam) (*expr.Context, error) {
	exprs := append([]exprParam{{expr.ConditionExpression, w.ConditionExpression}}, extra...)
	ctx, err := w.ExpressionParams.newContext(exprs, w.legacyParams())
	if err != nil {
		return nil, err
	}
	if w.Expected != nil {
		if err := validateLegacyValues(w.Expected, attr.CurrentLayer); err != nil {
			return nil, err
		}
		op := ""
		if w.ConditionalOperator != nil {
			op = *w.ConditionalOperator
		}
		w.Condition, err = expr.LegacyToCondition(w.Expected, op, true)
		if err != nil {
			return nil, err
		}
	}
	return ctx, nil
}

// ReturnValue returns ReturnValues or "NONE".
func (w *CommonWrite) ReturnValue() string {
	if w.ReturnValues == nil {
		return "NONE"
	}
	return *w.ReturnValues
}

// ReturnOldOnConditionFailure reports whether a failed condition should
// return the item (ReturnValuesOnConditionCheckFailure=ALL_OLD).
func (w *CommonWrite) ReturnOldOnConditionFailure() bool {
	return w.ReturnValuesOnConditionCheckFailure != nil && *w.ReturnValuesOnConditionCheckFailure == "ALL_OLD"
}

// WantsItemCollectionMetrics reports ReturnItemCollectionMetrics=SIZE.
func (w *CommonWrite) WantsItemCollectionMetrics() bool {
	return w.ReturnItemCollectionMetrics != nil && *w.ReturnItemCollectionMetrics == "SIZE"
}

// decodeWith decodes a PutItem or DeleteItem request: the common write
// members and one item-shaped member, name, into dst.
func (w *CommonWrite) decodeWith(r *wire.Reader, shape, name string, dst *attr.Item) error {
	_, err := object(r, shape, func(k string) error {
		if ok, err := w.decodeMember(r, k); ok {
			return err
		}
		if k == name {
			return readItem(r, dst)
		}
		return r.Skip()
	})
	return err
}

// prepareEnvelope prepares a PutItem or DeleteItem. The newer reading
// checks ConditionalOperator first and puts the other messages in the
// single-error envelope; the older reading (olderReadingDepth) sends its
// messages as they are.
func (w *CommonWrite) prepareEnvelope(path string, item attr.Item) error {
	if w.older {
		return w.prepareWith("", path, item)
	}
	if err := newerConditionalOperator(w.ConditionalOperator); err != nil {
		return err
	}
	return envelope(w.prepareWith("", path, item))
}

// prepareWith checks a PutItem or DeleteItem request whose item-shaped
// member (path "item" or "key") is item, in DynamoDB's order: member
// constraints, expression members, the item's values, ReturnValues (only
// NONE and ALL_OLD), then the condition, which it parses into Condition.
// prefix is the member path of a transaction's action ("" for the
// operation itself).
func (w *CommonWrite) prepareWith(prefix, path string, item attr.Item) error {
	c := constraints{prefix: prefix}
	w.constraints(&c)
	if item == nil {
		c.add("", true, path, "Member must not be null")
	}
	if err := c.err(); err != nil {
		return err
	}
	badReturnValues := func() error {
		if rv := w.ReturnValue(); rv != "NONE" && rv != "ALL_OLD" {
			return ddberr.Validation("ReturnValues can only be ALL_OLD or NONE")
		}
		return nil
	}
	// The older reading checks ReturnValues before any value
	// (deepRequests.test.ts: DeleteItem's UPDATED_NEW ahead of a condition
	// value nested 100 levels).
	if w.older {
		if err := badReturnValues(); err != nil {
			return err
		}
	}
	ctx, err := w.prepareCondition()
	if err != nil {
		return err
	}
	// A transaction's action, and the older reading, parse the condition
	// before they check the item or key (deepRequests.test.ts: a syntax
	// error or an oversized condition is reported ahead of the same
	// Delete's key nested 100 levels, ten regions).
	exprFirst := prefix != "" || w.older
	if !exprFirst {
		if err := attr.ValidateItemIn(item, w.ExpressionParams.layer); err != nil {
			return err
		}
	}
	if err := badReturnValues(); err != nil {
		return err
	}
	if w.ConditionExpression != nil {
		if w.Condition, err = ctx.ParseCondition(expr.ConditionExpression, *w.ConditionExpression); err != nil {
			return err
		}
	}
	if exprFirst {
		if err := attr.ValidateItemIn(item, w.ExpressionParams.layer); err != nil {
			return err
		}
	}
	return ctx.CheckUnused()
}
