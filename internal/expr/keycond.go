package expr

import (
	"github.com/dynago/dynago/internal/attr"
)

// KeyOp is the operator of one key condition.
type KeyOp uint8

// Key condition operators (Query's KeyConditionExpression, and the legacy
// KeyConditions ComparisonOperators EQ, LT, LE, GT, GE, BETWEEN,
// BEGINS_WITH).
const (
	KeyEQ KeyOp = iota
	KeyLT
	KeyLE
	KeyGT
	KeyGE
	KeyBetween
	KeyBeginsWith
)

// KeyCond is a condition on one key attribute.
type KeyCond struct {
	// Name is the key attribute's name.
	Name string
	Op   KeyOp
	// Values holds one operand, or two for KeyBetween.
	Values []attr.Value
}

// ParseKeyCondition parses and checks a KeyConditionExpression and splits
// it into per-attribute conditions, in the order written. It enforces the
// shape DynamoDB allows — conditions joined by AND, each comparing one
// top-level attribute with =, <, <=, >, >=, BETWEEN or begins_with — but
// not the table's key schema, which the caller checks.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html
func (c *Context) ParseKeyCondition(src string) ([]KeyCond, error) {
	e, err := c.ParseCondition(KeyConditionExpression, src)
	if err != nil {
		return nil, err
	}
	var conds []KeyCond
	if msg := splitKeyConditions(e, &conds); msg != "" {
		return nil, invalid(KeyConditionExpression, msg)
	}
	return conds, nil
}

var flipped = map[Op]KeyOp{OpEq: KeyEQ, OpLt: KeyGT, OpLe: KeyGE, OpGt: KeyLT, OpGe: KeyLE}
var straight = map[Op]KeyOp{OpEq: KeyEQ, OpLt: KeyLT, OpLe: KeyLE, OpGt: KeyGT, OpGe: KeyGE}

func splitKeyConditions(e Expr, out *[]KeyCond) string {
	switch x := Unparen(e).(type) {
	case *Logical:
		if x.Or {
			return "Invalid operator used in KeyConditionExpression: OR"
		}
		if msg := splitKeyConditions(x.L, out); msg != "" {
			return msg
		}
		return splitKeyConditions(x.R, out)
	case *Not:
		return "Invalid operator used in KeyConditionExpression: NOT"
	case *In:
		return "Invalid operator used in KeyConditionExpression: IN"
	case *Compare:
		if x.Op == OpNe {
			return "Invalid operator used in KeyConditionExpression: <>"
		}
		if hasCall(x.L) || hasCall(x.R) {
			return "KeyConditionExpressions cannot contain nested operations"
		}
		lp, lok := Unparen(x.L).(*Path)
		rp, rok := Unparen(x.R).(*Path)
		var path *Path
		var val Expr
		op := straight[x.Op]
		switch {
		case lok && rok:
			return "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
		case lok:
			path, val = lp, x.R
		case rok:
			path, val = rp, x.L
			op = flipped[x.Op]
		default:
			return "Invalid condition in KeyConditionExpression: No key attribute specified"
		}
		return addKeyCond(out, path, op, val)
	case *Between:
		if hasCall(x.X) || hasCall(x.Lo) || hasCall(x.Hi) {
			return "KeyConditionExpressions cannot contain nested operations"
		}
		path, ok := Unparen(x.X).(*Path)
		if !ok {
			return "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand"
		}
		for _, b := range []Expr{x.Lo, x.Hi} {
			if _, isPath := Unparen(b).(*Path); isPath {
				return "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
			}
		}
		return addKeyCond(out, path, KeyBetween, x.Lo, x.Hi)
	case *Call:
		switch x.Name {
		case "begins_with":
			path, ok := Unparen(x.Args[0]).(*Path)
			if !ok {
				return "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand"
			}
			if _, isPath := Unparen(x.Args[1]).(*Path); isPath {
				return "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
			}
			if hasCall(x.Args[1]) {
				return "KeyConditionExpressions cannot contain nested operations"
			}
			return addKeyCond(out, path, KeyBeginsWith, x.Args[1])
		case "size":
			return "KeyConditionExpressions cannot contain nested operations"
		default:
			return "Invalid operator used in KeyConditionExpression: " + x.Name
		}
	}
	return "Invalid condition in KeyConditionExpression: No key attribute specified"
}

func hasCall(e Expr) bool {
	_, ok := Unparen(e).(*Call)
	return ok
}

func addKeyCond(out *[]KeyCond, path *Path, op KeyOp, vals ...Expr) string {
	if len(path.Elems) != 1 {
		return "KeyConditionExpressions cannot have conditions on nested attributes"
	}
	name := path.Elems[0].Name
	for _, c := range *out {
		if c.Name == name {
			return "KeyConditionExpressions must only contain one condition per key"
		}
	}
	kc := KeyCond{Name: name, Op: op}
	for _, v := range vals {
		ref, ok := Unparen(v).(*ValueRef)
		if !ok {
			return "Invalid condition in KeyConditionExpression: No key attribute specified"
		}
		kc.Values = append(kc.Values, ref.Value)
	}
	*out = append(*out, kc)
	return ""
}
