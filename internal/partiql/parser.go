package partiql

import (
	"strings"

	"github.com/dynago/dynago/internal/ddberr"
)

// NotWellFormed begins DynamoDB's message for a statement its parser
// cannot read; a detail follows the colon, or nothing for a literal or
// comment the lexer cannot read (tests/tier3/error-messages/partiqlGrammar.test.ts).
const NotWellFormed = "Statement wasn't well formed, can't be processed: "

// Parse error details, DynamoDB's words (partiqlGrammar.test.ts).
const (
	msgLeftover    = "Unexpected token after expression"
	msgTerm        = "Unexpected term"
	msgKeyword     = "Unexpected keyword"
	msgOperator    = "Unexpected operator"
	msgMissingRHS  = "Missing right-hand side expression of infix operator"
	msgTypeName    = "Expected type name"
	msgSimplePath  = "Expected identifier for simple path"
	msgDotPath     = "Invalid path dot component"
	msgAliasing    = "Aliasing is not supported"
	maxParseDepth  = 1000
	msgTooDeep     = "Statement is too deeply nested"
	kwStatementEnd = ";"
)

// malformed is the ValidationException for a statement that is not well
// formed, with detail after the colon.
func malformed(detail string) error { return ddberr.Validation(NotWellFormed + detail) }

// keywords are the words the grammar reserves: one cannot stand where a
// term or a path's dot component should (PartiQL's reserved words that
// DynamoDB's statements use, and the join words a path may not name:
// "m.inner" is refused in partiqlFunctions.test.ts).
var keywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "ORDER": true, "BY": true, "ASC": true, "DESC": true,
	"INSERT": true, "INTO": true, "VALUE": true, "VALUES": true, "UPDATE": true, "DELETE": true,
	"SET": true, "REMOVE": true, "RETURNING": true, "AND": true, "OR": true, "NOT": true, "IS": true,
	"IN": true, "BETWEEN": true, "LIKE": true, "AS": true, "AT": true, "EXISTS": true,
	"INNER": true, "OUTER": true, "JOIN": true, "LEFT": true, "RIGHT": true, "FULL": true, "CROSS": true,
	"ON": true, "GROUP": true, "HAVING": true, "LIMIT": true, "OFFSET": true, "UNION": true,
	"INTERSECT": true, "EXCEPT": true, "DISTINCT": true, "CASE": true, "WHEN": true, "THEN": true,
	"ELSE": true, "END": true, "ALL": true, "ESCAPE": true, "PIVOT": true, "UNPIVOT": true,
	"LET": true, "ANY": true, "SOME": true,
}

// operatorWords are keywords that are operators: one where a term should
// start is "Unexpected operator".
var operatorWords = map[string]bool{"IS": true, "LIKE": true, "AND": true, "OR": true, "IN": true, "BETWEEN": true}

func isKeyword(t token) bool { return t.kind == tIdent && keywords[strings.ToUpper(t.text)] }

// parser is a recursive-descent parser over the token slice.
type parser struct {
	toks   []token
	pos    int
	depth  int
	params int
}

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

// accept consumes the keyword kw when it is next.
func (p *parser) accept(kw string) bool {
	if p.peek().is(kw) {
		p.next()
		return true
	}
	return false
}

func posOf(t token) Pos { return Pos{Line: t.line, Col: t.col, Len: t.length} }

// Parse parses one PartiQL statement. Errors are ValidationExceptions in
// DynamoDB's words.
func Parse(src string) (Statement, error) {
	toks := lex(src)
	for _, t := range toks {
		if t.kind == tBadNumber || t.kind == tBadComment || t.kind == tInvalid {
			return nil, malformed("")
		}
	}
	p := &parser{toks: toks}
	st, err := p.parseStatement()
	if err != nil {
		return nil, err
	}
	if p.peek().isPunct(kwStatementEnd) {
		p.next()
	}
	if p.peek().kind != tEOF {
		return nil, malformed(msgLeftover)
	}
	return st, nil
}

// ParamCount is the number of ? placeholders in src's statement, which
// Parse numbers 0, 1, ... in the order written.
func ParamCount(st Statement) int {
	n := 0
	walkStatement(st, func(e Expr) {
		if _, ok := e.(*Param); ok {
			n++
		}
	})
	return n
}

