package expr

import (
	"sort"
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
)

// Kind names an expression parameter; it prefixes error messages
// ("Invalid KeyConditionExpression: ...").
type Kind string

// Expression parameters.
const (
	ConditionExpression    Kind = "ConditionExpression"
	FilterExpression       Kind = "FilterExpression"
	KeyConditionExpression Kind = "KeyConditionExpression"
	ProjectionExpression   Kind = "ProjectionExpression"
	UpdateExpression       Kind = "UpdateExpression"
)

// MaxExpressionSize is the longest expression string DynamoDB accepts, in
// bytes as sent (aliases are not expanded).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-expression-parameters
const MaxExpressionSize = 4096

// Context holds a request's ExpressionAttributeNames and
// ExpressionAttributeValues and records which of them the request's
// expressions use. One Context serves every expression of one request.
type Context struct {
	// Names maps "#alias" to an attribute name; nil when the request has
	// none.
	Names map[string]string
	// Values maps ":value" to a validated attribute value; nil when the
	// request has none.
	Values map[string]attr.Value

	// SizeWithoutLength words an oversized UpdateExpression as
	// TransactWriteItems does: "Invalid UpdateExpression: Expression size
	// has exceeded the maximum allowed size;", with no "expression size: N"
	// (the conformance suite's validation-ordering/deepRequests.test.ts,
	// ten regions, 2026-10-09; the ConditionExpression keeps its size).
	SizeWithoutLength bool

	usedNames  map[string]bool
	usedValues map[string]bool
}

// NewContext returns a Context for the given names and values (either may
// be nil).
func NewContext(names map[string]string, values map[string]attr.Value) *Context {
	return &Context{Names: names, Values: values, usedNames: map[string]bool{}, usedValues: map[string]bool{}}
}

func invalid(kind Kind, msg string) error {
	return ddberr.Validation("Invalid " + string(kind) + ": " + msg)
}

// ParseCondition parses and checks a ConditionExpression,
// FilterExpression or KeyConditionExpression, resolving names and values
// from c. Errors are ValidationExceptions in DynamoDB's words, prefixed
// "Invalid <kind>: ".
func (c *Context) ParseCondition(kind Kind, src string) (Expr, error) {
	if err := checkSource(kind, src); err != nil {
		return nil, err
	}
	p := newParser(src)
	e, err := p.parseConditionTop()
	if err != nil {
		return nil, invalid(kind, err.Error())
	}
	if msg := checkLimits(e); msg != "" {
		return nil, invalid(kind, msg)
	}
	ck := &checker{ctx: c}
	ck.condition(e)
	if msg := ck.first(); msg != "" {
		return nil, invalid(kind, msg)
	}
	return e, nil
}

// ParseProjection parses and checks a ProjectionExpression: a list of
// document paths, none overlapping another.
func (c *Context) ParseProjection(src string) ([]*Path, error) {
	if err := checkSource(ProjectionExpression, src); err != nil {
		return nil, err
	}
	p := newParser(src)
	paths, err := p.parseProjectionTop()
	if err != nil {
		return nil, invalid(ProjectionExpression, err.Error())
	}
	ck := &checker{ctx: c}
	for _, path := range paths {
		ck.path(path)
	}
	if msg := ck.first(); msg != "" {
		return nil, invalid(ProjectionExpression, msg)
	}
	if msg := overlapping(paths); msg != "" {
		return nil, invalid(ProjectionExpression, msg)
	}
	return paths, nil
}

func checkSource(kind Kind, src string) error {
	if src == "" {
		return invalid(kind, "The expression can not be empty;")
	}
	if len(src) > MaxExpressionSize {
		return invalid(kind, "Expression size has exceeded the maximum allowed size; expression size: "+strconv.Itoa(len(src)))
	}
	return nil
}

// Expression limits.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-expression-parameters
const (
	// MaxOperators is the most operators and functions one expression may
	// hold.
	MaxOperators = 300
	// MaxInOperands is the most operands of one IN.
	MaxInOperands = 100
)

