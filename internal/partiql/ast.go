// Package partiql is DynamoDB's dialect of PartiQL: a hand-written lexer
// and recursive-descent parser (in the style of package expr) for the
// statements ExecuteStatement, BatchExecuteStatement and
// ExecuteTransaction run, a sealed AST whose String form parses back to
// the same text, and the translation of a statement's WHERE clause, SET
// and REMOVE clauses and item literals into the expression language and
// attribute values the engine's operations take (plan.go).
//
// Grammar (developer guide, "PartiQL select/insert/update/delete
// statements for DynamoDB"; keywords in any case):
//
//	statement = ( select | insert | update | delete | fromUpdate | exists | expr ) [ ";" ]
//	select    = SELECT projection FROM target [ WHERE expr ] [ ORDER BY orderKey { "," orderKey } ]
//	orderKey  = path [ ASC | DESC ]
//	insert    = INSERT INTO target VALUE expr
//	update    = UPDATE target action { action } WHERE expr [ returning ]
//	fromUpdate = FROM target WHERE expr action { action } [ returning ]
//	delete    = DELETE FROM target WHERE expr [ returning ]
//	exists    = EXISTS "(" select ")"
//	target    = name [ "." name ]
//	action    = SET path "=" expr { "," path "=" expr } | REMOVE path { "," path }
//	returning = RETURNING ( ALL | MODIFIED ) ( OLD | NEW ) "*"
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.html
// and the statement pages under it; the error texts are DynamoDB's, as the
// conformance suite's tests/tier3/error-messages/partiql*.test.ts captured
// them from real DynamoDB.
package partiql

import (
	"strconv"
	"strings"
)

// Statement is a parsed PartiQL statement. The set of statement types is
// closed: *Select, *Insert, *Update, *Delete, *Exists, *ExprStatement.
type Statement interface {
	// String renders the statement as PartiQL that parses back to a
	// statement with the same String.
	String() string
	stmtNode()
}

// Target is the table (and index) a statement reads or writes.
type Target struct {
	Table string
	Index string // "" for the table itself
	// Indexed says an index was written ("T"."I"), so that "T"."" names
	// an index, one no table has, rather than the table.
	Indexed bool
}

// String implements fmt.Stringer.
func (t Target) String() string {
	s := quoteIdent(t.Table)
	if t.Indexed {
		s += "." + quoteIdent(t.Index)
	}
	return s
}

// Select is SELECT ... FROM ... [WHERE ...] [ORDER BY ...].
type Select struct {
	// Projection is nil for SELECT *.
	Projection []Expr
	From       Target
	Where      Expr // nil without WHERE
	// OrderBy are the ORDER BY keys in the order written (nil without
	// ORDER BY).
	OrderBy []OrderKey
}

// OrderKey is one key of ORDER BY: a path, descending or not.
type OrderKey struct {
	Path *Path
	Desc bool
}

// Insert is INSERT INTO ... VALUE ....
type Insert struct {
	Into  Target
	Value Expr
}

// ActionKind is SET or REMOVE.
type ActionKind uint8

// Update actions.
const (
	ActionSet ActionKind = iota
	ActionRemove
)

// Action is one SET path = value or REMOVE path of an UPDATE.
type Action struct {
	Kind  ActionKind
	Path  *Path
	Value Expr // nil for REMOVE
}

// Update is UPDATE ... SET/REMOVE ... WHERE ... [RETURNING ...], or the
// FROM-first form FROM ... WHERE ... SET/REMOVE ... [RETURNING ...].
type Update struct {
	Table     Target
	Actions   []Action
	Where     Expr
	Returning Returning
	FromFirst bool
}

// Delete is DELETE FROM ... WHERE ... [RETURNING ALL OLD *].
type Delete struct {
	From      Target
	Where     Expr
	Returning Returning
}

// Exists is EXISTS(SELECT ...), a condition check in ExecuteTransaction.
type Exists struct {
	Select *Select
}

// ExprStatement is a statement that is only an expression; DynamoDB
// parses it and refuses to run it.
type ExprStatement struct {
	X Expr
}

// Returning is a RETURNING clause: "" when absent, else one of
// "ALL OLD", "MODIFIED OLD", "ALL NEW", "MODIFIED NEW".
type Returning string

func (*Select) stmtNode()        {}
func (*Insert) stmtNode()        {}
func (*Update) stmtNode()        {}
func (*Delete) stmtNode()        {}
func (*Exists) stmtNode()        {}
func (*ExprStatement) stmtNode() {}

