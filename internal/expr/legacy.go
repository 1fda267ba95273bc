package expr

import (
	"sort"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
)

// LegacyCondition is one entry of the legacy conditional parameters
// (Expected, QueryFilter, ScanFilter, KeyConditions), which DynamoDB still
// accepts. Value and Exists exist only in Expected.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LegacyConditionalParameters.html
type LegacyCondition struct {
	ComparisonOperator *string
	AttributeValueList []attr.Value // nil when absent
	Value              *attr.Value
	Exists             *bool
}

// LegacyUpdate is one entry of the legacy AttributeUpdates parameter
// (UpdateItem), applied by eval.ApplyAttributeUpdates.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeValueUpdate.html
type LegacyUpdate struct {
	Action string // PUT, ADD or DELETE (the request decoder makes an absent Action PUT)
	Value  *attr.Value
}

// argument counts per ComparisonOperator (-1: one or more).
var legacyArity = map[string]int{
	"EQ": 1, "NE": 1, "LE": 1, "LT": 1, "GE": 1, "GT": 1,
	"NOT_NULL": 0, "NULL": 0, "CONTAINS": 1, "NOT_CONTAINS": 1,
	"BEGINS_WITH": 1, "IN": -1, "BETWEEN": 2,
}

// operand types each operator accepts in AttributeValueList.
var legacyTypes = map[string][]attr.Kind{
	"EQ": {attr.S, attr.N, attr.B, attr.SS, attr.NS, attr.BS, attr.L, attr.M, attr.BOOL, attr.NULL},
	"NE": {attr.S, attr.N, attr.B, attr.SS, attr.NS, attr.BS, attr.L, attr.M, attr.BOOL, attr.NULL},
	"LE": {attr.S, attr.N, attr.B}, "LT": {attr.S, attr.N, attr.B},
	"GE": {attr.S, attr.N, attr.B}, "GT": {attr.S, attr.N, attr.B},
	"CONTAINS": {attr.S, attr.N, attr.B}, "NOT_CONTAINS": {attr.S, attr.N, attr.B},
	"BEGINS_WITH": {attr.S, attr.B}, "IN": {attr.S, attr.N, attr.B}, "BETWEEN": {attr.S, attr.N, attr.B},
}

// LegacyToCondition converts legacy conditions joined by
// ConditionalOperator ("AND" when empty) into an equivalent condition
// tree. expected selects the rules of the Expected parameter (Value and
// Exists allowed). Names are visited in sorted order so that the first
// error reported does not depend on map order.
func LegacyToCondition(conds map[string]LegacyCondition, conditionalOperator string, expected bool) (Expr, error) {
	names := make([]string, 0, len(conds))
	for n := range conds {
		names = append(names, n)
	}
	sort.Strings(names)
	var out Expr
	for _, name := range names {
		e, err := legacyOne(name, conds[name], expected)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = e
		} else {
			out = &Logical{Or: conditionalOperator == "OR", L: out, R: e}
		}
	}
	return out, nil
}

func legacyPath(name string) *Path {
	return &Path{Elems: []Elem{{Name: name, Raw: name}}}
}

func legacyValue(v attr.Value) *ValueRef {
	return &ValueRef{Name: ":legacy", Value: v}
}