// statement = select | insert | update | delete | fromUpdate | exists | expr
func (p *parser) parseStatement() (Statement, error) {
	t := p.peek()
	switch {
	case t.is("SELECT"):
		return p.parseSelect()
	case t.is("INSERT"):
		return p.parseInsert()
	case t.is("UPDATE"):
		return p.parseUpdate()
	case t.is("DELETE"):
		return p.parseDelete()
	case t.is("FROM"):
		return p.parseFromUpdate()
	case t.is("EXISTS") && p.peekAt(1).isPunct("(") && p.peekAt(2).is("SELECT"):
		p.next()
		p.next()
		s, err := p.parseSelect()
		if err != nil {
			return nil, err
		}
		if !p.peek().isPunct(")") {
			return nil, malformed(msgLeftover)
		}
		p.next()
		return &Exists{Select: s}, nil
	}
	x, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	return &ExprStatement{X: x}, nil
}

// select = SELECT projection FROM target [ WHERE expr ] [ ORDER BY orderKey { "," orderKey } ]
// projection = "*" | expr { "," expr }
func (p *parser) parseSelect() (*Select, error) {
	p.next() // SELECT
	s := &Select{}
	if p.peek().isPunct("*") {
		p.next()
	} else {
		for {
			x, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			s.Projection = append(s.Projection, x)
			if !p.peek().isPunct(",") {
				break
			}
			p.next()
		}
	}
	if !p.accept("FROM") {
		return nil, malformed(msgLeftover)
	}
	var err error
	if s.From, err = p.parseTarget(msgTerm); err != nil {
		return nil, err
	}
	if err := p.refuseAlias(); err != nil {
		return nil, err
	}
	if p.accept("WHERE") {
		if s.Where, err = p.parseExpr(); err != nil {
			return nil, err
		}
	}
	if p.peek().is("ORDER") && p.peekAt(1).is("BY") {
		p.next()
		p.next()
		for {
			path, err := p.parsePath()
			if err != nil {
				return nil, err
			}
			k := OrderKey{Path: path}
			if p.accept("DESC") {
				k.Desc = true
			} else {
				p.accept("ASC")
			}
			s.OrderBy = append(s.OrderBy, k)
			if !p.peek().isPunct(",") {
				break
			}
			p.next()
		}
	}
	return s, nil
}

// insert = INSERT INTO target VALUE expr
func (p *parser) parseInsert() (*Insert, error) {
	p.next() // INSERT
	if !p.accept("INTO") {
		return nil, malformed(msgLeftover)
	}
	target, err := p.parseTarget(msgSimplePath)
	if err != nil {
		return nil, err
	}
	if !p.accept("VALUE") {
		return nil, malformed(msgLeftover)
	}
	v, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	return &Insert{Into: target, Value: v}, nil
}

// update = UPDATE target action { action } WHERE expr [ returning ]
func (p *parser) parseUpdate() (*Update, error) {
	p.next() // UPDATE
	target, err := p.parseTarget(msgSimplePath)
	if err != nil {
		return nil, err
	}
	if err := p.refuseAlias(); err != nil {
		return nil, err
	}
	u := &Update{Table: target}
	if u.Actions, err = p.parseActions(); err != nil {
		return nil, err
	}
	if !p.accept("WHERE") {
		return nil, malformed(msgLeftover)
	}
	if u.Where, err = p.parseExpr(); err != nil {
		return nil, err
	}
	u.Returning, err = p.parseReturning()
	return u, err
}

// fromUpdate = FROM target [ WHERE expr ] action { action } [ returning ]
func (p *parser) parseFromUpdate() (*Update, error) {
	p.next() // FROM
	target, err := p.parseTarget(msgSimplePath)
	if err != nil {
		return nil, err
	}
	if err := p.refuseAlias(); err != nil {
		return nil, err
	}
	u := &Update{Table: target, FromFirst: true}
	if p.accept("WHERE") {
		if u.Where, err = p.parseExpr(); err != nil {
			return nil, err
		}
	}
	if u.Actions, err = p.parseActions(); err != nil {
		return nil, err
	}
	u.Returning, err = p.parseReturning()
	return u, err
}

// delete = DELETE FROM target WHERE expr [ returning ]
func (p *parser) parseDelete() (*Delete, error) {
	p.next() // DELETE
	if !p.accept("FROM") {
		return nil, malformed(msgSimplePath)
	}
	target, err := p.parseTarget(msgSimplePath)
	if err != nil {
		return nil, err
	}
	if err := p.refuseAlias(); err != nil {
		return nil, err
	}
	d := &Delete{From: target}
	if !p.accept("WHERE") {
		return nil, malformed(msgLeftover)
	}
	if d.Where, err = p.parseExpr(); err != nil {
		return nil, err
	}
	d.Returning, err = p.parseReturning()
	return d, err
}

