package partiql

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
)

// Builder renders PartiQL conditions and update actions as DynamoDB
// expression text: every attribute name becomes a #name and every value a
// :value, so that the engine's own expression parser and checker (package
// expr) read them with DynamoDB's rules and messages. Names and Values
// are the expression attribute names and values the text uses.
type Builder struct {
	Names  map[string]string
	Values map[string]attr.Value
	Params []attr.Value
	byName map[string]string
}

// NewBuilder returns a Builder for a statement with the given parameters.
func NewBuilder(params []attr.Value) *Builder {
	return &Builder{Names: map[string]string{}, Values: map[string]attr.Value{}, Params: params, byName: map[string]string{}}
}

// Name returns the #alias of an attribute name.
func (b *Builder) Name(n string) string {
	if a, ok := b.byName[n]; ok {
		return a
	}
	a := "#n" + strconv.Itoa(len(b.byName))
	b.byName[n] = a
	b.Names[a] = n
	return a
}

// Val returns a fresh :alias for v.
func (b *Builder) Val(v attr.Value) string {
	a := ":v" + strconv.Itoa(len(b.Values))
	b.Values[a] = v
	return a
}

// Path renders p with every name aliased.
func (b *Builder) Path(p *Path) string {
	var s strings.Builder
	for i, e := range p.Elems {
		switch {
		case e.IsIndex:
			s.WriteString("[" + strconv.Itoa(e.Index) + "]")
		default:
			if i > 0 {
				s.WriteByte('.')
			}
			s.WriteString(b.Name(e.Name))
		}
	}
	return s.String()
}

// conditionFunctions are the functions a PartiQL WHERE clause may call,
// lower-cased (developer guide, "Using functions with PartiQL for
// DynamoDB": https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-functions.html;
// and whereFunctions.test.ts for attribute_exists, attribute_not_exists,
// size and attribute_type in any case).
var conditionFunctions = map[string]bool{
	"attribute_exists": true, "attribute_not_exists": true, "attribute_type": true,
	"begins_with": true, "contains": true, "size": true,
}

// booleanFunctions return a truth value, so "f(x) = true" is f(x).
var booleanFunctions = map[string]bool{
	"attribute_exists": true, "attribute_not_exists": true, "attribute_type": true,
	"begins_with": true, "contains": true,
}

// Condition renders e, a WHERE condition, as a condition expression.
func (b *Builder) Condition(e Expr) (string, error) {
	switch x := e.(type) {
	case *Paren:
		inner, err := b.Condition(Unparen(x))
		return "(" + inner + ")", err
	case *Binary:
		return b.binaryCondition(x)
	case *Not:
		inner, err := b.Condition(x.X)
		if err != nil {
			return "", err
		}
		if isLogical(x.X) {
			inner = "(" + inner + ")"
		}
		return "NOT " + inner, nil
	case *Between:
		return b.between(x)
	case *In:
		return b.in(x)
	case *Is:
		return b.is(x)
	case *Call:
		return b.call(x)
	case *Literal:
		if x.Kind == LitBool {
			// A constant: attribute_type of a value always true or false
			// is not writable; compare the value with itself instead.
			v := b.Val(attr.Bool(true))
			if x.Bool {
				return v + " = " + v, nil
			}
			return v + " <> " + v, nil
		}
	}
	return "", ddberr.Validation("Unsupported operation: " + describeExpr(e) + " is not a condition")
}

func isLogical(e Expr) bool {
	bin, ok := e.(*Binary)
	return ok && (bin.Op == "AND" || bin.Op == "OR")
}

func (b *Builder) binaryCondition(x *Binary) (string, error) {
	switch x.Op {
	case "AND", "OR":
		l, err := b.Condition(x.L)
		if err != nil {
			return "", err
		}
		r, err := b.Condition(x.R)
		if err != nil {
			return "", err
		}
		if x.Op == "AND" {
			if bin, ok := x.L.(*Binary); ok && bin.Op == "OR" {
				l = "(" + l + ")"
			}
			if bin, ok := x.R.(*Binary); ok && bin.Op == "OR" {
				r = "(" + r + ")"
			}
		}
		return l + " " + x.Op + " " + r, nil
	case "=", "<>", "!=", "<", "<=", ">", ">=":
		if s, ok, err := b.boolCompare(x); ok || err != nil {
			return s, err
		}
		l, err := b.Operand(x.L)
		if err != nil {
			return "", err
		}
		r, err := b.Operand(x.R)
		if err != nil {
			return "", err
		}
		op := x.Op
		if op == "!=" {
			op = "<>"
		}
		return l + " " + op + " " + r, nil
	}
	return "", ddberr.Validation("Unsupported operation: " + x.Op + " in a condition")
}