// String implements Statement.
func (s *Select) String() string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if s.Projection == nil {
		b.WriteString("*")
	} else {
		b.WriteString(joinExprs(s.Projection))
	}
	b.WriteString(" FROM ")
	b.WriteString(s.From.String())
	if s.Where != nil {
		b.WriteString(" WHERE ")
		b.WriteString(s.Where.String())
	}
	for i, k := range s.OrderBy {
		if i == 0 {
			b.WriteString(" ORDER BY ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(k.Path.String())
		if k.Desc {
			b.WriteString(" DESC")
		}
	}
	return b.String()
}

// String implements Statement.
func (s *Insert) String() string {
	return "INSERT INTO " + s.Into.String() + " VALUE " + s.Value.String()
}

// String implements Statement.
func (s *Update) String() string {
	var b strings.Builder
	if s.FromFirst {
		b.WriteString("FROM " + s.Table.String())
		if s.Where != nil {
			b.WriteString(" WHERE " + s.Where.String())
		}
	} else {
		b.WriteString("UPDATE " + s.Table.String())
	}
	for _, a := range s.Actions {
		if a.Kind == ActionRemove {
			b.WriteString(" REMOVE " + a.Path.String())
		} else {
			b.WriteString(" SET " + a.Path.String() + " = " + a.Value.String())
		}
	}
	if !s.FromFirst {
		b.WriteString(" WHERE " + s.Where.String())
	}
	b.WriteString(s.Returning.suffix())
	return b.String()
}

// String implements Statement.
func (s *Delete) String() string {
	return "DELETE FROM " + s.From.String() + " WHERE " + s.Where.String() + s.Returning.suffix()
}

// String implements Statement.
func (s *Exists) String() string { return "EXISTS(" + s.Select.String() + ")" }

// String implements Statement.
func (s *ExprStatement) String() string { return s.X.String() }

func (r Returning) suffix() string {
	if r == "" {
		return ""
	}
	return " RETURNING " + string(r) + " *"
}

// Expr is a node of a PartiQL expression. The set of node types is
// closed: *Path, *Literal, *Param, *Collection, *Call, *Binary, *Not,
// *Neg, *Paren, *Between, *In, *Is.
type Expr interface {
	// String renders the node as PartiQL text.
	String() string
	// Pos is the node's first token's position.
	Pos() Pos
	exprNode()
}

// Pos is a token's position as DynamoDB reports it: line and column
// (characters, from 1) and the token's length in characters.
type Pos struct {
	Line, Col, Len int
}

// String renders the position as DynamoDB does: "1:15:3".
func (p Pos) String() string {
	return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col) + ":" + strconv.Itoa(p.Len)
}

// Elem is one element of a path: a name (Quoted when written "like this")
// or a list index.
type Elem struct {
	Name    string
	Quoted  bool
	Index   int
	IsIndex bool
}

// Path is a document path: a.b[2]."c d".
type Path struct {
	Elems []Elem
	At    Pos
}

// LitKind is a literal's type.
type LitKind uint8

// Literal kinds.
const (
	LitString LitKind = iota
	LitNumber
	LitBool
	LitNull
	LitMissing
)

// Literal is 'text', a number, TRUE, FALSE, NULL or MISSING. Text is the
// string's value or the number as written.
type Literal struct {
	Kind LitKind
	Text string
	Bool bool
	At   Pos
}

// Param is a ? placeholder; N counts them from 0 in statement order.
type Param struct {
	N  int
	At Pos
}

// CollKind is a collection literal's kind.
type CollKind uint8

// Collection kinds.
const (
	CollList CollKind = iota // [a, b]
	CollBag                  // <<a, b>>, a DynamoDB set
	CollMap                  // {'k': v}
)

// Collection is a list, bag (set) or map literal. For a map, Keys holds
// each member's key expression (a string literal) beside Elems.
type Collection struct {
	Kind  CollKind
	Keys  []Expr
	Elems []Expr
	At    Pos
}

// Call is a function call.
type Call struct {
	Name string
	Args []Expr
	At   Pos
}

// Binary is L op R for a comparison (= <> != < <= > >=), AND, OR, or
// arithmetic (+ -).
type Binary struct {
	Op   string
	L, R Expr
	At   Pos // the operator's position
}

// Not is NOT X.
type Not struct {
	X  Expr
	At Pos
}

// Neg is -X.
type Neg struct {
	X  Expr
	At Pos
}

// Paren is (X).
type Paren struct {
	X  Expr
	At Pos
}

// Between is X [NOT] BETWEEN Lo AND Hi.
type Between struct {
	X, Lo, Hi Expr
	Not       bool
}

// In is X [NOT] IN list, the list a collection or a parameter.
type In struct {
	X    Expr
	List Expr
	Not  bool
}