// checkLimits enforces the operator and IN-operand limits.
func checkLimits(nodes ...Expr) string {
	count := 0
	msg := ""
	var walk func(e Expr)
	walk = func(e Expr) {
		switch x := e.(type) {
		case *Paren:
			walk(x.X)
		case *Logical:
			count++
			walk(x.L)
			walk(x.R)
		case *Not:
			count++
			walk(x.X)
		case *Compare:
			count++
			walk(x.L)
			walk(x.R)
		case *Arith:
			count++
			walk(x.L)
			walk(x.R)
		case *Between:
			count++
			walk(x.X)
			walk(x.Lo)
			walk(x.Hi)
		case *In:
			count++
			if len(x.List) > MaxInOperands && msg == "" {
				msg = "The IN operator is provided with too many operands; number of operands: " + strconv.Itoa(len(x.List))
			}
			walk(x.X)
			for _, a := range x.List {
				walk(a)
			}
		case *Call:
			count++
			for _, a := range x.Args {
				walk(a)
			}
		}
	}
	for _, e := range nodes {
		walk(e)
	}
	if count > MaxOperators {
		return "The expression contains too many operators; operator count: " + strconv.Itoa(count)
	}
	return msg
}

// CheckUnused reports names or values that no expression of the request
// used, as DynamoDB does once every expression has been parsed.
func (c *Context) CheckUnused() error {
	var names, values []string
	for k := range c.Names {
		if !c.usedNames[k] {
			names = append(names, k)
		}
	}
	if len(names) > 0 {
		sort.Strings(names)
		return ddberr.Validation("Value provided in ExpressionAttributeNames unused in expressions: keys: {" + strings.Join(names, ", ") + "}")
	}
	for k := range c.Values {
		if !c.usedValues[k] {
			values = append(values, k)
		}
	}
	if len(values) > 0 {
		sort.Strings(values)
		return ddberr.Validation("Value provided in ExpressionAttributeValues unused in expressions: keys: {" + strings.Join(values, ", ") + "}")
	}
	return nil
}

// Functions of the condition language, with their operand counts.
var conditionFunctions = map[string]int{
	"attribute_exists":     1,
	"attribute_not_exists": 1,
	"attribute_type":       2,
	"begins_with":          2,
	"contains":             2,
	"size":                 1,
}

// isOperandFunction reports whether name is a function that yields a value
// rather than a condition.
func isOperandFunction(name string) bool {
	return name == "size" || name == "if_not_exists" || name == "list_append"
}

// checker walks a tree, resolving names and values and keeping the first
// error of each category; first returns the one DynamoDB reports.
type checker struct {
	ctx *Context
	// allowUpdateFunctions admits if_not_exists and list_append (SET
	// values of an UpdateExpression).
	allowUpdateFunctions bool

	parens, unknownFn, misused, reserved, cond string
}

// first returns the error DynamoDB reports, by category precedence.
func (ck *checker) first() string {
	for _, m := range []string{ck.parens, ck.unknownFn, ck.misused, ck.reserved, ck.cond} {
		if m != "" {
			return m
		}
	}
	return ""
}

func set(dst *string, msg string) {
	if *dst == "" {
		*dst = msg
	}
}

// condition checks e in condition position.
func (ck *checker) condition(e Expr) {
	switch x := e.(type) {
	case *Paren:
		if _, ok := x.X.(*Paren); ok {
			set(&ck.parens, "The expression has redundant parentheses;")
		}
		ck.condition(x.X)
	case *Logical:
		ck.condition(x.L)
		ck.condition(x.R)
	case *Not:
		ck.condition(x.X)
	case *Compare:
		lt := ck.operand(x.L)
		rt := ck.operand(x.R)
		ck.distinct(string(x.Op), x.L, x.R)
		ck.compareTypes(string(x.Op), x.Op, lt, rt)
	case *Between:
		ck.operand(x.X)
		lo := ck.operand(x.Lo)
		hi := ck.operand(x.Hi)
		ck.betweenBounds(x, lo, hi)
	case *In:
		ck.operand(x.X)
		for _, a := range x.List {
			ck.operand(a)
		}
	case *Call:
		if _, known := conditionFunctions[x.Name]; !known {
			ck.unknownFunction(x.Name)
			for _, a := range x.Args {
				ck.operand(a)
			}
			return
		}
		if isOperandFunction(x.Name) {
			set(&ck.misused, "The function is not allowed to be used this way in an expression; function: "+x.Name)
		}
		ck.call(x)
	default:
		ck.operand(e)
	}
}

func (ck *checker) unknownFunction(name string) {
	if isUpdateFunction(name) {
		if !ck.allowUpdateFunctions {
			set(&ck.unknownFn, "The function is not allowed in a condition expression; function: "+name)
		}
		return
	}
	set(&ck.unknownFn, "Invalid function name; function: "+name)
}

