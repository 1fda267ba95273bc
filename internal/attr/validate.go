package attr

import (
	"bytes"
	"encoding/base64"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/ddberr"
)

// MaxDepth is the deepest nesting DynamoDB stores: a top-level attribute
// counts as level 1, so at most 31 M/L wrappers may sit above a scalar.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-attributes-nested-depth
const MaxDepth = 32

const msgNesting = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"

// CheckDepth rejects v, a top-level attribute value, when it nests
// deeper than MaxDepth levels (a list or map on the last level counts as
// too deep, as Validate has it). UpdateItem uses it on the attributes an
// update wrote, since a SET into a deep path can deepen a stored item.
func CheckDepth(v Value) error {
	if levels(v) > MaxDepth {
		return ddberr.Validation(msgNesting)
	}
	return nil
}

// levels counts v's nesting levels, v itself being level 1; an empty list
// or map counts as holding one more level.
func levels(v Value) int {
	deepest := 1
	switch v.kind {
	case L:
		for _, e := range v.list {
			deepest = max(deepest, levels(e))
		}
	case M:
		for _, e := range v.m {
			deepest = max(deepest, levels(e))
		}
	default:
		return 1
	}
	return 1 + deepest
}

// Layer names one of DynamoDB's two request-validation layers. They accept
// and reject the same values but word some errors differently: the current
// layer (PutItem, UpdateItem, DeleteItem, GetItem, BatchGetItem, Query)
// quotes and orders the members of a set with duplicates and ends an empty
// number's message with ": "; the older layer (BatchWriteItem, Scan,
// TransactWriteItems, TransactGetItems) lists set members as sent and
// reports NS duplicates without a prefix.
//
// Source: captured answers of DynamoDB in four regions, recorded in
// docs/dynamodb-behaviour.md §4.4 and §4.5.
type Layer uint8

const (
	// CurrentLayer words errors as PutItem, UpdateItem, DeleteItem,
	// GetItem, BatchGetItem and Query do.
	CurrentLayer Layer = iota
	// OlderLayer words errors as BatchWriteItem, Scan and the
	// transactions do.
	OlderLayer
)

// bareError marks a malformed number or a duplicate set member: the
// current layer reports one in an expression value without the
// "ExpressionAttributeValues contains invalid value" wrapper it keeps for
// other faults (see Bare).
type bareError struct{ err error }

func (e bareError) Error() string { return e.err.Error() }
func (e bareError) Unwrap() error { return e.err }

func bare(err error) error { return bareError{err} }

// Bare reports whether err, from Validate or ValidateIn, is a malformed
// number or a duplicate set member, which the current layer reports bare
// when the value is an ExpressionAttributeValues entry. Sources: the
// conformance suite's tests/tier3/error-messages/valueLayers.test.ts
// (numbers and duplicates, four regions, 2026-10-09) and
// ../shared/cases/cases.jsonl empty-and-duplicate-sets (an empty set in
// UpdateItem's values keeps the wrapper).
func Bare(err error) bool {
	var b bareError
	return errors.As(err, &b)
}

// Validate checks v against DynamoDB's rules for attribute values and
// returns it with every number in canonical form. Errors are
// ValidationExceptions with DynamoDB's messages (worded as the current
// layer words them, see Layer): an AttributeValue with no or several type
// descriptors, NULL:false, a malformed or out-of-range number, an empty
// set, a set with duplicate members, nesting beyond 32 levels.
//
// Validate rewrites nested values in place, so call it only on values the
// caller owns, such as ones just decoded from a request.
func Validate(v Value) (Value, error) { return validate(v, 1, CurrentLayer) }

// ValidateIn is Validate with errors worded as layer l words them.
func ValidateIn(v Value, l Layer) (Value, error) { return validate(v, 1, l) }

func validate(v Value, depth int, l Layer) (Value, error) {
	switch v.kind {
	case Invalid:
		if v.str == reasonMulti {
			return v, ddberr.Validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
		}
		return v, ddberr.Validation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	case N:
		if v.str == "" && l == OlderLayer {
			return v, ddberr.Validation(msgNotNumeric)
		}
		n, err := parseNumberIn(v.str, l)
		if err != nil {
			return v, bare(err)
		}
		v.str = n
	case NULL:
		if !v.b {
			return v, ddberr.InvalidParam("Null attribute value types must have the value of true")
		}
	case SS, NS, BS:
		return validateSet(v, l)
	case L:
		if depth >= MaxDepth {
			return v, ddberr.Validation(msgNesting)
		}
		for i, e := range v.list {
			ne, err := validate(e, depth+1, l)
			if err != nil {
				return v, err
			}
			v.list[i] = ne
		}
	case M:
		if depth >= MaxDepth {
			return v, ddberr.Validation(msgNesting)
		}
		for k, e := range v.m {
			ne, err := validate(e, depth+1, l)
			if err != nil {
				return v, err
			}
			v.m[k] = ne
		}
	}
	return v, nil
}

