package expr

import (
	"strconv"
)

// SyntaxError is a parse failure, rendered as DynamoDB renders it:
//
//	Syntax error; token: "<tok>", near: "<text>"
//
// where near is the source from the start of the token before the
// offending one to the end of the token after it (whitespace kept; the end
// of input contributes no text).
type SyntaxError struct {
	Token string
	Near  string
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return `Syntax error; token: "` + e.Token + `", near: "` + e.Near + `"`
}

// parser is a recursive-descent parser over the token slice.
type parser struct {
	src  string
	toks []token
	pos  int
	// depth bounds recursion on hostile input (deeply nested parentheses).
	depth int
}

// maxParseDepth bounds recursion. An expression is at most MaxExpressionSize bytes
// long and each nesting level costs at least one byte, so no expression
// DynamoDB accepts reaches it; it only guards direct callers of the parser.
const maxParseDepth = 4096

func newParser(src string) *parser { return &parser{src: src, toks: lex(src)} }

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) peekAt(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.pos]
	if p.pos < len(p.toks)-1 {
		p.pos++
	}
	return t
}

// errAt returns the syntax error for the token at index i.
func (p *parser) errAt(i int) error {
	t := p.toks[i]
	start, end := t.start, t.end
	if i > 0 {
		start = p.toks[i-1].start
	}
	if i+1 < len(p.toks) && p.toks[i+1].kind != tEOF {
		end = p.toks[i+1].end
	}
	return &SyntaxError{Token: t.text, Near: p.src[start:end]}
}

// errHere is the syntax error at the current token.
func (p *parser) errHere() error { return p.errAt(p.pos) }