// isUpdateFunction reports whether name is one of the functions only an
// UpdateExpression's SET may call.
func isUpdateFunction(name string) bool { return name == "if_not_exists" || name == "list_append" }

// operand checks e in operand position and returns its static type when
// it is known (a value, or a function's result).
func (ck *checker) operand(e Expr) attr.Kind {
	switch x := e.(type) {
	case *Paren:
		if _, ok := x.X.(*Paren); ok {
			set(&ck.parens, "The expression has redundant parentheses;")
		}
		if isPlainOperand(x.X) {
			return ck.operand(x.X)
		}
		if c, ok := x.X.(*Call); ok {
			return ck.operand(c)
		}
		ck.condition(x.X)
		return attr.Invalid
	case *Path:
		ck.path(x)
	case *ValueRef:
		ck.value(x)
		return x.Value.Kind()
	case *Arith:
		ck.operand(x.L)
		ck.operand(x.R)
		return attr.N
	case *Call:
		_, known := conditionFunctions[x.Name]
		if !known && !(ck.allowUpdateFunctions && isUpdateFunction(x.Name)) {
			ck.unknownFunction(x.Name)
			for _, a := range x.Args {
				ck.operand(a)
			}
			return attr.Invalid
		}
		if !isOperandFunction(x.Name) {
			set(&ck.misused, "The function is not allowed to be used this way in an expression; function: "+x.Name)
		}
		return ck.call(x)
	default:
		ck.condition(e)
	}
	return attr.Invalid
}

// path resolves a document path's #aliases and checks reserved words.
func (ck *checker) path(p *Path) {
	for i := range p.Elems {
		el := &p.Elems[i]
		if el.IsIndex {
			continue
		}
		if strings.HasPrefix(el.Raw, "#") {
			name, ok := ck.ctx.Names[el.Raw]
			if !ok {
				set(&ck.cond, "An expression attribute name used in the document path is not defined; attribute name: "+el.Raw)
				continue
			}
			ck.ctx.usedNames[el.Raw] = true
			el.Name = name
			continue
		}
		if IsReserved(el.Raw) {
			set(&ck.reserved, "Attribute name is a reserved keyword; reserved keyword: "+el.Raw)
		}
		el.Name = el.Raw
	}
}

func (ck *checker) value(v *ValueRef) {
	val, ok := ck.ctx.Values[v.Name]
	if !ok {
		set(&ck.cond, "An expression attribute value used in expression is not defined; attribute value: "+v.Name)
		return
	}
	ck.ctx.usedValues[v.Name] = true
	v.Value = val
}

// call checks a function's operands and returns its result type.
func (ck *checker) call(c *Call) attr.Kind {
	types := make([]attr.Kind, len(c.Args))
	for i, a := range c.Args {
		types[i] = ck.operand(a)
	}
	want, ok := conditionFunctions[c.Name]
	switch c.Name {
	case "if_not_exists", "list_append":
		want, ok = 2, true
	}
	if ok && len(c.Args) != want {
		set(&ck.cond, "Incorrect number of operands for operator or function; operator or function: "+c.Name+", number of operands: "+strconv.Itoa(len(c.Args)))
		return attr.Invalid
	}
	if len(c.Args) == 2 {
		ck.distinct(c.Name, c.Args[0], c.Args[1])
	}
	switch c.Name {
	case "attribute_exists", "attribute_not_exists":
		if _, isPath := Unparen(c.Args[0]).(*Path); !isPath {
			set(&ck.cond, "Operator or function requires a document path; operator or function: "+c.Name)
		}
		return attr.BOOL
	case "begins_with":
		for _, t := range types {
			if t != attr.Invalid && t != attr.S && t != attr.B {
				ck.operandType(c.Name, t)
			}
		}
		return attr.BOOL
	case "attribute_type":
		t := types[1]
		if t != attr.S {
			if t == attr.Invalid {
				set(&ck.cond, "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}")
			} else {
				ck.operandType(c.Name, t)
			}
			return attr.BOOL
		}
		if v, ok := Unparen(c.Args[1]).(*ValueRef); ok && v.Value.Kind() == attr.S {
			if attr.KindFromString(v.Value.Text()) == attr.Invalid {
				set(&ck.cond, "Invalid attribute type name found; type: "+v.Value.Text()+", valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}")
			}
		}
		return attr.BOOL
	case "contains":
		return attr.BOOL
	case "size":
		if t := types[0]; t == attr.N || t == attr.BOOL || t == attr.NULL {
			ck.operandType(c.Name, t)
		}
		return attr.N
	case "list_append":
		for _, t := range types {
			if t != attr.Invalid && t != attr.L {
				ck.operandType(c.Name, t)
			}
		}
		return attr.L
	case "if_not_exists":
		if _, isPath := Unparen(c.Args[0]).(*Path); !isPath {
			set(&ck.cond, "Operator or function requires a document path; operator or function: "+c.Name)
		}
		return types[1]
	}
	return attr.Invalid
}

