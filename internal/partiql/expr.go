package partiql

import "strings"

// Expression grammar (lowest precedence first):
//
//	expr       = and { OR and }
//	and        = not { AND not }
//	not        = NOT not | predicate
//	predicate  = sum [ compareOp sum
//	                 | [NOT] BETWEEN sum AND sum
//	                 | [NOT] IN ( collection | "(" expr { "," expr } ")" | ? )
//	                 | IS [NOT] typeName ]
//	sum        = unary { ("+" | "-" | "||") unary }
//	unary      = "-" unary | primary
//	primary    = literal | ? | collection | "(" expr ")" | call | path
//	call       = name "(" [ expr { "," expr } | "*" ] ")"
//	collection = "[" [expr {"," expr}] "]" | "<<" [expr {"," expr}] ">>" | "{" [expr ":" expr {"," ...}] "}"

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxParseDepth {
		return malformed(msgTooDeep)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// atEnd reports whether the next token ends the statement.
func (p *parser) atEnd() bool {
	t := p.peek()
	return t.kind == tEOF || t.isPunct(kwStatementEnd)
}

// expr = and { OR and }
func (p *parser) parseExpr() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.peek().is("OR") {
		op := p.next()
		if p.atEnd() {
			return nil, malformed(msgMissingRHS)
		}
		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: "OR", L: l, R: r, At: posOf(op)}
	}
	return l, nil
}

// and = not { AND not }
func (p *parser) parseAnd() (Expr, error) {
	l, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for p.peek().is("AND") {
		op := p.next()
		if p.atEnd() {
			return nil, malformed(msgMissingRHS)
		}
		r, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: "AND", L: l, R: r, At: posOf(op)}
	}
	return l, nil
}

// not = NOT not | predicate
func (p *parser) parseNot() (Expr, error) {
	if p.peek().is("NOT") {
		t := p.next()
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		x, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &Not{X: x, At: posOf(t)}, nil
	}
	return p.parsePredicate()
}

var compareOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}

// predicate = sum [ compareOp sum | [NOT] BETWEEN sum AND sum | [NOT] IN list | IS [NOT] typeName ]
func (p *parser) parsePredicate() (Expr, error) {
	x, err := p.parseSum()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		negated := t.is("NOT") && (p.peekAt(1).is("BETWEEN") || p.peekAt(1).is("IN"))
		if negated {
			p.next()
			t = p.peek()
		}
		switch {
		case t.kind == tOp && compareOps[t.text]:
			p.next()
			r, err := p.parseOperandAfter()
			if err != nil {
				return nil, err
			}
			x = &Binary{Op: t.text, L: x, R: r, At: posOf(t)}
		case t.is("BETWEEN"):
			p.next()
			lo, err := p.parseOperandAfter()
			if err != nil {
				return nil, err
			}
			if !p.accept("AND") {
				return nil, malformed(msgLeftover)
			}
			hi, err := p.parseOperandAfter()
			if err != nil {
				return nil, err
			}
			x = &Between{X: x, Lo: lo, Hi: hi, Not: negated}
		case t.is("IN"):
			p.next()
			list, err := p.parseInList()
			if err != nil {
				return nil, err
			}
			x = &In{X: x, List: list, Not: negated}
		case t.is("IS"):
			p.next()
			not := p.accept("NOT")
			typ, err := p.parseTypeName()
			if err != nil {
				return nil, err
			}
			x = &Is{X: x, Not: not, Type: typ}
		default:
			return x, nil
		}
	}
}

// parseOperandAfter parses the right-hand operand of an infix operator.
func (p *parser) parseOperandAfter() (Expr, error) {
	if p.atEnd() {
		return nil, malformed(msgMissingRHS)
	}
	return p.parseSum()
}

// parseInList parses IN's right-hand side: a collection, a parameter, or
// a parenthesised list (printed back as a list).
func (p *parser) parseInList() (Expr, error) {
	if p.atEnd() {
		return nil, malformed(msgMissingRHS)
	}
	if t := p.peek(); t.isPunct("(") {
		p.next()
		elems, err := p.parseExprList(")")
		if err != nil {
			return nil, err
		}
		return &Collection{Kind: CollList, Elems: elems, At: posOf(t)}, nil
	}
	return p.parseSum()
}

// typeNames are the PartiQL type names IS accepts, by their first word;
// the value is the second word a two-word name needs ("" for none).
var typeNames = map[string]string{
	"NULL": "", "MISSING": "", "BOOL": "", "BOOLEAN": "", "SMALLINT": "", "INT2": "", "INTEGER2": "",
	"INT": "", "INTEGER": "", "INT4": "", "INTEGER4": "", "INT8": "", "INTEGER8": "", "BIGINT": "",
	"REAL": "", "FLOAT": "", "DOUBLE": "PRECISION", "DECIMAL": "", "DEC": "", "NUMERIC": "",
	"TIMESTAMP": "", "DATE": "", "TIME": "", "CHAR": "", "CHARACTER": "", "VARCHAR": "",
	"STRING": "", "SYMBOL": "", "CLOB": "", "BLOB": "", "STRUCT": "", "TUPLE": "", "LIST": "",
	"SEXP": "", "BAG": "", "ANY": "",
}

// parseTypeName reads the type after IS [NOT].
func (p *parser) parseTypeName() (string, error) {
	t := p.peek()
	if t.kind != tIdent {
		return "", malformed(msgTypeName)
	}
	up := strings.ToUpper(t.text)
	second, ok := typeNames[up]
	if !ok {
		return "", malformed(msgTypeName)
	}
	p.next()
	if up == "CHARACTER" && p.peek().is("VARYING") {
		p.next()
		return "CHARACTER VARYING", nil
	}
	if second != "" {
		if !p.accept(second) {
			return "", malformed(msgTypeName)
		}
		return up + " " + second, nil
	}
	return up, nil
}

