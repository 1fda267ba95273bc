package api

import (
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/wire"
)

// QueryInput is the Query request. Prepare sets KeyConds (from
// KeyConditionExpression or KeyConditions), Filter and Projection
// (ReadRequest), and canonicalises ExclusiveStartKey.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html
type QueryInput struct {
	ReadRequest
	KeyConditionExpression *string
	KeyConditions          map[string]expr.LegacyCondition
	ScanIndexForward       *bool

	// KeyConds is the parsed key condition. Set by Prepare.
	KeyConds []expr.KeyCond
}

// Decode implements Input.
func (in *QueryInput) Decode(r *wire.Reader) error {
	_, err := object(r, "QueryInput", func(k string) error {
		if ok, err := in.decodeMember(r, k, "QueryFilter"); ok {
			return err
		}
		switch k {
		case "KeyConditionExpression":
			return readString(r, &in.KeyConditionExpression)
		case "KeyConditions":
			return decodeLegacyConditions(r, "Condition", &in.KeyConditions)
		case "ScanIndexForward":
			return readBool(r, &in.ScanIndexForward)
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the request without the table and parses its key
// condition, filter and projection.
func (in *QueryInput) Prepare() error {
	if err := newerConditionalOperator(in.ConditionalOperator); err != nil {
		return err
	}
	var c constraints
	in.constraints(&c, true)
	if err := c.err(); err != nil {
		return err
	}
	// KeyConditions conflicts only with KeyConditionExpression: with a
	// FilterExpression or ProjectionExpression it is accepted, and it is
	// listed last. Sources: dynalite's validateExpressionParams and its
	// query.js tests (checked against DynamoDB); ScyllaDB Alternator's
	// test_query.py::test_query_filter_expression,
	// test_projection_expression.py::test_projection_expression_query and
	// test_query_filter.py::test_query_filter_and_projection_expression,
	// which pass against DynamoDB; the developer guide's KeyConditions
	// page ("If a FilterExpression or QueryFilter is present, it will be
	// applied after the items are retrieved").
	legacy := in.legacyParams("QueryFilter")
	if in.KeyConditions != nil && in.KeyConditionExpression != nil {
		legacy = append(legacy, "KeyConditions")
	}
	ctx, err := in.ExpressionParams.newContext([]exprParam{
		{expr.ProjectionExpression, in.ProjectionExpression},
		{expr.FilterExpression, in.FilterExpression},
		{expr.KeyConditionExpression, in.KeyConditionExpression},
	}, legacy)
	if err != nil {
		return err
	}
	if err := in.validateSelect(); err != nil {
		return err
	}
	if in.KeyConditions == nil && in.KeyConditionExpression == nil {
		return ddberr.Validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	if in.KeyConditions != nil {
		if err := validateLegacyValues(in.KeyConditions, attr.CurrentLayer); err != nil {
			return err
		}
		if in.KeyConds, err = expr.LegacyKeyConditions(in.KeyConditions); err != nil {
			return err
		}
	}
	if in.KeyConditionExpression != nil {
		if in.KeyConds, err = ctx.ParseKeyCondition(*in.KeyConditionExpression); err != nil {
			return err
		}
	}
	return in.finish(ctx)
}

// Forward reports the sort direction (ScanIndexForward, default true).
func (in *QueryInput) Forward() bool { return in.ScanIndexForward == nil || *in.ScanIndexForward }