func legacyOne(name string, c LegacyCondition, expected bool) (Expr, error) {
	path := legacyPath(name)
	if expected {
		if c.AttributeValueList != nil && c.Value != nil {
			return nil, ddberr.InvalidParam("Value and AttributeValueList cannot be used together for Attribute: " + name)
		}
		if c.ComparisonOperator == nil {
			if c.AttributeValueList != nil {
				return nil, ddberr.InvalidParam("AttributeValueList can only be used with a ComparisonOperator for Attribute: " + name)
			}
			exists := c.Exists == nil || *c.Exists
			if exists && c.Value == nil {
				state := "null"
				if c.Exists != nil {
					state = "true"
				}
				return nil, ddberr.InvalidParam("Value must be provided when Exists is " + state + " for Attribute: " + name)
			}
			if !exists && c.Value != nil {
				return nil, ddberr.InvalidParam("Value cannot be used when Exists is false for Attribute: " + name)
			}
			if !exists {
				return &Call{Name: "attribute_not_exists", Args: []Expr{path}}, nil
			}
			return &Compare{Op: OpEq, L: path, R: legacyValue(*c.Value)}, nil
		}
		if c.Exists != nil {
			return nil, ddberr.InvalidParam("Exists and ComparisonOperator cannot be used together for Attribute: " + name)
		}
		op := *c.ComparisonOperator
		if op != "NULL" && op != "NOT_NULL" && c.AttributeValueList == nil && c.Value == nil {
			return nil, ddberr.InvalidParam("Value or AttributeValueList must be used with ComparisonOperator: " + op + " for Attribute: " + name)
		}
		if c.Value != nil {
			c.AttributeValueList = []attr.Value{*c.Value}
		}
	}
	if c.ComparisonOperator == nil {
		return nil, ddberr.Validation("1 validation error detected: Value null at 'comparisonOperator' failed to satisfy constraint: Member must not be null")
	}
	op := *c.ComparisonOperator
	args := c.AttributeValueList
	want, known := legacyArity[op]
	if !known {
		return nil, ddberr.Validation("1 validation error detected: Value '" + op + "' at 'comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]")
	}
	if (want >= 0 && len(args) != want) || (want < 0 && len(args) == 0) {
		return nil, ddberr.InvalidParam("Invalid number of argument(s) for the " + op + " ComparisonOperator")
	}
	if len(args) > 0 {
		k := args[0].Kind()
		for _, a := range args[1:] {
			if a.Kind() != k {
				return nil, ddberr.InvalidParam("AttributeValues inside AttributeValueList must be of same type")
			}
		}
		if !kindIn(k, legacyTypes[op]) {
			return nil, ddberr.InvalidParam("ComparisonOperator " + op + " is not valid for " + k.String() + " AttributeValue type")
		}
	}
	if op == "BETWEEN" {
		if cmp, ok := attr.Compare(args[0], args[1]); ok && cmp > 0 {
			return nil, ddberr.Validation("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
		}
	}
	v := func(i int) Expr { return legacyValue(args[i]) }
	switch op {
	case "EQ", "NE", "LE", "LT", "GE", "GT":
		return &Compare{Op: map[string]Op{"EQ": OpEq, "NE": OpNe, "LE": OpLe, "LT": OpLt, "GE": OpGe, "GT": OpGt}[op], L: path, R: v(0)}, nil
	case "NOT_NULL":
		return &Call{Name: "attribute_exists", Args: []Expr{path}}, nil
	case "NULL":
		return &Call{Name: "attribute_not_exists", Args: []Expr{path}}, nil
	case "CONTAINS":
		return &Call{Name: "contains", Args: []Expr{path, v(0)}}, nil
	case "NOT_CONTAINS":
		return &Logical{
			L: &Call{Name: "attribute_exists", Args: []Expr{path}},
			R: &Not{X: &Call{Name: "contains", Args: []Expr{path, v(0)}}},
		}, nil
	case "BEGINS_WITH":
		return &Call{Name: "begins_with", Args: []Expr{path, v(0)}}, nil
	case "IN":
		list := make([]Expr, len(args))
		for i := range args {
			list[i] = v(i)
		}
		return &In{X: path, List: list}, nil
	case "BETWEEN":
		return &Between{X: path, Lo: v(0), Hi: v(1)}, nil
	}
	return nil, ddberr.Validation("Unsupported ComparisonOperator: " + op)
}

func kindIn(k attr.Kind, list []attr.Kind) bool {
	for _, x := range list {
		if x == k {
			return true
		}
	}
	return false
}

// LegacyKeyConditions converts Query's legacy KeyConditions into key
// conditions.
func LegacyKeyConditions(conds map[string]LegacyCondition) ([]KeyCond, error) {
	names := make([]string, 0, len(conds))
	for n := range conds {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []KeyCond
	for _, name := range names {
		e, err := legacyOne(name, conds[name], false)
		if err != nil {
			return nil, err
		}
		switch x := e.(type) {
		case *Compare:
			if x.Op == OpNe {
				return nil, ddberr.Validation("Attempted conditional constraint is not an indexable operation")
			}
			out = append(out, KeyCond{Name: name, Op: straight[x.Op], Values: []attr.Value{x.R.(*ValueRef).Value}})
		case *Between:
			out = append(out, KeyCond{Name: name, Op: KeyBetween, Values: []attr.Value{x.Lo.(*ValueRef).Value, x.Hi.(*ValueRef).Value}})
		case *Call:
			if x.Name != "begins_with" {
				return nil, ddberr.Validation("Attempted conditional constraint is not an indexable operation")
			}
			out = append(out, KeyCond{Name: name, Op: KeyBeginsWith, Values: []attr.Value{x.Args[1].(*ValueRef).Value}})
		default:
			return nil, ddberr.Validation("Attempted conditional constraint is not an indexable operation")
		}
	}
	return out, nil
}