// sum = unary { ("+" | "-" | "||") unary }
func (p *parser) parseSum() (Expr, error) {
	l, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if !t.isPunct("+") && !t.isPunct("-") && !t.isPunct("||") {
			return l, nil
		}
		p.next()
		r, err := p.parseOperandUnary()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: t.text, L: l, R: r, At: posOf(t)}
	}
}

func (p *parser) parseOperandUnary() (Expr, error) {
	if p.atEnd() {
		return nil, malformed(msgMissingRHS)
	}
	return p.parseUnary()
}

// unary = "-" unary | primary; a minus before a number literal is part of
// the literal.
func (p *parser) parseUnary() (Expr, error) {
	t := p.peek()
	if !t.isPunct("-") {
		return p.parsePrimary()
	}
	p.next()
	if n := p.peek(); n.kind == tNumber {
		p.next()
		return &Literal{Kind: LitNumber, Text: "-" + n.text, At: posOf(t)}, nil
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	x, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	return &Neg{X: x, At: posOf(t)}, nil
}

// primary = literal | ? | collection | "(" expr ")" | call | path
func (p *parser) parsePrimary() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case tEOF:
		return nil, malformed(msgTerm)
	case tString:
		p.next()
		return &Literal{Kind: LitString, Text: unquote(t.text), At: posOf(t)}, nil
	case tNumber:
		p.next()
		return &Literal{Kind: LitNumber, Text: t.text, At: posOf(t)}, nil
	case tParam:
		p.next()
		p.params++
		return &Param{N: p.params - 1, At: posOf(t)}, nil
	case tOp:
		return nil, malformed(msgOperator)
	case tQuoted:
		return p.parsePathOrCall()
	case tPunct:
		return p.parsePunctPrimary(t)
	}
	up := strings.ToUpper(t.text)
	switch up {
	case "TRUE", "FALSE":
		p.next()
		return &Literal{Kind: LitBool, Bool: up == "TRUE", At: posOf(t)}, nil
	case "NULL":
		p.next()
		return &Literal{Kind: LitNull, At: posOf(t)}, nil
	case "MISSING":
		p.next()
		return &Literal{Kind: LitMissing, At: posOf(t)}, nil
	}
	if p.peekAt(1).isPunct("(") && !structural[up] {
		return p.parseCall()
	}
	if operatorWords[up] {
		return nil, malformed(msgOperator)
	}
	if keywords[up] {
		return nil, malformed(msgKeyword)
	}
	return p.parsePathOrCall()
}

// parsePunctPrimary parses a primary that starts with punctuation: a
// parenthesised expression or a collection literal.
func (p *parser) parsePunctPrimary(t token) (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	switch t.text {
	case "(":
		p.next()
		if p.atEnd() {
			return nil, malformed(msgTerm)
		}
		x, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if !p.peek().isPunct(")") {
			return nil, malformed(msgLeftover)
		}
		p.next()
		return &Paren{X: x, At: posOf(t)}, nil
	case "[":
		p.next()
		elems, err := p.parseExprList("]")
		return &Collection{Kind: CollList, Elems: elems, At: posOf(t)}, err
	case "<<":
		p.next()
		elems, err := p.parseExprList(">>")
		return &Collection{Kind: CollBag, Elems: elems, At: posOf(t)}, err
	case "{":
		p.next()
		return p.parseMap(t)
	}
	return nil, malformed(msgTerm)
}

// parseExprList parses expressions separated by commas up to the closing
// punctuation end, which it consumes.
func (p *parser) parseExprList(end string) ([]Expr, error) {
	out := []Expr{}
	if p.peek().isPunct(end) {
		p.next()
		return out, nil
	}
	for {
		x, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		out = append(out, x)
		switch {
		case p.peek().isPunct(","):
			p.next()
		case p.peek().isPunct(end):
			p.next()
			return out, nil
		default:
			return nil, malformed(msgLeftover)
		}
	}
}

// parseMap parses a map literal's members after "{".
func (p *parser) parseMap(open token) (Expr, error) {
	c := &Collection{Kind: CollMap, At: posOf(open), Keys: []Expr{}, Elems: []Expr{}}
	if p.peek().isPunct("}") {
		p.next()
		return c, nil
	}
	for {
		k, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if !p.peek().isPunct(":") {
			return nil, malformed(msgLeftover)
		}
		p.next()
		v, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		c.Keys = append(c.Keys, k)
		c.Elems = append(c.Elems, v)
		switch {
		case p.peek().isPunct(","):
			p.next()
		case p.peek().isPunct("}"):
			p.next()
			return c, nil
		default:
			return nil, malformed(msgLeftover)
		}
	}
}

// parsePathOrCall parses a path, or a call when a bare name is followed
// by "(".
func (p *parser) parsePathOrCall() (Expr, error) {
	t := p.peek()
	if t.kind == tIdent && p.peekAt(1).isPunct("(") {
		return p.parseCall()
	}
	return p.parsePath()
}

// call = name "(" [ expr { "," expr } | "*" ] ")"
func (p *parser) parseCall() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	name := p.next()
	p.next() // (
	c := &Call{Name: name.text, At: posOf(name), Args: []Expr{}}
	if t := p.peek(); t.isPunct("*") && p.peekAt(1).isPunct(")") {
		p.next()
		p.next()
		c.Args = append(c.Args, &Path{Elems: []Elem{{Name: "*"}}, At: posOf(t)})
		return c, nil
	}
	args, err := p.parseExprList(")")
	if err != nil {
		return nil, err
	}
	c.Args = args
	return c, nil
}