// boolCompare renders "f(x) = true" (or false, or <>) for a function
// that returns a truth value.
func (b *Builder) boolCompare(x *Binary) (string, bool, error) {
	call, lit := asCallBool(x.L, x.R)
	if call == nil {
		call, lit = asCallBool(x.R, x.L)
	}
	if call == nil || (x.Op != "=" && x.Op != "<>" && x.Op != "!=") {
		return "", false, nil
	}
	s, err := b.call(call)
	if err != nil {
		return "", true, err
	}
	if lit.Bool == (x.Op == "=") {
		return s, true, nil
	}
	return "NOT " + s, true, nil
}

func asCallBool(a, c Expr) (*Call, *Literal) {
	call, ok := Unparen(a).(*Call)
	if !ok || !booleanFunctions[strings.ToLower(call.Name)] {
		return nil, nil
	}
	lit, ok := Unparen(c).(*Literal)
	if !ok || lit.Kind != LitBool {
		return nil, nil
	}
	return call, lit
}

func (b *Builder) between(x *Between) (string, error) {
	parts := make([]string, 3)
	for i, e := range []Expr{x.X, x.Lo, x.Hi} {
		s, err := b.Operand(e)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	s := parts[0] + " BETWEEN " + parts[1] + " AND " + parts[2]
	if x.Not {
		return "NOT (" + s + ")", nil
	}
	return s, nil
}

func (b *Builder) in(x *In) (string, error) {
	if c, ok := Unparen(x.List).(*Collection); ok && len(c.Elems) == 0 {
		// Nothing is in an empty list; the expression language has no
		// empty IN, so write the constant.
		v := b.Val(attr.Bool(true))
		if x.Not {
			return v + " = " + v, nil
		}
		return v + " <> " + v, nil
	}
	l, err := b.Operand(x.X)
	if err != nil {
		return "", err
	}
	members, err := b.inMembers(x.List)
	if err != nil {
		return "", err
	}
	if len(members) == 0 { // an empty list parameter
		return "", ddberr.Validation("Unsupported operation: IN needs at least one value")
	}
	s := l + " IN (" + strings.Join(members, ", ") + ")"
	if x.Not {
		return "NOT (" + s + ")", nil
	}
	return s, nil
}

// inMembers renders IN's list: a list or bag literal's members, or a
// list parameter's.
func (b *Builder) inMembers(list Expr) ([]string, error) {
	if c, ok := Unparen(list).(*Collection); ok && c.Kind != CollMap {
		out := make([]string, len(c.Elems))
		for i, el := range c.Elems {
			s, err := b.Operand(el)
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	}
	v, err := Value(list, b.Params)
	if err != nil {
		return nil, err
	}
	if v.Kind() != attr.L {
		return nil, ddberr.Validation("Unsupported operation: IN requires a list; operand type: " + v.Kind().String())
	}
	out := make([]string, len(v.ListValue()))
	for i, m := range v.ListValue() {
		out[i] = b.Val(m)
	}
	return out, nil
}

// isTypes maps an IS type name to the DynamoDB types it tests for.
var isTypes = map[string][]string{
	"NULL": {"NULL"}, "BOOL": {"BOOL"}, "BOOLEAN": {"BOOL"},
	"STRING": {"S"}, "CHAR": {"S"}, "CHARACTER": {"S"}, "VARCHAR": {"S"}, "CHARACTER VARYING": {"S"}, "SYMBOL": {"S"}, "CLOB": {"S"},
	"BLOB": {"B"}, "LIST": {"L"}, "SEXP": {"L"}, "STRUCT": {"M"}, "TUPLE": {"M"}, "BAG": {"SS", "NS", "BS"},
	"SMALLINT": {"N"}, "INT2": {"N"}, "INTEGER2": {"N"}, "INT": {"N"}, "INTEGER": {"N"}, "INT4": {"N"},
	"INTEGER4": {"N"}, "INT8": {"N"}, "INTEGER8": {"N"}, "BIGINT": {"N"}, "REAL": {"N"}, "FLOAT": {"N"},
	"DOUBLE PRECISION": {"N"}, "DECIMAL": {"N"}, "DEC": {"N"}, "NUMERIC": {"N"},
}

// is renders X IS [NOT] type: IS MISSING as attribute_not_exists, a type
// as attribute_type (whereFunctions.test.ts: IS NULL, IS NOT NULL and IS
// with a type name run as filters).
func (b *Builder) is(x *Is) (string, error) {
	p, ok := Unparen(x.X).(*Path)
	if !ok {
		return "", ddberr.Validation("Unsupported operation: IsType")
	}
	path := b.Path(p)
	var s string
	switch {
	case x.Type == "MISSING":
		s = "attribute_not_exists(" + path + ")"
	case isTypes[x.Type] != nil:
		var parts []string
		for _, t := range isTypes[x.Type] {
			parts = append(parts, "attribute_type("+path+", "+b.Val(attr.Str(t))+")")
		}
		s = strings.Join(parts, " OR ")
		if len(parts) > 1 {
			s = "(" + s + ")"
		}
	default:
		return "", ddberr.Validation("Unsupported operation: IsType")
	}
	if x.Not {
		return "NOT " + s, nil
	}
	return s, nil
}

// call renders a condition function call.
func (b *Builder) call(c *Call) (string, error) {
	name := strings.ToLower(c.Name)
	if !conditionFunctions[name] {
		return "", ddberr.Validation("Unrecognized function: " + name + " at " + c.At.String())
	}
	if len(c.Args) == 0 {
		// The expression language cannot write an empty call; DynamoDB
		// counts its operands (partiqlFunctions.test.ts).
		return "", ddberr.Validation("Incorrect number of operands for operator or function; operator or function: " + name + ", number of operands: 0")
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		s, err := b.Operand(a)
		if err != nil {
			return "", err
		}
		args[i] = s
	}
	return name + "(" + strings.Join(args, ", ") + ")", nil
}

// Operand renders a comparison operand: a path, a value, or size().
func (b *Builder) Operand(e Expr) (string, error) {
	switch x := e.(type) {
	case *Paren:
		return b.Operand(x.X)
	case *Path:
		return b.Path(x), nil
	case *Call:
		return b.call(x)
	case *Literal, *Param, *Collection:
		v, err := Value(x, b.Params)
		if err != nil {
			return "", err
		}
		return b.Val(v), nil
	}
	return "", ddberr.Validation("Unsupported operation: " + describeExpr(e) + " as an operand")
}

// StripKind removes the "Invalid <kind>: " prefix package expr puts on
// its messages (and the "1 validation error detected: " that UpdateItem's
// validation puts before it): PartiQL reports the same problems without
// them, as partiqlFunctions.test.ts shows for the update checker's.
func StripKind(err error, kind expr.Kind) error {
	e, ok := ddberr.As(err)
	if !ok {
		return err
	}
	msg := strings.TrimPrefix(e.Message, "1 validation error detected: ")
	if rest, ok := strings.CutPrefix(msg, "Invalid "+string(kind)+": "); ok {
		return ddberr.Validation(rest)
	}
	return err
}

// placeholderRE finds the #nN and :vN placeholders a Builder writes.
var placeholderRE = regexp.MustCompile(`#n[0-9]+|:v[0-9]+`)

// Restore words an error of the expression a statement was translated
// into as the statement's: the "1 validation error detected: " and
// "ExpressionAttributeValues contains invalid value: " of the request's
// validation and the " for key :vN" they end with go (a PartiQL statement
// has no ExpressionAttributeValues: partiqlParameterNumbers.test.ts pins
// a too-deep value's refusal as the bare "Nesting Levels have exceeded
// supported limits: ..."), and each #nN placeholder the message quotes
// is written back as the attribute name it stands for (names: the
// Builder's Names), each :vN as the ? or literal it came from, written ?.
func Restore(err error, names map[string]string) error {
	e, ok := ddberr.As(err)
	if !ok {
		return err
	}
	msg := strings.TrimPrefix(e.Message, "1 validation error detected: ")
	if rest, ok := strings.CutPrefix(msg, "ExpressionAttributeValues contains invalid value: "); ok {
		msg = valueKeyRE.ReplaceAllString(rest, "")
	}
	msg = placeholderRE.ReplaceAllStringFunc(msg, func(p string) string {
		if p[0] == ':' {
			return "?"
		}
		if n, ok := names[p]; ok {
			return n
		}
		return p
	})
	if msg == e.Message {
		return err
	}
	out := ddberr.New(e.Code, msg)
	out.Item, out.CancellationReasons = e.Item, e.CancellationReasons
	return out
}

// valueKeyRE is the " for key :vN" an ExpressionAttributeValues refusal
// ends with.
var valueKeyRE = regexp.MustCompile(` for key :v[0-9]+$`)
