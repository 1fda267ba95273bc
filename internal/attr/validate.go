package attr

import (
	"encoding/base64"
	"strings"

	"github.com/dynago/dynago/internal/ddberr"
)

// MaxDepth is the deepest nesting DynamoDB stores: a top-level attribute
// counts as level 1, so at most 31 M/L wrappers may sit above a scalar.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-attributes-nested-depth
const MaxDepth = 32

const msgNesting = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"

// Validate checks v against DynamoDB's rules for attribute values and
// returns it with every number in canonical form. Errors are
// ValidationExceptions with DynamoDB's messages: an AttributeValue with no
// or several type descriptors, NULL:false, a malformed or out-of-range
// number, an empty set, a set with duplicate members, nesting beyond 32
// levels.
//
// Validate rewrites nested values in place, so call it only on values the
// caller owns, such as ones just decoded from a request.
func Validate(v Value) (Value, error) { return validate(v, 1) }

func validate(v Value, depth int) (Value, error) {
	switch v.kind {
	case Invalid:
		if v.str == reasonMulti {
			return v, ddberr.Validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
		}
		return v, ddberr.Validation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	case N:
		n, err := ParseNumber(v.str)
		if err != nil {
			return v, err
		}
		v.str = n
	case NULL:
		if !v.b {
			return v, ddberr.InvalidParam("Null attribute value types must have the value of true")
		}
	case SS, NS, BS:
		return validateSet(v)
	case L:
		if depth >= MaxDepth {
			return v, ddberr.Validation(msgNesting)
		}
		for i, e := range v.list {
			ne, err := validate(e, depth+1)
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
			ne, err := validate(e, depth+1)
			if err != nil {
				return v, err
			}
			v.m[k] = ne
		}
	}
	return v, nil
}

func validateSet(v Value) (Value, error) {
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
			n, err := ParseNumber(s)
			if err != nil {
				return v, err
			}
			members[i] = n
		}
	}
	seen := make(map[string]struct{}, len(members))
	for _, s := range members {
		if _, dup := seen[s]; dup {
			return v, duplicateSetError(v)
		}
		seen[s] = struct{}{}
	}
	v.set = members
	return v, nil
}

func duplicateSetError(v Value) error {
	switch v.kind {
	case SS:
		return ddberr.InvalidParam("Input collection [" + strings.Join(v.set, ", ") + "] contains duplicates.")
	case NS:
		return ddberr.Validation("Input collection contains duplicates")
	default:
		enc := make([]string, len(v.set))
		for i, s := range v.set {
			enc[i] = base64.StdEncoding.EncodeToString([]byte(s))
		}
		return ddberr.InvalidParam("Input collection [" + strings.Join(enc, ", ") + "]of type BS contains duplicates.")
	}
}

// ValidateItem validates every attribute of item in place (see Validate).
func ValidateItem(item Item) error {
	for k, v := range item {
		nv, err := Validate(v)
		if err != nil {
			return err
		}
		item[k] = nv
	}
	return nil
}