func (ck *checker) operandType(fn string, t attr.Kind) {
	set(&ck.cond, "Incorrect operand type for operator or function; operator or function: "+fn+", operand type: "+t.String())
}

// distinct rejects an operator whose first two operands are the same path.
func (ck *checker) distinct(op string, a, b Expr) {
	pa, ok1 := Unparen(a).(*Path)
	pb, ok2 := Unparen(b).(*Path)
	if !ok1 || !ok2 || len(pa.Elems) != len(pb.Elems) {
		return
	}
	for i := range pa.Elems {
		ea, eb := pa.Elems[i], pb.Elems[i]
		if ea.IsIndex != eb.IsIndex || ea.Index != eb.Index || ea.Name != eb.Name {
			return
		}
	}
	set(&ck.cond, "The first operand must be distinct from the remaining operands for this operator or function; operator: "+op+", first operand: "+pa.Names())
}

// compareTypes rejects ordering comparisons on values of types that have
// no order (DynamoDB orders only S, N and B).
func (ck *checker) compareTypes(opName string, op Op, l, r attr.Kind) {
	if op == OpEq || op == OpNe {
		return
	}
	for _, t := range []attr.Kind{l, r} {
		if t != attr.Invalid && !t.IsScalarKey() {
			ck.operandType(opName, t)
			return
		}
	}
}

func (ck *checker) betweenBounds(b *Between, lo, hi attr.Kind) {
	lv, ok1 := Unparen(b.Lo).(*ValueRef)
	hv, ok2 := Unparen(b.Hi).(*ValueRef)
	for _, t := range []attr.Kind{lo, hi} {
		if t != attr.Invalid && !t.IsScalarKey() {
			ck.operandType("BETWEEN", t)
			return
		}
	}
	if !ok1 || !ok2 || lo == attr.Invalid || hi == attr.Invalid {
		return
	}
	bounds := "lower bound operand: AttributeValue: {" + describe(lv.Value) + "}, upper bound operand: AttributeValue: {" + describe(hv.Value) + "}"
	if lo != hi {
		set(&ck.cond, "The BETWEEN operator requires same data type for lower and upper bounds; "+bounds)
		return
	}
	if c, ok := attr.Compare(lv.Value, hv.Value); ok && c > 0 {
		set(&ck.cond, "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "+bounds)
	}
}

// describe renders a scalar as DynamoDB does in BETWEEN messages: "S:abc".
func describe(v attr.Value) string {
	return v.Kind().String() + ":" + v.Text()
}

// overlapping reports the first pair of paths that overlap (one is a
// prefix of the other) or conflict (they diverge into a list index on one
// side and a map member on the other), as DynamoDB words it.
func overlapping(paths []*Path) string {
	for i := 0; i < len(paths); i++ {
		for j := i + 1; j < len(paths); j++ {
			if msg, _ := pathRelation(paths[i], paths[j]); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// pathRelation returns DynamoDB's message for two paths that overlap (one
// is a prefix of the other: overlap is true) or conflict (they diverge into
// a list index on one side and a map member on the other), and "" for
// paths that neither overlap nor conflict.
func pathRelation(a, b *Path) (msg string, overlap bool) {
	n := min(len(a.Elems), len(b.Elems))
	for k := 0; k < n; k++ {
		ea, eb := a.Elems[k], b.Elems[k]
		if ea.IsIndex != eb.IsIndex {
			return "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: " + a.Names() + ", path two: " + b.Names(), false
		}
		if ea.IsIndex && ea.Index != eb.Index || !ea.IsIndex && ea.Name != eb.Name {
			return "", false
		}
	}
	return "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: " + a.Names() + ", path two: " + b.Names(), true
}
