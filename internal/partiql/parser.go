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

// keywords are PartiQL's reserved words: one written bare cannot name a
// table, an attribute or a path's dot component ("m.inner" is refused in
// partiqlFunctions.test.ts; DynamoDB Local, which shares DynamoDB's
// PartiQL front end, refuses "WHERE pad = 'none'" and runs
// "WHERE \"pad\" = 'none'"), only a quoted one can. The list is PartiQL's
// (SQL-92's reserved words and PartiQL's own), as AWS documents it for the
// same PartiQL parser:
// https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.reserved.html,
// with RETURNING, which DynamoDB's UPDATE and DELETE add.
var keywords = map[string]bool{
	"ABSOLUTE": true, "ACTION": true, "ADD": true, "ALL": true, "ALLOCATE": true, "ALTER": true, "AND": true,
	"ANY": true, "ARE": true, "AS": true, "ASC": true, "ASSERTION": true, "AT": true, "AUTHORIZATION": true,
	"AVG": true, "BAG": true, "BEGIN": true, "BETWEEN": true, "BIT": true, "BIT_LENGTH": true, "BLOB": true,
	"BOOL": true, "BOOLEAN": true, "BOTH": true, "BY": true, "CASCADE": true, "CASCADED": true, "CASE": true,
	"CAST": true, "CATALOG": true, "CHAR": true, "CHARACTER": true, "CHARACTER_LENGTH": true,
	"CHAR_LENGTH": true, "CHECK": true, "CLOB": true, "CLOSE": true, "COALESCE": true, "COLLATE": true,
	"COLLATION": true, "COLUMN": true, "COMMIT": true, "CONNECT": true, "CONNECTION": true, "CONSTRAINT": true,
	"CONSTRAINTS": true, "CONTINUE": true, "CONVERT": true, "CORRESPONDING": true, "COUNT": true,
	"CREATE": true, "CROSS": true, "CURRENT": true, "CURRENT_DATE": true, "CURRENT_TIME": true,
	"CURRENT_TIMESTAMP": true, "CURRENT_USER": true, "CURSOR": true, "DATE": true, "DATE_ADD": true,
	"DATE_DIFF": true, "DAY": true, "DEALLOCATE": true, "DEC": true, "DECIMAL": true, "DECLARE": true,
	"DEFAULT": true, "DEFERRABLE": true, "DEFERRED": true, "DELETE": true, "DESC": true, "DESCRIBE": true,
	"DESCRIPTOR": true, "DIAGNOSTICS": true, "DISCONNECT": true, "DISTINCT": true, "DOMAIN": true,
	"DOUBLE": true, "DROP": true, "ELSE": true, "END": true, "ESCAPE": true, "EXCEPT": true, "EXCEPTION": true,
	"EXEC": true, "EXECUTE": true, "EXISTS": true, "EXTERNAL": true, "EXTRACT": true, "FALSE": true,
	"FETCH": true, "FIRST": true, "FLOAT": true, "FOR": true, "FOREIGN": true, "FOUND": true, "FROM": true,
	"FULL": true, "GET": true, "GLOBAL": true, "GO": true, "GOTO": true, "GRANT": true, "GROUP": true,
	"HAVING": true, "HOUR": true, "IDENTITY": true, "IMMEDIATE": true, "IN": true, "INDEX": true,
	"INDICATOR": true, "INITIALLY": true, "INNER": true, "INPUT": true, "INSENSITIVE": true, "INSERT": true,
	"INT": true, "INTEGER": true, "INTERSECT": true, "INTERVAL": true, "INTO": true, "IS": true,
	"ISOLATION": true, "JOIN": true, "KEY": true, "LANGUAGE": true, "LAST": true, "LEADING": true, "LEFT": true,
	"LEVEL": true, "LIKE": true, "LIMIT": true, "LIST": true, "LOCAL": true, "LOWER": true, "MATCH": true,
	"MAX": true, "MIN": true, "MINUTE": true, "MISSING": true, "MODULE": true, "MONTH": true, "NAMES": true,
	"NATIONAL": true, "NATURAL": true, "NCHAR": true, "NEXT": true, "NO": true, "NOT": true, "NULL": true,
	"NULLIF": true, "NUMERIC": true, "OCTET_LENGTH": true, "OF": true, "ON": true, "ONLY": true, "OPEN": true,
	"OPTION": true, "OR": true, "ORDER": true, "OUTER": true, "OUTPUT": true, "OVERLAPS": true, "PAD": true,
	"PARTIAL": true, "PIVOT": true, "POSITION": true, "PRECISION": true, "PREPARE": true, "PRESERVE": true,
	"PRIMARY": true, "PRIOR": true, "PRIVILEGES": true, "PROCEDURE": true, "PUBLIC": true, "READ": true,
	"REAL": true, "REFERENCES": true, "RELATIVE": true, "REMOVE": true, "RESTRICT": true, "RETURNING": true,
	"REVOKE": true, "RIGHT": true, "ROLLBACK": true, "ROWS": true, "SCHEMA": true, "SCROLL": true,
	"SECOND": true, "SECTION": true, "SELECT": true, "SESSION": true, "SESSION_USER": true, "SET": true,
	"SEXP": true, "SIZE": true, "SMALLINT": true, "SOME": true, "SPACE": true, "SQL": true, "SQLCODE": true,
	"SQLERROR": true, "SQLSTATE": true, "STRING": true, "STRUCT": true, "SUBSTRING": true, "SUM": true,
	"SYMBOL": true, "SYSTEM_USER": true, "TABLE": true, "TEMPORARY": true, "THEN": true, "TIME": true,
	"TIMESTAMP": true, "TIMEZONE_HOUR": true, "TIMEZONE_MINUTE": true, "TO": true, "TO_STRING": true,
	"TO_TIMESTAMP": true, "TRAILING": true, "TRANSACTION": true, "TRANSLATE": true, "TRANSLATION": true,
	"TRIM": true, "TRUE": true, "TUPLE": true, "TXID": true, "UNDROP": true, "UNION": true, "UNIQUE": true,
	"UNKNOWN": true, "UNPIVOT": true, "UPDATE": true, "UPPER": true, "USAGE": true, "USER": true, "USING": true,
	"UTCNOW": true, "VALUE": true, "VALUES": true, "VARCHAR": true, "VARYING": true, "VIEW": true, "WHEN": true,
	"WHENEVER": true, "WHERE": true, "WITH": true, "WORK": true, "WRITE": true, "YEAR": true, "ZONE": true,
}

// structural are the keywords that are never a function name, even
// before "(" (SIZE(, COUNT(, EXISTS(, UPPER( are calls; DynamoDB reports
// the functions it does not have as unrecognized: partiqlFunctions.test.ts).
var structural = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "ORDER": true, "BY": true, "AND": true, "OR": true,
	"NOT": true, "IN": true, "IS": true, "BETWEEN": true, "LIKE": true, "VALUE": true, "VALUES": true,
	"SET": true, "REMOVE": true, "RETURNING": true, "AS": true, "INTO": true, "INSERT": true,
	"UPDATE": true, "DELETE": true,
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
	if p.peek().is("LIMIT") {
		// DynamoDB Local's answer, as a public driver's documentation
		// recorded it ("LIMIT in the statement"); the request's Limit is
		// DynamoDB's way.
		return nil, ddberr.Validation("Unsupported clause: LIMIT")
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
		t.Indexed = true
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