func (p *parser) expect(k tokKind) error {
	if p.peek().kind != k {
		return p.errHere()
	}
	p.next()
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxParseDepth {
		return p.errHere()
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// parseConditionTop parses a whole condition and requires the end of input.
func (p *parser) parseConditionTop() (Expr, error) {
	e, err := p.parseOr(false)
	if err != nil {
		return nil, err
	}
	if p.peek().kind != tEOF {
		return nil, p.errHere()
	}
	return e, nil
}

// isPlainOperand reports whether e is an operand that can never be a
// condition: a path, a value or arithmetic, possibly parenthesised.
// Function calls are conditions or operands depending on the function,
// which Check decides.
func isPlainOperand(e Expr) bool {
	switch Unparen(e).(type) {
	case *Path, *ValueRef, *Arith:
		return true
	}
	return false
}

// or = and { OR and }. allowOperand lets a parenthesised operand such as
// "(a.b)" through as a whole; elsewhere an operand that is not followed by
// a comparator is a syntax error at the token after it, as in DynamoDB.
func (p *parser) parseOr(allowOperand bool) (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	l, err := p.parseAnd(allowOperand)
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tOr {
		if isPlainOperand(l) {
			return nil, p.errHere()
		}
		p.next()
		r, err := p.parseAnd(false)
		if err != nil {
			return nil, err
		}
		l = &Logical{Or: true, L: l, R: r}
	}
	return l, nil
}

// and = not { AND not }
func (p *parser) parseAnd(allowOperand bool) (Expr, error) {
	l, err := p.parseNot(allowOperand)
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tAnd {
		if isPlainOperand(l) {
			return nil, p.errHere()
		}
		p.next()
		r, err := p.parseNot(false)
		if err != nil {
			return nil, err
		}
		l = &Logical{L: l, R: r}
	}
	return l, nil
}

// not = NOT not | comparison
func (p *parser) parseNot(allowOperand bool) (Expr, error) {
	if p.peek().kind == tNot {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		p.next()
		x, err := p.parseNot(false)
		if err != nil {
			return nil, err
		}
		return &Not{X: x}, nil
	}
	return p.parseComparison(allowOperand)
}

// comparison = operand [ comparator operand | BETWEEN operand AND operand |
// IN "(" operand { "," operand } ")" ]
func (p *parser) parseComparison(allowOperand bool) (Expr, error) {
	l, err := p.parseOperand()
	if err != nil {
		return nil, err
	}
	switch p.peek().kind {
	case tEq, tNe, tLt, tLe, tGt, tGe:
		op := Op(p.next().text)
		r, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		return &Compare{Op: op, L: l, R: r}, nil
	case tBetween:
		p.next()
		lo, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		if err := p.expect(tAnd); err != nil {
			return nil, err
		}
		hi, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		return &Between{X: l, Lo: lo, Hi: hi}, nil
	case tIn:
		p.next()
		if err := p.expect(tLParen); err != nil {
			return nil, err
		}
		list, err := p.parseOperandList()
		if err != nil {
			return nil, err
		}
		if err := p.expect(tRParen); err != nil {
			return nil, err
		}
		return &In{X: l, List: list}, nil
	}
	if isPlainOperand(l) && !allowOperand {
		return nil, p.errHere()
	}
	return l, nil
}

func (p *parser) parseOperandList() ([]Expr, error) {
	var list []Expr
	for {
		e, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		list = append(list, e)
		if p.peek().kind != tComma {
			return list, nil
		}
		p.next()
	}
}

// parseParen parses "(" inner ")" into a Paren, counting the nesting
// against maxParseDepth.
func (p *parser) parseParen(inner func() (Expr, error)) (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.next()
	e, err := inner()
	if err != nil {
		return nil, err
	}
	if err := p.expect(tRParen); err != nil {
		return nil, err
	}
	return &Paren{X: e}, nil
}

// operand = "(" condition ")" | function | path | :value
func (p *parser) parseOperand() (Expr, error) {
	switch t := p.peek(); t.kind {
	case tLParen:
		return p.parseParen(func() (Expr, error) { return p.parseOr(true) })
	case tValue:
		p.next()
		return &ValueRef{Name: t.text}, nil
	case tIdent:
		if p.peekAt(1).kind == tLParen {
			return p.parseCall()
		}
		return p.parsePath()
	case tName:
		return p.parsePath()
	}
	return nil, p.errHere()
}

// function = identifier "(" operand { "," operand } ")"
func (p *parser) parseCall() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	name := p.next().text
	p.next() // (
	args, err := p.parseOperandList()
	if err != nil {
		return nil, err
	}
	if err := p.expect(tRParen); err != nil {
		return nil, err
	}
	return &Call{Name: name, Args: args}, nil
}

// path = element { "." element | "[" digits "]" }; element = identifier | #name
func (p *parser) parsePath() (*Path, error) {
	path := &Path{}
	first := p.peek()
	if first.kind == tIdent && !isPathStart(first.text[0]) {
		return nil, p.errHere()
	}
	if first.kind != tIdent && first.kind != tName {
		return nil, p.errHere()
	}
	p.next()
	path.Elems = append(path.Elems, Elem{Raw: first.text, Name: first.text})
	for {
		switch p.peek().kind {
		case tDot:
			p.next()
			t := p.peek()
			if t.kind != tIdent && t.kind != tName {
				return nil, p.errHere()
			}
			p.next()
			path.Elems = append(path.Elems, Elem{Raw: t.text, Name: t.text})
		case tLBracket:
			p.next()
			t := p.peek()
			if t.kind != tNumber {
				return nil, p.errHere()
			}
			n, err := strconv.Atoi(t.text)
			if err != nil {
				return nil, p.errHere()
			}
			p.next()
			if err := p.expect(tRBracket); err != nil {
				return nil, err
			}
			path.Elems = append(path.Elems, Elem{Index: n, IsIndex: true})
		default:
			if len(path.Elems) > MaxPathDepth {
				return nil, pathTooDeep(len(path.Elems))
			}
			return path, nil
		}
	}
}

// MaxPathDepth is the most elements (names and list indexes) a document
// path may have: 32. Source: the developer guide's quotas ("nested
// attribute depth 32"); ScyllaDB Alternator's
// test_projection_expression.py::test_projection_expression_path_nesting_levels,
// which passes against DynamoDB and quotes its answer to 33: "Invalid
// ProjectionExpression: The document path has too many nesting levels;
// nesting levels: 33".
const MaxPathDepth = 32

// pathTooDeep is the error for a path of n > MaxPathDepth elements; the
// caller prefixes "Invalid <kind>: ".
type pathTooDeep int

func (n pathTooDeep) Error() string {
	return "The document path has too many nesting levels; nesting levels: " + strconv.Itoa(int(n))
}

// isPathStart: attribute names written bare in an expression start with a
// letter (an underscore start is a syntax error in DynamoDB).
func isPathStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// parseProjectionTop parses path { "," path } to the end of input.
func (p *parser) parseProjectionTop() ([]*Path, error) {
	var paths []*Path
	for {
		path, err := p.parsePath()
		if err != nil {
			return nil, err
		}
		paths = append(paths, path)
		switch p.peek().kind {
		case tComma:
			p.next()
		case tEOF:
			return paths, nil
		default:
			return nil, p.errHere()
		}
	}
}
