// Package api holds the wire shapes of DynamoDB's operations: one file per
// operation with its XxxInput (decoded strictly from the request JSON),
// its XxxOutput (encoded without reflection), and the input's Prepare,
// which returns DynamoDB's exact ValidationException text for everything
// that can be checked without looking at a table and parses the
// request's expressions into the fields the engine reads (the Request
// interface states the contract). docs/operations.md lists each
// operation's file here and in the engine.
//
// Decoding reports JSON type mismatches as SerializationException; Prepare
// reports member constraints in Coral's "N validation errors detected: ..."
// form and then semantic problems one at a time, in the order DynamoDB
// checks them.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Operations_Amazon_DynamoDB.html
package api

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/ddberr"
)

// constraints collects Coral member-constraint violations and renders
// them as DynamoDB does:
//
//	2 validation errors detected: Value 'x' at 'tableName' failed to
//	satisfy constraint: Member must ...; Value null at ...
type constraints struct {
	list []string
	// prefix is prepended to every path: the member path of a nested
	// request, e.g. "transactItems.1.member.put." for a transaction's Put.
	prefix string
}

// maxConstraintErrors is how many violations Coral reports at most.
const maxConstraintErrors = 10

func (c *constraints) add(value string, null bool, path, constraint string) {
	if len(c.list) >= maxConstraintErrors {
		return
	}
	v := "null"
	if !null {
		v = "'" + value + "'"
	}
	c.list = append(c.list, "Value "+v+" at '"+c.prefix+path+"' failed to satisfy constraint: "+constraint)
}

func (c *constraints) err() error {
	if len(c.list) == 0 {
		return nil
	}
	s := "s"
	if len(c.list) == 1 {
		s = ""
	}
	return ddberr.Validation(strconv.Itoa(len(c.list)) + " validation error" + s + " detected: " + strings.Join(c.list, "; "))
}

var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)

// name checks a table or index name: pattern [a-zA-Z0-9_.-]+, length
// 3..255. A nil name is checked only when required.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html
func (c *constraints) name(path string, v *string, required bool) {
	if v == nil {
		if required {
			c.add("", true, path, "Member must not be null")
		}
		return
	}
	if !namePattern.MatchString(*v) {
		c.add(*v, false, path, "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	}
	if charLen(*v) < 3 {
		c.add(*v, false, path, "Member must have length greater than or equal to 3")
	}
	if charLen(*v) > 255 {
		c.add(*v, false, path, "Member must have length less than or equal to 255")
	}
}

// enum checks that a present value is one of allowed.
func (c *constraints) enum(path string, v *string, allowed ...string) {
	if v == nil {
		return
	}
	for _, a := range allowed {
		if *v == a {
			return
		}
	}
	c.add(*v, false, path, "Member must satisfy enum value set: ["+strings.Join(allowed, ", ")+"]")
}

// length checks a present string's length bounds (lo, hi in bytes).
func (c *constraints) length(path string, v *string, lo, hi int, required bool) {
	if v == nil {
		if required {
			c.add("", true, path, "Member must not be null")
		}
		return
	}
	if charLen(*v) < lo {
		c.add(*v, false, path, "Member must have length greater than or equal to "+strconv.Itoa(lo))
	}
	if charLen(*v) > hi {
		c.add(*v, false, path, "Member must have length less than or equal to "+strconv.Itoa(hi))
	}
}

// min checks a present integer's lower bound.
func (c *constraints) min(path string, v *int64, lo int64) {
	if v != nil && *v < lo {
		c.add(strconv.FormatInt(*v, 10), false, path, "Member must have value greater than or equal to "+strconv.FormatInt(lo, 10))
	}
}

// max checks a present integer's upper bound.
func (c *constraints) max(path string, v *int64, hi int64) {
	if v != nil && *v > hi {
		c.add(strconv.FormatInt(*v, 10), false, path, "Member must have value less than or equal to "+strconv.FormatInt(hi, 10))
	}
}

// Enumerations DynamoDB checks, in the order its messages list them.
var (
	returnConsumedCapacityValues      = []string{"INDEXES", "TOTAL", "NONE"}
	returnItemCollectionMetricsValues = []string{"SIZE", "NONE"}
	returnValuesValues                = []string{"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"} // DynamoDB's order, §4.7
	returnValuesOnCCFValues           = []string{"ALL_OLD", "NONE"}
	selectValues                      = []string{"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"}
	// olderConditionalOperatorValues is the older reading's list, in its
	// order (deepRequests.test.ts and updateItem.test.ts, 2026-10-09).
	olderConditionalOperatorValues = []string{"OR", "AND"}
)

// newerConditionalOperator is the newer reading's answer to a
// ConditionalOperator outside its enum: bare, on its own, ahead of every
// other member error (the conformance suite's validation-ordering/
// query.test.ts, "reports XOR with two QueryFilter conditions before an
// unknown Select", eu-west-2 and us-east-1, 2026-10-09; deepRequests.test.ts
// says PutItem and UpdateItem answer this form at 33 and 40 levels).
func newerConditionalOperator(v *string) error {
	if v == nil || *v == "AND" || *v == "OR" {
		return nil
	}
	return ddberr.Validation("Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]")
}

// envelope wraps a validation message in Coral's single-error envelope,
// as DynamoDB's current validation layer does for PutItem, UpdateItem and
// DeleteItem request and value errors ("1 validation error detected:
// ..."). Key-schema errors found later, against the table, stay bare.
func envelope(err error) error {
	if err == nil {
		return nil
	}
	e, ok := ddberr.As(err)
	if !ok || e.Code != ddberr.ValidationException || strings.HasSuffix(strings.SplitN(e.Message, ":", 2)[0], "detected") {
		return err
	}
	return ddberr.Validation("1 validation error detected: " + e.Message)
}

// charLen is a string's length as DynamoDB's request validation counts
// it: in UTF-16 code units (Java characters), not bytes, so "é" is 1
// and an emoji 2.
func charLen(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}
