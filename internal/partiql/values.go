package partiql

import (
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
)

// Value messages, DynamoDB's words (tests/tier3/error-messages/partiqlFunctions.test.ts
// and partiqlGrammar.test.ts, real DynamoDB, October 2026).
const (
	msgEmptyBag = "Empty bags are not supported"
)

// Value converts e, an expression that denotes a value (a literal, a
// parameter, or a list, bag or map of them), into an attribute value.
// params are the statement's parameters, already checked (CheckParams).
// Numbers follow DynamoDB's number rules, and a number that breaks them is
// reported with its path inside the value ("... under root.m[1]").
func Value(e Expr, params []attr.Value) (attr.Value, error) {
	return value(e, params, "root")
}

func value(e Expr, params []attr.Value, at string) (attr.Value, error) {
	switch x := e.(type) {
	case *Paren:
		return value(x.X, params, at)
	case *Literal:
		return literalValue(x, at)
	case *Param:
		if x.N >= len(params) {
			return attr.Value{}, errParamCount
		}
		return params[x.N], nil
	case *Collection:
		return collectionValue(x, params, at)
	case *Call:
		return attr.Value{}, ddberr.Validation("Unsupported data type: " + strings.ToLower(x.Name) + " under key " + at + " at " + x.At.String())
	}
	return attr.Value{}, ddberr.Validation("Unsupported data type: " + describeExpr(e) + " under key " + at + " at " + e.Pos().String())
}

// describeExpr names an expression in a message: a path by its names,
// anything else as written (canonically).
func describeExpr(e Expr) string {
	switch x := e.(type) {
	case *Path:
		return x.Names()
	case *Literal:
		if x.Kind == LitMissing {
			return "missing"
		}
	}
	return e.String()
}

func literalValue(l *Literal, at string) (attr.Value, error) {
	switch l.Kind {
	case LitString:
		return attr.Str(l.Text), nil
	case LitNumber:
		n, err := attr.ParseNumber(l.Text)
		if err != nil {
			if e, ok := ddberr.As(err); ok {
				return attr.Value{}, ddberr.Validation(e.Message + " under " + at)
			}
			return attr.Value{}, err
		}
		return attr.Num(n), nil
	case LitBool:
		return attr.Bool(l.Bool), nil
	case LitNull:
		return attr.Null(), nil
	}
	return attr.Value{}, ddberr.Validation("Unsupported data type: missing under key " + at + " at " + l.At.String())
}

func collectionValue(c *Collection, params []attr.Value, at string) (attr.Value, error) {
	switch c.Kind {
	case CollList:
		out := make([]attr.Value, len(c.Elems))
		for i, el := range c.Elems {
			v, err := value(el, params, at+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return attr.Value{}, err
			}
			out[i] = v
		}
		return attr.List(out), nil
	case CollMap:
		out := make(map[string]attr.Value, len(c.Elems))
		for i, el := range c.Elems {
			k, err := value(c.Keys[i], params, at)
			if err != nil {
				return attr.Value{}, err
			}
			if k.Kind() != attr.S {
				return attr.Value{}, ddberr.Validation("Unsupported data type: map key under key " + at + " at " + c.Keys[i].Pos().String())
			}
			v, err := value(el, params, at+"."+k.Text())
			if err != nil {
				return attr.Value{}, err
			}
			out[k.Text()] = v
		}
		return attr.Map(out), nil
	}
	return bagValue(c, params, at)
}

