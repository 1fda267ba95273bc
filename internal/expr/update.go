package expr

import (
	"strings"

	"github.com/dynago/dynago/internal/attr"
)

// ActionKind is an UpdateExpression clause.
type ActionKind uint8

// Update clauses.
const (
	ActionSet ActionKind = iota
	ActionRemove
	ActionAdd
	ActionDelete
)

var actionNames = [...]string{"SET", "REMOVE", "ADD", "DELETE"}

// String returns the clause keyword.
func (k ActionKind) String() string { return actionNames[k] }

// Action is one action of an UpdateExpression: SET path = value, REMOVE
// path, ADD path :value or DELETE path :value.
type Action struct {
	Kind ActionKind
	Path *Path
	// Value is the SET value (a path, :value, function call, or + / -
	// arithmetic, possibly parenthesised) or the ADD/DELETE :value; nil
	// for REMOVE.
	Value Expr
}

// Clause is one clause of an UpdateExpression, with its actions in the
// order written.
type Clause struct {
	Kind    ActionKind
	Actions []Action
}

// Update is a parsed UpdateExpression: clauses in the order written.
//
// Grammar (developer guide, "Update expressions"):
//
//	update  = clause { clause }
//	clause  = SET set { "," set } | REMOVE path { "," path }
//	        | ADD path :value { "," path :value } | DELETE path :value { "," path :value }
//	set     = path "=" value
//	value   = "(" value ")" | operand [ ("+" | "-") operand ]
//	operand = "(" operand ")" | function | :value | path
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
type Update struct {
	Clauses []Clause
}

// Actions returns every action in the order written.
func (u *Update) Actions() []Action {
	var out []Action
	for _, c := range u.Clauses {
		out = append(out, c.Actions...)
	}
	return out
}

// Paths returns the document paths the update writes, in the order
// written.
func (u *Update) Paths() []*Path {
	var out []*Path
	for _, a := range u.Actions() {
		out = append(out, a.Path)
	}
	return out
}

// String renders the update as expression text that parses back to an
// equal tree.
func (u *Update) String() string {
	var b strings.Builder
	for i, c := range u.Clauses {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.Kind.String())
		for j, a := range c.Actions {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteByte(' ')
			b.WriteString(a.Path.String())
			switch c.Kind {
			case ActionSet:
				b.WriteString(" = ")
				b.WriteString(a.Value.String())
			case ActionAdd, ActionDelete:
				b.WriteByte(' ')
				b.WriteString(a.Value.String())
			}
		}
	}
	return b.String()
}

// clauseKind recognises an update clause keyword.
func clauseKind(t token) (ActionKind, bool) {
	if t.kind != tIdent {
		return 0, false
	}
	for i, n := range actionNames {
		if strings.EqualFold(t.text, n) {
			return ActionKind(i), true
		}
	}
	return 0, false
}

// parseUpdateTop parses a whole UpdateExpression.
func (p *parser) parseUpdateTop() (*Update, error) {
	u := &Update{}
	for {
		kind, ok := clauseKind(p.peek())
		if !ok {
			return nil, p.errHere()
		}
		p.next()
		c := Clause{Kind: kind}
		for {
			a, err := p.parseAction(kind)
			if err != nil {
				return nil, err
			}
			c.Actions = append(c.Actions, a)
			if p.peek().kind != tComma {
				break
			}
			p.next()
		}
		u.Clauses = append(u.Clauses, c)
		if p.peek().kind == tEOF {
			return u, nil
		}
	}
}

func (p *parser) parseAction(kind ActionKind) (Action, error) {
	if _, isKeyword := clauseKind(p.peek()); isKeyword {
		return Action{}, p.errHere()
	}
	path, err := p.parsePath()
	if err != nil {
		return Action{}, err
	}
	a := Action{Kind: kind, Path: path}
	switch kind {
	case ActionSet:
		if err := p.expect(tEq); err != nil {
			return Action{}, err
		}
		if a.Value, err = p.parseSetValue(); err != nil {
			return Action{}, err
		}
	case ActionAdd, ActionDelete:
		t := p.peek()
		if t.kind != tValue {
			return Action{}, p.errHere()
		}
		p.next()
		a.Value = &ValueRef{Name: t.text}
	}
	return a, nil
}

