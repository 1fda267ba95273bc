package partiql

import (
	"strings"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
)

// Planning messages, DynamoDB's words.
const (
	// MsgNeedsKey: an UPDATE or DELETE whose WHERE lacks an equality on a
	// key attribute (partiqlGrammar.test.ts, FROM-first form).
	MsgNeedsKey = "Where clause does not contain a mandatory equality on all key attributes"
	// MsgOverlap: OR branches whose sort-key conditions overlap
	// (partiqlGrammar.test.ts, whereOverlap.test.ts).
	MsgOverlap = "Overlapping conditions with range keys are not supported in where clause"
)

// Conjuncts splits e on its top-level ANDs (parentheses included).
func Conjuncts(e Expr) []Expr {
	if e == nil {
		return nil
	}
	e = Unparen(e)
	if b, ok := e.(*Binary); ok && b.Op == "AND" {
		return append(Conjuncts(b.L), Conjuncts(b.R)...)
	}
	return []Expr{e}
}

// Branches splits e on its top-level ORs.
func Branches(e Expr) []Expr {
	e = Unparen(e)
	if b, ok := e.(*Binary); ok && b.Op == "OR" {
		return append(Branches(b.L), Branches(b.R)...)
	}
	return []Expr{e}
}

// isConstant reports whether e denotes a value fixed by the statement: a
// literal, a parameter or a collection of them.
func isConstant(e Expr) bool {
	switch x := Unparen(e).(type) {
	case *Literal:
		return x.Kind != LitMissing
	case *Param:
		return true
	case *Collection:
		for _, el := range x.Elems {
			if !isConstant(el) {
				return false
			}
		}
		return true
	}
	return false
}

// attrName returns the attribute a one-element path names.
func attrName(e Expr) (string, bool) {
	p, ok := Unparen(e).(*Path)
	if !ok || len(p.Elems) != 1 || p.Elems[0].IsIndex {
		return "", false
	}
	return p.Elems[0].Name, true
}

// Equality returns the constant c when e is "name = c" or "c = name".
func Equality(e Expr, name string) (Expr, bool) {
	b, ok := Unparen(e).(*Binary)
	if !ok || b.Op != "=" {
		return nil, false
	}
	if n, ok := attrName(b.L); ok && n == name && isConstant(b.R) {
		return b.R, true
	}
	if n, ok := attrName(b.R); ok && n == name && isConstant(b.L) {
		return b.L, true
	}
	return nil, false
}

// PartitionValues returns the partition key values a WHERE clause fixes:
// each top-level OR branch must have a top-level conjunct hash = value or
// hash IN [values]. ok is false when some branch leaves the partition
// open, so that the statement is a Scan (developer guide, "PartiQL select
// statements": a SELECT without an equality or IN condition on the
// partition key is a full table scan;
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html).
func PartitionValues(where Expr, hash string, params []attr.Value) (vals []attr.Value, ok bool, err error) {
	if where == nil {
		return nil, false, nil
	}
	for _, br := range Branches(where) {
		found := false
		for _, c := range Conjuncts(br) {
			if v, ok := Equality(c, hash); ok {
				val, err := Value(v, params)
				if err != nil {
					return nil, false, err
				}
				vals = appendDistinct(vals, val)
				found = true
				break
			}
			if in, ok := Unparen(c).(*In); ok && !in.Not && isConstant(in.List) {
				if n, ok := attrName(in.X); ok && n == hash {
					list, err := Value(in.List, params)
					if err != nil {
						return nil, false, err
					}
					if list.Kind() != attr.L {
						continue
					}
					for _, m := range list.ListValue() {
						vals = appendDistinct(vals, m)
					}
					found = true
					break
				}
			}
		}
		if !found {
			return nil, false, nil
		}
	}
	return vals, true, nil
}

func appendDistinct(vals []attr.Value, v attr.Value) []attr.Value {
	for _, have := range vals {
		if attr.Equal(have, v) {
			return vals
		}
	}
	return append(vals, v)
}

// KeyCondition is a sort key condition a Query can use: Op is one of
// = < <= > >= BETWEEN BEGINS_WITH, with one value (two for BETWEEN).
type KeyCondition struct {
	Op     string
	Values []Expr
}

