package api

import (
	"crypto/sha256"
	"encoding/json"
	"strconv"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/partiql"
	"github.com/dynago/dynago/internal/wire"
)

// MaxTransactStatements is the most statements of one ExecuteTransaction.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteTransaction.html
// (TransactStatements: 1 to 100 items).
const MaxTransactStatements = 100

// ParameterizedStatement is one statement of an ExecuteTransaction;
// Prepare sets Parsed and Params.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ParameterizedStatement.html
type ParameterizedStatement struct {
	Statement                           *string
	Parameters                          []attr.Value
	ReturnValuesOnConditionCheckFailure *string

	Parsed partiql.Statement
	Params []attr.Value
	raw    []json.RawMessage
}

// decodeMember reads member k of a statement, when it is one of
// ParameterizedStatement's (ok false: another member).
func (s *ParameterizedStatement) decodeMember(r *wire.Reader, k string) (ok bool, err error) {
	switch k {
	case "Statement":
		return true, readString(r, &s.Statement)
	case "Parameters":
		_, err := readValueList(r, &s.Parameters)
		return true, err
	case "ReturnValuesOnConditionCheckFailure":
		return true, readString(r, &s.ReturnValuesOnConditionCheckFailure)
	}
	return false, nil
}

// ExecuteTransactionInput is the ExecuteTransaction request.
type ExecuteTransactionInput struct {
	TransactStatements     []ParameterizedStatement
	ClientRequestToken     *string
	ReturnConsumedCapacity *string
	// Fingerprint identifies the request for ClientRequestToken
	// idempotency, as TransactWriteItemsInput's does.
	Fingerprint   [sha256.Size]byte
	PayloadSize   int
	hasStatements bool
}

// KeepBody implements BodyKeeper.
func (in *ExecuteTransactionInput) KeepBody(body []byte) {
	in.Fingerprint, in.PayloadSize = sha256.Sum256(canonicalJSON(body)), len(body)
	for i, raw := range rawParameters(body, "TransactStatements", len(in.TransactStatements)) {
		in.TransactStatements[i].raw = raw
	}
}

// Decode implements Input.
func (in *ExecuteTransactionInput) Decode(r *wire.Reader) error {
	_, err := object(r, "ExecuteTransactionInput", func(k string) error {
		switch k {
		case "TransactStatements":
			list := []ParameterizedStatement{}
			ok, err := r.Array("List", func(int) error {
				var s ParameterizedStatement
				_, err := object(r, "ParameterizedStatement", func(k string) error {
					if ok, err := s.decodeMember(r, k); ok {
						return err
					}
					return r.Skip()
				})
				list = append(list, s)
				return err
			})
			if ok {
				in.TransactStatements, in.hasStatements = list, true
			}
			return err
		case "ClientRequestToken":
			return readString(r, &in.ClientRequestToken)
		case "ReturnConsumedCapacity":
			return readString(r, &in.ReturnConsumedCapacity)
		}
		return r.Skip()
	})
	return err
}

// TransactPrefix prefixes a statement's own validation failure in an
// ExecuteTransaction (partiqlGrammar.test.ts, partiqlFunctions.test.ts:
// "Validation failed in TransactStatements[0]: ...").
func TransactPrefix(i int) string {
	return "Validation failed in TransactStatements[" + strconv.Itoa(i) + "]: "
}

// Prepare checks the request's members and parses every statement. A
// statement DynamoDB cannot read fails the request with TransactPrefix;
// a parameter it refuses fails it with the parameter's message alone
// (partiqlParameterNumbers.test.ts).
func (in *ExecuteTransactionInput) Prepare() error {
	var c constraints
	if t := in.ClientRequestToken; t != nil {
		if charLen(*t) < 1 {
			c.add(*t, false, "clientRequestToken", "Member must have length greater than or equal to 1")
		}
		if charLen(*t) > maxClientTokenLength {
			c.add(*t, false, "clientRequestToken", "Member must have length less than or equal to 36")
		}
	}
	if !in.hasStatements {
		c.add("", true, "transactStatements", "Member must not be null")
	} else {
		if len(in.TransactStatements) < 1 {
			c.add("[]", false, "transactStatements", "Member must have length greater than or equal to 1")
		}
		if len(in.TransactStatements) > MaxTransactStatements {
			c.add("[...]", false, "transactStatements", "Member must have length less than or equal to 100")
		}
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, returnConsumedCapacityValues...)
	for i := range in.TransactStatements {
		s := &in.TransactStatements[i]
		p := "transactStatements." + strconv.Itoa(i+1) + ".member."
		c.length(p+"statement", s.Statement, 1, MaxStatementLength, true)
		c.enum(p+"returnValuesOnConditionCheckFailure", s.ReturnValuesOnConditionCheckFailure, returnValuesOnCCFValues...)
	}
	if err := c.err(); err != nil {
		return err
	}
	for i := range in.TransactStatements {
		s := &in.TransactStatements[i]
		st, params, ofStatement, err := prepareStatement(*s.Statement, s.Parameters, s.raw)
		switch {
		case err != nil && ofStatement:
			return Prefixed(TransactPrefix(i), err)
		case err != nil:
			return err
		}
		s.Parsed, s.Params = st, params
	}
	return nil
}

// Prefixed returns a ValidationException err with prefix before its
// message; other errors unchanged.
func Prefixed(prefix string, err error) error {
	if e, ok := ddberr.As(err); ok && e.Code == ddberr.ValidationException {
		return ddberr.Validation(prefix + e.Message)
	}
	return err
}

// NewTransactWrite returns a TransactWriteItemsInput of items, made by
// ExecuteTransaction, ready for Prepare.
func NewTransactWrite(items []TransactWriteItem, in *ExecuteTransactionInput) *TransactWriteItemsInput {
	return &TransactWriteItemsInput{
		TransactItems: items, ReturnConsumedCapacity: in.ReturnConsumedCapacity,
		ClientRequestToken: in.ClientRequestToken, Fingerprint: in.Fingerprint,
		PayloadSize: in.PayloadSize, hasItems: true,
	}
}

// NewTransactGet returns a TransactGetItemsInput of gets, made by
// ExecuteTransaction, ready for Prepare.
func NewTransactGet(gets []*GetItemInput, capacity *string) *TransactGetItemsInput {
	return &TransactGetItemsInput{Gets: gets, ReturnConsumedCapacity: capacity, hasItems: true}
}

// ExecuteTransactionOutput is the ExecuteTransaction response: for a
// transaction of reads, one response per statement ({"Item": ...} or {});
// for writes, an empty list (writeResponses.test.ts).
type ExecuteTransactionOutput struct {
	Responses        [][]byte
	Reads            bool
	ConsumedCapacity []*ConsumedCapacity
}

// AppendJSON appends the response body.
func (o *ExecuteTransactionOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"Responses":[`...)
	for i, item := range o.Responses {
		if i > 0 {
			dst = append(dst, ',')
		}
		if item == nil {
			dst = append(dst, `{}`...)
			continue
		}
		dst = append(dst, `{"Item":`...)
		dst = append(dst, item...)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	dst = appendCapacities(dst, o.ConsumedCapacity)
	return append(dst, '}')
}