// value = "(" value ")" | operand [ ("+" | "-") operand ]
func (p *parser) parseSetValue() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	l, err := p.parseUpdateOperand()
	if err != nil {
		return nil, err
	}
	switch p.peek().kind {
	case tPlus, tMinus:
		op := Op(p.next().text)
		r, err := p.parseUpdateOperand()
		if err != nil {
			return nil, err
		}
		return &Arith{Op: op, L: l, R: r}, nil
	}
	return l, nil
}

// operand = "(" value ")" | function | :value | path
func (p *parser) parseUpdateOperand() (Expr, error) {
	switch t := p.peek(); t.kind {
	case tLParen:
		return p.parseParen(p.parseSetValue)
	case tValue:
		p.next()
		return &ValueRef{Name: t.text}, nil
	case tIdent:
		if _, isKeyword := clauseKind(t); isKeyword {
			return nil, p.errHere()
		}
		if p.peekAt(1).kind == tLParen {
			if err := p.enter(); err != nil {
				return nil, err
			}
			defer p.leave()
			name := p.next().text
			p.next() // (
			var args []Expr
			for {
				a, err := p.parseSetValue()
				if err != nil {
					return nil, err
				}
				args = append(args, a)
				if p.peek().kind != tComma {
					break
				}
				p.next()
			}
			if err := p.expect(tRParen); err != nil {
				return nil, err
			}
			return &Call{Name: name, Args: args}, nil
		}
		return p.parsePath()
	case tName:
		return p.parsePath()
	}
	return nil, p.errHere()
}

// ParseUpdate parses and checks an UpdateExpression: syntax, clause
// repetition, functions and operand types, names and values, and
// overlapping paths, reporting the first problem in DynamoDB's order.
func (c *Context) ParseUpdate(src string) (*Update, error) {
	if c.SizeWithoutLength && len(src) > MaxExpressionSize {
		return nil, invalid(UpdateExpression, "Expression size has exceeded the maximum allowed size;")
	}
	if err := checkSource(UpdateExpression, src); err != nil {
		return nil, err
	}
	p := newParser(src)
	u, err := p.parseUpdateTop()
	if err != nil {
		return nil, invalid(UpdateExpression, err.Error())
	}
	var values []Expr
	for _, a := range u.Actions() {
		if a.Value != nil {
			values = append(values, a.Value)
		}
	}
	if msg := checkLimits(values...); msg != "" {
		return nil, invalid(UpdateExpression, msg)
	}
	uc := &updateChecker{checker: checker{ctx: c, allowUpdateFunctions: true}}
	uc.check(u)
	if msg := uc.first(); msg != "" {
		return nil, invalid(UpdateExpression, msg)
	}
	return u, nil
}

// updateChecker adds the update-specific categories to checker.
type updateChecker struct {
	checker
	section, overlap, conflict, operand, function string
}

// first returns the error DynamoDB reports for an UpdateExpression, by
// category precedence.
func (uc *updateChecker) first() string {
	undefined := ""
	if strings.HasPrefix(uc.cond, "An expression attribute") {
		undefined = uc.cond
	} else if uc.function == "" {
		uc.function = uc.cond
	}
	for _, m := range []string{uc.reserved, uc.unknownFn, uc.section, undefined, uc.overlap, uc.conflict, uc.operand, uc.function, uc.misused, uc.parens} {
		if m != "" {
			return m
		}
	}
	return ""
}