// Is is X IS [NOT] type, type a PartiQL type name (upper case, e.g.
// "NULL", "MISSING", "DOUBLE PRECISION").
type Is struct {
	X    Expr
	Not  bool
	Type string
}

func (*Path) exprNode()       {}
func (*Literal) exprNode()    {}
func (*Param) exprNode()      {}
func (*Collection) exprNode() {}
func (*Call) exprNode()       {}
func (*Binary) exprNode()     {}
func (*Not) exprNode()        {}
func (*Neg) exprNode()        {}
func (*Paren) exprNode()      {}
func (*Between) exprNode()    {}
func (*In) exprNode()         {}
func (*Is) exprNode()         {}

// Pos implements Expr.
func (p *Path) Pos() Pos { return p.At }

// Pos implements Expr.
func (l *Literal) Pos() Pos { return l.At }

// Pos implements Expr.
func (p *Param) Pos() Pos { return p.At }

// Pos implements Expr.
func (c *Collection) Pos() Pos { return c.At }

// Pos implements Expr.
func (c *Call) Pos() Pos { return c.At }

// Pos implements Expr.
func (b *Binary) Pos() Pos { return b.L.Pos() }

// Pos implements Expr.
func (n *Not) Pos() Pos { return n.At }

// Pos implements Expr.
func (n *Neg) Pos() Pos { return n.At }

// Pos implements Expr.
func (p *Paren) Pos() Pos { return p.At }

// Pos implements Expr.
func (b *Between) Pos() Pos { return b.X.Pos() }

// Pos implements Expr.
func (in *In) Pos() Pos { return in.X.Pos() }

// Pos implements Expr.
func (is *Is) Pos() Pos { return is.X.Pos() }

// quoteIdent renders a name as a quoted identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// String implements Expr.
func (p *Path) String() string {
	var b strings.Builder
	for i, e := range p.Elems {
		switch {
		case e.IsIndex:
			b.WriteString("[" + strconv.Itoa(e.Index) + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			if e.Quoted {
				b.WriteString(quoteIdent(e.Name))
			} else {
				b.WriteString(e.Name)
			}
		}
	}
	return b.String()
}

// Names is the path's elements as DynamoDB names them in messages, e.g.
// "a.b[2]".
func (p *Path) Names() string {
	var b strings.Builder
	for i, e := range p.Elems {
		switch {
		case e.IsIndex:
			b.WriteString("[" + strconv.Itoa(e.Index) + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e.Name)
		}
	}
	return b.String()
}

// String implements Expr.
func (l *Literal) String() string {
	switch l.Kind {
	case LitString:
		return "'" + strings.ReplaceAll(l.Text, "'", "''") + "'"
	case LitNumber:
		return l.Text
	case LitBool:
		if l.Bool {
			return "TRUE"
		}
		return "FALSE"
	case LitNull:
		return "NULL"
	}
	return "MISSING"
}

// String implements Expr.
func (*Param) String() string { return "?" }

// String implements Expr.
func (c *Collection) String() string {
	switch c.Kind {
	case CollBag:
		return "<<" + joinExprs(c.Elems) + ">>"
	case CollMap:
		parts := make([]string, len(c.Elems))
		for i := range c.Elems {
			parts[i] = c.Keys[i].String() + ": " + c.Elems[i].String()
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "[" + joinExprs(c.Elems) + "]"
}

// String implements Expr.
func (c *Call) String() string { return c.Name + "(" + joinExprs(c.Args) + ")" }

// String implements Expr.
func (b *Binary) String() string { return b.L.String() + " " + b.Op + " " + b.R.String() }

// String implements Expr.
func (n *Not) String() string { return "NOT " + n.X.String() }

// String implements Expr.
func (n *Neg) String() string {
	x := n.X.String()
	if strings.HasPrefix(x, "-") {
		return "- " + x // "--" would begin a comment
	}
	return "-" + x
}

// String implements Expr.
func (p *Paren) String() string { return "(" + p.X.String() + ")" }

// String implements Expr.
func (b *Between) String() string {
	return b.X.String() + not(b.Not) + " BETWEEN " + b.Lo.String() + " AND " + b.Hi.String()
}

// String implements Expr.
func (in *In) String() string { return in.X.String() + not(in.Not) + " IN " + in.List.String() }

// String implements Expr.
func (is *Is) String() string {
	s := is.X.String() + " IS "
	if is.Not {
		s += "NOT "
	}
	return s + is.Type
}

func not(b bool) string {
	if b {
		return " NOT"
	}
	return ""
}

func joinExprs(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

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