// bagValue converts <<...>> into a string, number or binary set.
func bagValue(c *Collection, params []attr.Value, at string) (attr.Value, error) {
	if len(c.Elems) == 0 {
		return attr.Value{}, ddberr.Validation(msgEmptyBag)
	}
	kind := attr.Invalid
	members := make([]string, 0, len(c.Elems))
	shown := make([]string, 0, len(c.Elems))
	for _, el := range c.Elems {
		v, err := value(el, params, at)
		if err != nil {
			return attr.Value{}, err
		}
		var k attr.Kind
		switch v.Kind() {
		case attr.S:
			k = attr.SS
		case attr.N:
			k = attr.NS
		case attr.B:
			k = attr.BS
		default:
			return attr.Value{}, ddberr.Validation("Unsupported data type: set member of type " + v.Kind().String() + " under key " + at + " at " + el.Pos().String())
		}
		if kind != attr.Invalid && k != kind {
			return attr.Value{}, ddberr.Validation("One or more parameter values were invalid: Input collection contains mixed types")
		}
		kind = k
		members = append(members, v.Text())
		shown = append(shown, v.Text())
	}
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		key := m
		if kind == attr.NS {
			key = canonicalNumber(m)
		}
		if seen[key] {
			return attr.Value{}, ddberr.Validation("One or more parameter values were invalid: Input collection [" + strings.Join(shown, ", ") + "] contains duplicates.")
		}
		seen[key] = true
	}
	return attr.Set(kind, members), nil
}

func canonicalNumber(s string) string {
	if n, err := attr.ParseNumber(s); err == nil {
		return n
	}
	return s
}

// errParamCount is the answer to a statement with more ? placeholders
// than Parameters. The wording, and the rule that more Parameters than
// placeholders are accepted, are DynamoDB Local's (which shares
// DynamoDB's PartiQL front end), as a public driver's documentation
// recorded them on each of its releases ("Too few values fail with
// `Number of parameters in request and statement don't match.` Too many
// values are accepted with no error"); no capture of DynamoDB itself
// pins them.
var errParamCount = ddberr.Validation("Number of parameters in request and statement don't match.")

// CheckParamCount checks that st has no more placeholders than the n
// parameters sent.
func CheckParamCount(st Statement, n int) error {
	if ParamCount(st) > n {
		return errParamCount
	}
	return nil
}

// Parameter messages, DynamoDB's words (partiqlParameterNumbers.test.ts,
// real DynamoDB, October 2026).
const (
	msgNotNumeric = "The parameter cannot be converted to a numeric value"
	msgNesting    = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
)

// CheckParams checks a statement's Parameters as DynamoDB reads them and
// returns them with numbers in canonical form. A number is read as Java's
// BigDecimal reads a string: one whose exponent or scale does not fit a
// 32-bit integer "cannot be converted", and the magnitude check then works
// as attr.OlderLayer's does (1e2147483647 is an underflow). A value nested
// too deeply and an unconvertible number are reported in document order,
// whichever comes first (map members in key order: attr.Value keeps no
// member order).
func CheckParams(params []attr.Value) ([]attr.Value, error) {
	out := make([]attr.Value, len(params))
	for i, p := range params {
		if err := checkParam(p, 1); err != nil {
			return nil, err
		}
		v, err := attr.ValidateIn(p, attr.OlderLayer)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func checkParam(v attr.Value, level int) error {
	switch v.Kind() {
	case attr.N:
		return checkParamNumber(v.Text())
	case attr.NS:
		for _, m := range v.Members() {
			if err := checkParamNumber(m); err != nil {
				return err
			}
		}
	case attr.L:
		if level >= attr.MaxDepth {
			return ddberr.Validation(msgNesting)
		}
		for _, el := range v.ListValue() {
			if err := checkParam(el, level+1); err != nil {
				return err
			}
		}
	case attr.M:
		if level >= attr.MaxDepth {
			return ddberr.Validation(msgNesting)
		}
		m := attr.Item(v.MapValue())
		for _, k := range m.SortedNames() {
			if err := checkParam(m[k], level+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkParamNumber(s string) error {
	if s == "" {
		return ddberr.Validation(msgNotNumeric)
	}
	body := s
	if body[0] == '+' || body[0] == '-' {
		body = body[1:]
	}
	digits := false
	for i := 0; i < len(body) && (isDigit(body[i]) || body[i] == '.'); i++ {
		digits = digits || isDigit(body[i])
	}
	n, ok := 0, false
	if body != "" {
		n, ok = numberLen(body)
	}
	if !digits || !ok || n != len(body) {
		return ddberr.Validation(msgNotNumeric + ": " + s)
	}
	return nil
}