func (uc *updateChecker) check(u *Update) {
	seen := map[ActionKind]bool{}
	var paths []*Path
	for _, c := range u.Clauses {
		if seen[c.Kind] {
			set(&uc.section, `The "`+c.Kind.String()+`" section can only be used once in an update expression;`)
		}
		seen[c.Kind] = true
		for _, a := range c.Actions {
			uc.path(a.Path)
			for _, prev := range paths {
				switch msg, overlap := pathRelation(prev, a.Path); {
				case overlap:
					set(&uc.overlap, msg)
				case msg != "":
					set(&uc.conflict, msg)
				}
			}
			paths = append(paths, a.Path)
			switch a.Kind {
			case ActionSet:
				uc.setValue(a.Value)
			case ActionAdd, ActionDelete:
				ref := a.Value.(*ValueRef)
				uc.value(ref)
				if ref.Value.Kind() != attr.Invalid {
					uc.operandKind(a.Kind, ref.Value.Kind())
				}
			}
		}
	}
}

// operandKind applies ADD's and DELETE's operand types: ADD takes numbers
// and sets, DELETE sets.
func (uc *updateChecker) operandKind(kind ActionKind, k attr.Kind) {
	if k.IsSet() || (kind == ActionAdd && k == attr.N) {
		return
	}
	set(&uc.operand, "Incorrect operand type for operator or function; operator: "+kind.String()+
		", operand type: "+longTypeName(k)+", typeSet: ALLOWED_FOR_"+kind.String()+"_OPERAND")
}

// longTypeName is the type name DynamoDB uses in ADD/DELETE messages.
func longTypeName(k attr.Kind) string {
	switch k {
	case attr.S:
		return "STRING"
	case attr.N:
		return "NUMBER"
	case attr.B:
		return "BINARY"
	case attr.BOOL:
		return "BOOLEAN"
	case attr.NULL:
		return "NULL"
	case attr.L:
		return "LIST"
	case attr.M:
		return "MAP"
	}
	return k.String()
}

// setValue checks a SET value and returns its static type when known.
func (uc *updateChecker) setValue(e Expr) attr.Kind {
	switch x := e.(type) {
	case *Paren:
		return uc.setValue(x.X)
	case *Arith:
		for _, side := range []Expr{x.L, x.R} {
			t := uc.setValue(side)
			if t != attr.Invalid && t != attr.N {
				set(&uc.function, "Incorrect operand type for operator or function; operator or function: "+string(x.Op)+", operand type: "+t.String())
			}
		}
		return attr.N
	case *Call:
		if !isUpdateFunction(x.Name) {
			if _, ok := conditionFunctions[x.Name]; ok {
				set(&uc.unknownFn, "The function is not allowed in an update expression; function: "+x.Name)
			} else {
				set(&uc.unknownFn, "Invalid function name; function: "+x.Name)
			}
			for _, a := range x.Args {
				uc.setValue(a)
			}
			return attr.Invalid
		}
		if len(x.Args) != 2 {
			set(&uc.function, "Incorrect number of operands for operator or function; operator or function: "+x.Name+", number of operands: "+itoa(len(x.Args)))
			for _, a := range x.Args {
				uc.setValue(a)
			}
			return attr.Invalid
		}
		t0 := uc.setValue(x.Args[0])
		t1 := uc.setValue(x.Args[1])
		if x.Name == "if_not_exists" {
			if _, isPath := Unparen(x.Args[0]).(*Path); !isPath {
				set(&uc.function, "Operator or function requires a document path; operator or function: if_not_exists")
			}
			return t1
		}
		// list_append of list_append is refused, while list_append of
		// if_not_exists is allowed (ScyllaDB Alternator's
		// test_update_expression.py, against DynamoDB: "Invalid
		// UpdateExpression: The function is not allowed to be used this way
		// in an expression; function: list_append").
		for _, a := range x.Args {
			if inner, ok := Unparen(a).(*Call); ok && inner.Name == "list_append" {
				set(&uc.function, "The function is not allowed to be used this way in an expression; function: list_append")
			}
		}
		for _, t := range []attr.Kind{t0, t1} {
			if t != attr.Invalid && t != attr.L {
				set(&uc.function, "Incorrect operand type for operator or function; operator or function: list_append, operand type: "+t.String())
			}
		}
		return attr.L
	case *Path:
		uc.path(x)
	case *ValueRef:
		uc.value(x)
		return x.Value.Kind()
	}
	return attr.Invalid
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for n > 0 {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}