// SortCondition returns the first top-level conjunct of a one-branch
// WHERE that conditions the sort key rng in a form a key condition can
// take.
func SortCondition(where Expr, rng string) (KeyCondition, bool) {
	if rng == "" || where == nil || len(Branches(where)) > 1 {
		return KeyCondition{}, false
	}
	for _, c := range Conjuncts(where) {
		if kc, ok := sortCondition(c, rng); ok {
			return kc, true
		}
	}
	return KeyCondition{}, false
}

var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

func sortCondition(c Expr, rng string) (KeyCondition, bool) {
	switch x := Unparen(c).(type) {
	case *Binary:
		op, ok := flipped[x.Op]
		if !ok {
			return KeyCondition{}, false
		}
		if n, ok := attrName(x.L); ok && n == rng && isConstant(x.R) {
			return KeyCondition{Op: x.Op, Values: []Expr{x.R}}, true
		}
		if n, ok := attrName(x.R); ok && n == rng && isConstant(x.L) {
			return KeyCondition{Op: op, Values: []Expr{x.L}}, true
		}
	case *Between:
		if n, ok := attrName(x.X); ok && n == rng && !x.Not && isConstant(x.Lo) && isConstant(x.Hi) {
			return KeyCondition{Op: "BETWEEN", Values: []Expr{x.Lo, x.Hi}}, true
		}
	case *Call:
		if strings.EqualFold(x.Name, "begins_with") && len(x.Args) == 2 && isConstant(x.Args[1]) {
			if n, ok := attrName(x.Args[0]); ok && n == rng {
				return KeyCondition{Op: "BEGINS_WITH", Values: []Expr{x.Args[1]}}, true
			}
		}
	}
	return KeyCondition{}, false
}

// CheckOverlap refuses OR branches on one partition where one branch
// selects a sort-key range and another reads the whole partition under a
// condition on other attributes: DynamoDB answers MsgOverlap
// (partiqlGrammar.test.ts), but runs branches whose sort-key conditions
// are negated or <> (whereOverlap.test.ts, real DynamoDB, October 2026).
// The rule is dynago's reading of those captures.
func CheckOverlap(where Expr, hash, rng string) error {
	if rng == "" || where == nil {
		return nil
	}
	branches := Branches(where)
	if len(branches) < 2 {
		return nil
	}
	ranged, open := false, false
	for _, br := range branches {
		hasRange, other := false, false
		for _, c := range Conjuncts(br) {
			if _, ok := Equality(c, hash); ok {
				continue
			}
			if _, ok := sortCondition(c, rng); ok {
				hasRange = true
				continue
			}
			if !mentionsOnly(c, hash, rng) {
				other = true
			}
		}
		ranged = ranged || hasRange
		open = open || (!hasRange && other)
	}
	if ranged && open {
		return ddberr.Validation(MsgOverlap)
	}
	return nil
}

// mentionsOnly reports whether every path in e names a key attribute.
func mentionsOnly(e Expr, names ...string) bool {
	only := true
	Walk(e, func(x Expr) {
		if p, ok := x.(*Path); ok {
			in := false
			for _, n := range names {
				if len(p.Elems) > 0 && p.Elems[0].Name == n {
					in = true
				}
			}
			only = only && in
		}
	})
	return only
}

// KeyOf extracts the full primary key an UPDATE, DELETE or single-item
// SELECT names: a top-level conjunct key = value for every key attribute.
// rest are the other conjuncts, which become the write's condition.
// ok is false when some key attribute has no equality.
func KeyOf(where Expr, keys []string, params []attr.Value) (key attr.Item, rest []Expr, ok bool, err error) {
	key = attr.Item{}
	for _, c := range Conjuncts(where) {
		matched := false
		for _, k := range keys {
			if _, have := key[k]; have {
				continue
			}
			if v, isEq := Equality(c, k); isEq {
				val, err := Value(v, params)
				if err != nil {
					return nil, nil, false, err
				}
				key[k] = val
				matched = true
				break
			}
		}
		if !matched {
			rest = append(rest, c)
		}
	}
	return key, rest, len(key) == len(keys), nil
}

// And joins conditions with AND (nil for none).
func And(conds []Expr) Expr {
	var out Expr
	for _, c := range conds {
		if out == nil {
			out = c
			continue
		}
		out = &Binary{Op: "AND", L: out, R: c}
	}
	return out
}
