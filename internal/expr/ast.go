// Package expr is DynamoDB's expression language: one hand-written lexer
// and recursive-descent parser for condition, filter, key condition,
// projection and update expressions, a sealed AST whose String form parses
// back to the same tree, and the semantic checks DynamoDB applies (function
// names and arity, operand types, reserved words, undefined and unused
// ExpressionAttributeNames/Values), all with DynamoDB's messages.
//
// Parsing and checking are separate steps: Parse* builds the tree and
// reports syntax errors; Check resolves #names and :values from a Context
// and reports semantic errors in DynamoDB's order. Evaluation lives in
// package eval.
//
// Grammar (from the developer guide's "Condition and filter expressions",
// highest precedence last):
//
//	condition  = or
//	or         = and { OR and }
//	and        = not { AND not }
//	not        = NOT not | comparison
//	comparison = operand [ comparator operand
//	                     | BETWEEN operand AND operand
//	                     | IN "(" operand { "," operand } ")" ]
//	operand    = "(" condition ")" | function | path | :value
//	function   = identifier "(" operand { "," operand } ")"
//	path       = element { "." element | "[" digits "]" }
//	element    = identifier | #name
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html
package expr

import (
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/attr"
)

// Expr is a node of a parsed expression. The set of node types is closed:
// *Path, *ValueRef, *Call, *Compare, *Between, *In, *Logical, *Not, *Paren
// (and *Arith in update expressions).
type Expr interface {
	// String renders the node as expression text that parses back to an
	// equal tree.
	String() string
	exprNode()
}

// Elem is one element of a document path: an attribute or map member name,
// or a list index.
type Elem struct {
	// Name is the resolved attribute name (after #alias substitution).
	Name string
	// Raw is the element as written: an identifier or a #alias.
	Raw string
	// Index is the list index when IsIndex is set.
	Index   int
	IsIndex bool
}

// Path is a document path such as a.b[2].#c.
type Path struct {
	Elems []Elem
}

// ValueRef is an expression attribute value such as :v.
type ValueRef struct {
	Name  string
	Value attr.Value // filled in by Check
}

// Call is a function call: attribute_exists(p), begins_with(p, :v),
// size(p), if_not_exists(p, :v), list_append(a, b), ...
type Call struct {
	Name string
	Args []Expr
}

// Op is a comparison or arithmetic operator.
type Op string

// Operators.
const (
	OpEq    Op = "="
	OpNe    Op = "<>"
	OpLt    Op = "<"
	OpLe    Op = "<="
	OpGt    Op = ">"
	OpGe    Op = ">="
	OpPlus  Op = "+"
	OpMinus Op = "-"
)

// Compare is a comparison: L op R.
type Compare struct {
	Op   Op
	L, R Expr
}

// Between is X BETWEEN Lo AND Hi.
type Between struct {
	X, Lo, Hi Expr
}

// In is X IN (List...).
type In struct {
	X    Expr
	List []Expr
}

// Logical is L AND R or L OR R.
type Logical struct {
	Or   bool
	L, R Expr
}

// Not is NOT X.
type Not struct {
	X Expr
}

// Paren is a parenthesised expression, kept so that String round-trips and
// redundant parentheses can be reported.
type Paren struct {
	X Expr
}

// Arith is L + R or L - R in an update expression's SET value.
type Arith struct {
	Op   Op
	L, R Expr
}

func (*Path) exprNode()     {}
func (*ValueRef) exprNode() {}
func (*Call) exprNode()     {}
func (*Compare) exprNode()  {}
func (*Between) exprNode()  {}
func (*In) exprNode()       {}
func (*Logical) exprNode()  {}
func (*Not) exprNode()      {}
func (*Paren) exprNode()    {}
func (*Arith) exprNode()    {}

// String implements Expr.
func (p *Path) String() string {
	var b strings.Builder
	for i, e := range p.Elems {
		switch {
		case e.IsIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.Index))
			b.WriteByte(']')
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e.Raw)
		}
	}
	return b.String()
}

// Names returns the resolved path as DynamoDB prints it in messages:
// "[a, b, [2]]".
func (p *Path) Names() string {
	parts := make([]string, len(p.Elems))
	for i, e := range p.Elems {
		if e.IsIndex {
			parts[i] = "[" + strconv.Itoa(e.Index) + "]"
		} else {
			parts[i] = e.Name
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// String implements Expr.
func (v *ValueRef) String() string { return v.Name }

// String implements Expr.
func (c *Call) String() string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = a.String()
	}
	return c.Name + "(" + strings.Join(args, ", ") + ")"
}

// String implements Expr.
func (c *Compare) String() string { return c.L.String() + " " + string(c.Op) + " " + c.R.String() }

// String implements Expr.
func (b *Between) String() string {
	return b.X.String() + " BETWEEN " + b.Lo.String() + " AND " + b.Hi.String()
}

// String implements Expr.
func (in *In) String() string {
	items := make([]string, len(in.List))
	for i, a := range in.List {
		items[i] = a.String()
	}
	return in.X.String() + " IN (" + strings.Join(items, ", ") + ")"
}

// String implements Expr.
func (l *Logical) String() string {
	op := " AND "
	if l.Or {
		op = " OR "
	}
	return l.L.String() + op + l.R.String()
}

// String implements Expr.
func (n *Not) String() string { return "NOT " + n.X.String() }

// String implements Expr.
func (p *Paren) String() string { return "(" + p.X.String() + ")" }

// String implements Expr.
func (a *Arith) String() string { return a.L.String() + " " + string(a.Op) + " " + a.R.String() }

// Unparen strips any parentheses around e.
func Unparen(e Expr) Expr {
	for {
		p, ok := e.(*Paren)
		if !ok {
			return e
		}
		e = p.X
	}
}

// Walk calls fn for e and every expression inside it, parents first, in
// the order they are written.
func Walk(e Expr, fn func(Expr)) {
	fn(e)
	switch x := e.(type) {
	case *Call:
		for _, a := range x.Args {
			Walk(a, fn)
		}
	case *Compare:
		Walk(x.L, fn)
		Walk(x.R, fn)
	case *Between:
		Walk(x.X, fn)
		Walk(x.Lo, fn)
		Walk(x.Hi, fn)
	case *In:
		Walk(x.X, fn)
		for _, a := range x.List {
			Walk(a, fn)
		}
	case *Logical:
		Walk(x.L, fn)
		Walk(x.R, fn)
	case *Not:
		Walk(x.X, fn)
	case *Paren:
		Walk(x.X, fn)
	case *Arith:
		Walk(x.L, fn)
		Walk(x.R, fn)
	}
}
