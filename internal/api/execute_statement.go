package api

import (
	"encoding/json"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/partiql"
	"github.com/dynago/dynago/internal/wire"
)

// MaxStatementLength is the longest PartiQL statement, in characters.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html
// (Statement: length 1 to 8192).
const MaxStatementLength = 8192

// ExecuteStatementInput is the ExecuteStatement request. Prepare parses
// Statement into Parsed and checks Parameters into Params.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html
type ExecuteStatementInput struct {
	Statement                           *string
	Parameters                          []attr.Value
	ConsistentRead                      *bool
	NextToken                           *string
	ReturnConsumedCapacity              *string
	ReturnValuesOnConditionCheckFailure *string
	Limit                               *int64

	// Parsed is the parsed statement and Params the checked parameters
	// (numbers canonical). Set by Prepare.
	Parsed partiql.Statement
	Params []attr.Value

	// rawParams is each parameter's JSON as sent (KeepBody), for the
	// document-order checks of partiql.CheckParamsJSON.
	rawParams []json.RawMessage
}

// KeepBody implements BodyKeeper.
func (in *ExecuteStatementInput) KeepBody(body []byte) {
	var raw struct{ Parameters []json.RawMessage }
	if json.Unmarshal(body, &raw) == nil {
		in.rawParams = raw.Parameters
	}
}

// Decode implements Input.
func (in *ExecuteStatementInput) Decode(r *wire.Reader) error {
	_, err := object(r, "ExecuteStatementInput", func(k string) error {
		switch k {
		case "Statement":
			return readString(r, &in.Statement)
		case "Parameters":
			_, err := readValueList(r, &in.Parameters)
			return err
		case "ConsistentRead":
			return readBool(r, &in.ConsistentRead)
		case "NextToken":
			return readString(r, &in.NextToken)
		case "ReturnConsumedCapacity":
			return readString(r, &in.ReturnConsumedCapacity)
		case "ReturnValuesOnConditionCheckFailure":
			return readString(r, &in.ReturnValuesOnConditionCheckFailure)
		case "Limit":
			return readInt(r, "Integer", &in.Limit)
		}
		return r.Skip()
	})
	return err
}

// readValueList reads a JSON array of AttributeValues.
func readValueList(r *wire.Reader, dst *[]attr.Value) (bool, error) {
	list := []attr.Value{}
	ok, err := r.Array("List", func(int) error {
		v, err := attr.ReadValue(r)
		if err == nil {
			list = append(list, v)
		}
		return err
	})
	if ok {
		*dst = list
	}
	return ok, err
}

// Prepare checks the request's members, parses the statement and checks
// its parameters (a statement DynamoDB cannot read is refused before its
// parameters are looked at).
func (in *ExecuteStatementInput) Prepare() error {
	var c constraints
	c.length("statement", in.Statement, 1, MaxStatementLength, true)
	c.min("limit", in.Limit, 1)
	c.length("nextToken", in.NextToken, 1, 32768, false)
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, returnConsumedCapacityValues...)
	c.enum("returnValuesOnConditionCheckFailure", in.ReturnValuesOnConditionCheckFailure, returnValuesOnCCFValues...)
	if err := c.err(); err != nil {
		return err
	}
	var err error
	in.Parsed, in.Params, _, err = prepareStatement(*in.Statement, in.Parameters, in.rawParams)
	return err
}

// prepareStatement parses one statement and checks its parameters (raw:
// each as sent, for the document-order checks), in DynamoDB's order. The
// error of a statement that does not parse, or whose ? count its
// parameters do not match, is the statement's (ofStatement: an
// ExecuteTransaction prefixes it with the statement's place); a refused
// parameter value is the parameters'.
func prepareStatement(src string, params []attr.Value, raw []json.RawMessage) (st partiql.Statement, checked []attr.Value, ofStatement bool, err error) {
	if st, err = partiql.Parse(src); err != nil {
		return nil, nil, true, err
	}
	if err := partiql.CheckParamsJSON(raw); err != nil {
		return nil, nil, false, err
	}
	if checked, err = partiql.CheckParams(params); err != nil {
		return nil, nil, false, err
	}
	if err := partiql.CheckParamCount(st, len(checked)); err != nil {
		return nil, nil, true, err
	}
	return st, checked, false, nil
}

// rawParameters returns, for each of n statements listed under member in
// a request body, its Parameters' JSON as sent (nil when the body does
// not hold n statements), for KeepBody.
func rawParameters(body []byte, member string, n int) [][]json.RawMessage {
	var members map[string]json.RawMessage
	var list []struct{ Parameters []json.RawMessage }
	if json.Unmarshal(body, &members) != nil || json.Unmarshal(members[member], &list) != nil || len(list) != n {
		return nil
	}
	out := make([][]json.RawMessage, n)
	for i, s := range list {
		out[i] = s.Parameters
	}
	return out
}

// IsConsistent reports whether ConsistentRead was requested.
func (in *ExecuteStatementInput) IsConsistent() bool {
	return in.ConsistentRead != nil && *in.ConsistentRead
}

// ExecuteStatementOutput is the ExecuteStatement response: Items (each
// encoded item JSON), NextToken and LastEvaluatedKey when there is more
// to read, ConsumedCapacity when asked for.
type ExecuteStatementOutput struct {
	Items            [][]byte
	NextToken        string
	LastEvaluatedKey attr.Item
	ConsumedCapacity *ConsumedCapacity
}

// AppendJSON appends the response body.
func (o *ExecuteStatementOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"Items":[`...)
	for i, it := range o.Items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, it...)
	}
	dst = append(dst, ']')
	if o.NextToken != "" {
		dst = append(dst, `,"NextToken":`...)
		dst = wire.AppendString(dst, o.NextToken)
	}
	if o.LastEvaluatedKey != nil {
		dst = append(dst, `,"LastEvaluatedKey":`...)
		dst = attr.AppendItem(dst, o.LastEvaluatedKey)
	}
	if o.ConsumedCapacity != nil {
		dst = append(dst, `,"ConsumedCapacity":`...)
		dst = o.ConsumedCapacity.AppendJSON(dst)
	}
	return append(dst, '}')
}
