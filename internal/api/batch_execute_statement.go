package api

import (
	"strconv"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// MaxBatchStatements is the most statements of one BatchExecuteStatement.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchExecuteStatement.html
// (Statements: 1 to 25 items).
const MaxBatchStatements = 25

// BatchStatementRequest is one statement of a BatchExecuteStatement.
// Prepare sets Parsed and Params, or Err: a statement that cannot be
// read or whose parameters are refused fails alone, in its own
// response's Error (partiqlGrammar.test.ts, partiqlParameterNumbers.test.ts).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchStatementRequest.html
type BatchStatementRequest struct {
	// ParameterizedStatement holds Statement, Parameters and
	// ReturnValuesOnConditionCheckFailure, and Parsed and Params.
	ParameterizedStatement
	ConsistentRead *bool

	Err error
}

// BatchExecuteStatementInput is the BatchExecuteStatement request.
type BatchExecuteStatementInput struct {
	Statements             []BatchStatementRequest
	ReturnConsumedCapacity *string
	hasStatements          bool
}

// KeepBody implements BodyKeeper: it keeps each statement's parameters
// as sent, for partiql.CheckParamsJSON.
func (in *BatchExecuteStatementInput) KeepBody(body []byte) {
	for i, raw := range rawParameters(body, "Statements", len(in.Statements)) {
		in.Statements[i].raw = raw
	}
}

// Decode implements Input.
func (in *BatchExecuteStatementInput) Decode(r *wire.Reader) error {
	_, err := object(r, "BatchExecuteStatementInput", func(k string) error {
		switch k {
		case "Statements":
			list := []BatchStatementRequest{}
			ok, err := r.Array("List", func(int) error {
				var s BatchStatementRequest
				_, err := object(r, "BatchStatementRequest", func(k string) error {
					if ok, err := s.decodeMember(r, k); ok {
						return err
					}
					if k == "ConsistentRead" {
						return readBool(r, &s.ConsistentRead)
					}
					return r.Skip()
				})
				list = append(list, s)
				return err
			})
			if ok {
				in.Statements, in.hasStatements = list, true
			}
			return err
		case "ReturnConsumedCapacity":
			return readString(r, &in.ReturnConsumedCapacity)
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the request's members, then parses each statement,
// keeping a statement's own error in its Err.
func (in *BatchExecuteStatementInput) Prepare() error {
	var c constraints
	if !in.hasStatements {
		c.add("", true, "statements", "Member must not be null")
	} else {
		if len(in.Statements) < 1 {
			c.add("[]", false, "statements", "Member must have length greater than or equal to 1")
		}
		if len(in.Statements) > MaxBatchStatements {
			c.add("[...]", false, "statements", "Member must have length less than or equal to 25")
		}
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, returnConsumedCapacityValues...)
	for i := range in.Statements {
		s := &in.Statements[i]
		p := "statements." + strconv.Itoa(i+1) + ".member."
		c.length(p+"statement", s.Statement, 1, MaxStatementLength, true)
		c.enum(p+"returnValuesOnConditionCheckFailure", s.ReturnValuesOnConditionCheckFailure, returnValuesOnCCFValues...)
	}
	if err := c.err(); err != nil {
		return err
	}
	for i := range in.Statements {
		s := &in.Statements[i]
		s.Parsed, s.Params, _, s.Err = prepareStatement(*s.Statement, s.Parameters, s.raw)
	}
	return nil
}

// BatchStatementResponse is one statement's answer: the item a SELECT
// read, or the statement's Error.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchStatementResponse.html
type BatchStatementResponse struct {
	TableName string
	Item      []byte // item JSON, nil for none
	Err       error  // nil for success
}

// BatchExecuteStatementOutput is the BatchExecuteStatement response.
type BatchExecuteStatementOutput struct {
	Responses        []BatchStatementResponse
	ConsumedCapacity []*ConsumedCapacity
}

// batchErrorCodes are BatchStatementError codes by exception: DynamoDB
// drops "Exception" and names validation failures ValidationError.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchStatementError.html
var batchErrorCodes = map[ddberr.Code]string{
	ddberr.ValidationException:                      "ValidationError",
	ddberr.ResourceNotFoundException:                "ResourceNotFound",
	ddberr.ConditionalCheckFailedException:          "ConditionalCheckFailed",
	ddberr.DuplicateItemException:                   "DuplicateItem",
	ddberr.TransactionConflictException:             "TransactionConflict",
	ddberr.ProvisionedThroughputExceededException:   "ProvisionedThroughputExceeded",
	ddberr.ThrottlingException:                      "ThrottlingError",
	ddberr.RequestLimitExceeded:                     "RequestLimitExceeded",
	ddberr.ItemCollectionSizeLimitExceededException: "ItemCollectionSizeLimitExceeded",
	ddberr.AccessDeniedException:                    "AccessDenied",
	ddberr.InternalServerError:                      "InternalServerError",
}

// AppendJSON appends the response body.
func (o *BatchExecuteStatementOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"Responses":[`...)
	for i, r := range o.Responses {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		if r.Err != nil {
			code, msg, item := "InternalServerError", "Internal server error", []byte(nil)
			if e, ok := ddberr.As(r.Err); ok {
				if c, ok := batchErrorCodes[e.Code]; ok {
					code, msg, item = c, e.Message, e.Item
				}
			}
			dst = append(dst, `"Error":{"Code":`...)
			dst = wire.AppendString(dst, code)
			dst = append(dst, `,"Message":`...)
			dst = wire.AppendString(dst, msg)
			if item != nil {
				dst = append(dst, `,"Item":`...)
				dst = append(dst, item...)
			}
			dst = append(dst, '}')
		}
		if r.TableName != "" {
			if r.Err != nil {
				dst = append(dst, ',')
			}
			dst = append(dst, `"TableName":`...)
			dst = wire.AppendString(dst, r.TableName)
			if r.Item != nil {
				dst = append(dst, `,"Item":`...)
				dst = append(dst, r.Item...)
			}
		}
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	dst = appendCapacities(dst, o.ConsumedCapacity)
	return append(dst, '}')
}