func validateSet(v Value, l Layer) (Value, error) {
	if len(v.set) == 0 {
		switch v.kind {
		case SS:
			return v, ddberr.InvalidParam("An string set  may not be empty")
		case NS:
			return v, ddberr.InvalidParam("An number set  may not be empty")
		default:
			return v, ddberr.InvalidParam("Binary sets should not be empty")
		}
	}
	members := v.set
	if v.kind == NS {
		members = make([]string, len(v.set))
		for i, s := range v.set {
			if s == "" && l == OlderLayer {
				return v, ddberr.Validation(msgNotNumeric)
			}
			n, err := parseNumberIn(s, l)
			if err != nil {
				return v, bare(err)
			}
			members[i] = n
		}
	}
	seen := make(map[string]struct{}, len(members))
	for i, s := range members {
		if _, dup := seen[s]; dup {
			return v, bare(duplicateSetError(v, i, l))
		}
		seen[s] = struct{}{}
	}
	SortMembers(v.kind, members)
	v.set = members
	return v, nil
}

// duplicateSetError words the error for set v whose member at index dup
// repeats an earlier one. The older layer lists the members as sent. The
// current layer quotes them and lists the members before the repeat in
// byte order, then the repeat, then the rest as sent (the order in which
// an ordered set would have received them when the insert failed).
func duplicateSetError(v Value, dup int, l Layer) error {
	if v.kind == NS {
		if l == OlderLayer {
			return ddberr.Validation("Input collection contains duplicates")
		}
		return ddberr.InvalidParam("Input collection contains duplicates.")
	}
	members := v.set
	if l == CurrentLayer {
		members = make([]string, 0, len(v.set))
		members = append(members, v.set[:dup]...)
		sort.Slice(members, func(i, j int) bool { return bytes.Compare([]byte(members[i]), []byte(members[j])) < 0 })
		members = append(members, v.set[dup:]...)
	}
	shown := make([]string, len(members))
	for i, s := range members {
		if v.kind == BS {
			s = base64.StdEncoding.EncodeToString([]byte(s))
		}
		if l == CurrentLayer {
			s = strconv.Quote(s)
		}
		shown[i] = s
	}
	switch {
	case v.kind == SS:
		return ddberr.InvalidParam("Input collection [" + strings.Join(shown, ", ") + "] contains duplicates.")
	case l == CurrentLayer:
		return ddberr.InvalidParam("Input collection [" + strings.Join(shown, ",") + "]of type BS contains duplicates.")
	default:
		return ddberr.InvalidParam("Input collection [" + strings.Join(shown, ", ") + "]of type BS contains duplicates.")
	}
}

// MaxNameBytes is the longest attribute name DynamoDB accepts, in bytes
// of UTF-8. The developer guide says 64 KB; 65,535 is the last accepted
// length.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-attributes
const MaxNameBytes = 65535

// CheckName checks a top-level attribute name: it must be 1 to
// MaxNameBytes bytes long. The ValidationException messages are those of
// AWS's DynamoDB Local error catalog ("Empty attribute name", "Attribute
// name is too large, must be less than 65536 bytes").
func CheckName(name string) error {
	switch {
	case name == "":
		return ddberr.Validation("Empty attribute name")
	case len(name) > MaxNameBytes:
		return ddberr.Validation("Attribute name is too large, must be less than 65536 bytes")
	}
	return nil
}

// ValidateItem validates every attribute name (see CheckName) and value
// (see Validate) of item, rewriting values in place.
func ValidateItem(item Item) error { return ValidateItemIn(item, CurrentLayer) }

// ValidateItemIn is ValidateItem with errors worded as layer l words them.
//
// The attribute names are checked before any value, so an empty name is
// reported ahead of a value nested too deep, whatever their order in the
// request (the conformance suite's tests/tier3/validation-ordering/
// deepRequests.test.ts, ten regions, 2026-10-09); values are checked in
// name order, so that the error reported does not depend on map order.
func ValidateItemIn(item Item, l Layer) error {
	for k := range item {
		if err := CheckName(k); err != nil {
			return err
		}
	}
	for k, v := range item {
		nv, err := ValidateIn(v, l)
		if err != nil {
			// Off the fast path: report the first bad value by name.
			for _, k := range item.SortedNames() {
				if _, err := ValidateIn(item[k], l); err != nil {
					return err
				}
			}
			return err
		}
		item[k] = nv
	}
	return nil
}