// target = name [ "." name ]; name = quoted identifier | identifier.
// missing is the detail when no name is there.
func (p *parser) parseTarget(missing string) (Target, error) {
	name, ok := p.parseName()
	if !ok {
		return Target{}, malformed(missing)
	}
	t := Target{Table: name}
	if p.peek().isPunct(".") {
		p.next()
		if t.Index, ok = p.parseName(); !ok {
			return Target{}, malformed(msgDotPath)
		}
	}
	return t, nil
}

func (p *parser) parseName() (string, bool) {
	t := p.peek()
	switch {
	case t.kind == tQuoted:
		p.next()
		return unquote(t.text), true
	case t.kind == tIdent && !isKeyword(t):
		p.next()
		return t.text, true
	}
	return "", false
}

// refuseAlias refuses a table alias (a name, or AS name, after the
// target), as DynamoDB does ("Aliasing is not supported").
func (p *parser) refuseAlias() error {
	t := p.peek()
	if t.is("AS") || t.kind == tQuoted || t.kind == tIdent && !isKeyword(t) {
		return ddberr.Validation(msgAliasing)
	}
	return nil
}

// action = SET path "=" expr { "," path "=" expr } | REMOVE path { "," path }
func (p *parser) parseActions() ([]Action, error) {
	var out []Action
	for {
		var kind ActionKind
		switch {
		case p.accept("SET"):
			kind = ActionSet
		case p.accept("REMOVE"):
			kind = ActionRemove
		default:
			if len(out) == 0 {
				return nil, malformed(msgLeftover)
			}
			return out, nil
		}
		for {
			path, err := p.parsePath()
			if err != nil {
				return nil, err
			}
			a := Action{Kind: kind, Path: path}
			if kind == ActionSet {
				if t := p.peek(); t.kind != tOp || t.text != "=" {
					return nil, malformed(msgLeftover)
				}
				p.next()
				if a.Value, err = p.parseExpr(); err != nil {
					return nil, err
				}
			}
			out = append(out, a)
			if !p.peek().isPunct(",") {
				break
			}
			p.next()
		}
	}
}

// returning = RETURNING ( ALL | MODIFIED ) ( OLD | NEW ) "*"
func (p *parser) parseReturning() (Returning, error) {
	if !p.accept("RETURNING") {
		return "", nil
	}
	var which, when string
	switch {
	case p.accept("ALL"):
		which = "ALL"
	case p.accept("MODIFIED"):
		which = "MODIFIED"
	default:
		return "", malformed(msgLeftover)
	}
	switch {
	case p.accept("OLD"):
		when = "OLD"
	case p.accept("NEW"):
		when = "NEW"
	default:
		return "", malformed(msgLeftover)
	}
	if !p.peek().isPunct("*") {
		return "", malformed(msgLeftover)
	}
	p.next()
	return Returning(which + " " + when), nil
}

// path = name { "." name | "[" number "]" }
func (p *parser) parsePath() (*Path, error) {
	t := p.peek()
	name, ok := p.parseName()
	if !ok {
		return nil, malformed(msgSimplePath)
	}
	path := &Path{Elems: []Elem{{Name: name, Quoted: t.kind == tQuoted}}, At: posOf(t)}
	return p.parsePathRest(path)
}

// parsePathRest parses the "." and "[n]" steps after a path's first name.
func (p *parser) parsePathRest(path *Path) (*Path, error) {
	for {
		switch {
		case p.peek().isPunct("."):
			p.next()
			t := p.peek()
			name, ok := p.parseName()
			if !ok {
				return nil, malformed(msgDotPath)
			}
			path.Elems = append(path.Elems, Elem{Name: name, Quoted: t.kind == tQuoted})
		case p.peek().isPunct("["):
			p.next()
			t := p.peek()
			n, ok := parseIndex(t)
			if !ok {
				return nil, malformed("Invalid path component")
			}
			p.next()
			if !p.peek().isPunct("]") {
				return nil, malformed(msgLeftover)
			}
			p.next()
			path.Elems = append(path.Elems, Elem{Index: n, IsIndex: true})
		default:
			return path, nil
		}
	}
}

// parseIndex reads a list index: a number token of digits only.
func parseIndex(t token) (int, bool) {
	if t.kind != tNumber || t.text == "" || len(t.text) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(t.text); i++ {
		if !isDigit(t.text[i]) {
			return 0, false
		}
		n = n*10 + int(t.text[i]-'0')
	}
	return n, true
}

// unquote strips a quoted token's quotes and undoubles inner ones.
func unquote(s string) string {
	q := s[:1]
	return strings.ReplaceAll(s[1:len(s)-1], q+q, q)
}
