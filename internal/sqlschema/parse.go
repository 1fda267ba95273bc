package sqlschema

import (
	"fmt"
	"slices"
	"strings"
)

// Parse reads a DDL file. A statement it does not read, or cannot (a
// syntax error inside it), is skipped to its ";" and listed in
// Schema.Skipped with the reason; only text that cannot be split into
// tokens (a quote never closed) is an error. ALTER TABLE ... ADD
// [CONSTRAINT c] PRIMARY KEY, UNIQUE or FOREIGN KEY (pg_dump's form)
// is applied to its table, whichever order the statements come in.
func Parse(src string) (*Schema, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, s: &Schema{}, enums: map[string][]string{}}
	var alters []alter
	for p.peek().kind != tokEOF {
		if p.accept(";") {
			continue
		}
		start, from := p.peek(), p.i
		a, err := p.statement()
		if err != nil {
			p.s.Skipped = append(p.s.Skipped, Skipped{What: p.words(from), Reason: err.Error(), Pos: start.pos})
			p.skipStatement()
			continue
		}
		if a != nil {
			alters = append(alters, *a)
		}
		if k := p.peek(); k.kind != tokEOF && !k.is(";") {
			p.s.Skipped = append(p.s.Skipped, Skipped{What: p.words(from), Reason: fmt.Sprintf("%s: the rest of the statement (from %q) is not read", k.pos, k.text), Pos: start.pos})
			p.skipStatement()
		}
	}
	for _, a := range alters {
		t := p.s.Table(a.table)
		if t == nil {
			p.s.Skipped = append(p.s.Skipped, Skipped{What: "ALTER TABLE " + a.table, Reason: "no CREATE TABLE " + a.table + " in the file", Pos: a.pos})
			continue
		}
		p.addConstraint(t, a.c)
	}
	for _, t := range p.s.Tables {
		for _, c := range t.Columns {
			if slices.ContainsFunc(t.PrimaryKey, func(k string) bool { return equalFold(k, c.Name) }) {
				c.NotNull = true
			}
			if v, ok := p.enums[strings.ToLower(c.Type)]; ok && c.Values == nil {
				c.Values = v
			}
		}
	}
	return p.s, nil
}

// parser is the recursive-descent parser over a file's tokens.
type parser struct {
	toks  []token
	i     int
	s     *Schema
	enums map[string][]string // CREATE TYPE name AS ENUM (...)
}

// alter is an ALTER TABLE's constraint, applied once every table is read.
type alter struct {
	table string
	c     constraint
	pos   Pos
}

// constraint is a table constraint: a primary key, a unique index, a
// foreign key or a plain index.
type constraint struct {
	kind string // "pk", "unique", "fk", "index", "skip" (FULLTEXT, SPATIAL) or "" (CHECK: nothing to keep)
	name string
	cols []string
	fk   *ForeignKey
	pos  Pos
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) nextTok() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

// accept consumes the next token if it is the word or punctuation w.
func (p *parser) accept(w string) bool {
	if p.peek().is(w) {
		p.i++
		return true
	}
	return false
}

// acceptAll consumes the words ws if they come next, all of them.
func (p *parser) acceptAll(ws ...string) bool {
	for i, w := range ws {
		if !p.peekAt(i).is(w) {
			return false
		}
	}
	p.i += len(ws)
	return true
}

func (p *parser) expect(w string) error {
	if !p.accept(w) {
		t := p.peek()
		return fmt.Errorf("%s: want %s, found %s", t.pos, w, describe(t))
	}
	return nil
}

// describe names a token in an error message.
func describe(t token) string {
	switch t.kind {
	case tokEOF:
		return "the end of the file"
	case tokString:
		return fmt.Sprintf("the string '%s'", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// words renders the first words of the statement at token i, for
// Skipped.
func (p *parser) words(i int) string {
	var ws []string
	for ; i < len(p.toks) && len(ws) < 3 && p.toks[i].kind == tokIdent; i++ {
		ws = append(ws, strings.ToUpper(p.toks[i].text))
	}
	if len(ws) == 0 {
		return describe(p.toks[min(i, len(p.toks)-1)])
	}
	return strings.Join(ws, " ")
}

// skipStatement skips to the ";" that ends the statement (outside
// parentheses), or to the end.
func (p *parser) skipStatement() {
	depth := 0
	for t := p.peek(); t.kind != tokEOF; t = p.peek() {
		switch {
		case t.is("("):
			depth++
		case t.is(")"):
			depth = max(0, depth-1)
		case t.is(";") && depth == 0:
			return
		}
		p.i++
	}
}

// statement = createTable | createIndex | createType | alterTable .
// Any other statement is skipped (and listed) by the caller.
func (p *parser) statement() (*alter, error) {
	switch {
	case p.peek().is("CREATE"):
		save := p.i
		p.i++
		p.accept("OR") // CREATE OR REPLACE ...
		p.accept("REPLACE")
		for p.accept("TEMPORARY") || p.accept("TEMP") || p.accept("UNLOGGED") || p.accept("GLOBAL") || p.accept("LOCAL") {
		}
		switch {
		case p.accept("TABLE"):
			return nil, p.createTable()
		case p.peek().is("UNIQUE") || p.peek().is("INDEX"):
			return nil, p.createIndex()
		case p.acceptAll("TYPE"):
			return nil, p.createType()
		}
		p.i = save
	case p.peek().is("ALTER") && p.peekAt(1).is("TABLE"):
		return p.alterTable()
	}
	return nil, fmt.Errorf("not a CREATE TABLE, CREATE INDEX or ALTER TABLE ... ADD: skipped")
}

// name = part { "." part } ; part = word | quoted .
// A qualified name (public.users, shop.users) keeps its last part.
func (p *parser) name(what string) (string, Pos, error) {
	t := p.peek()
	if !t.name() {
		return "", t.pos, fmt.Errorf("%s: want %s, found %s", t.pos, what, describe(t))
	}
	p.i++
	n := t.text
	for p.peek().is(".") && p.peekAt(1).name() {
		p.i++
		n = p.nextTok().text
	}
	return n, t.pos, nil
}

// ifNotExists = [ "IF" "NOT" "EXISTS" ] .
func (p *parser) ifNotExists() { p.acceptAll("IF", "NOT", "EXISTS") }

// createTable = "CREATE" "TABLE" ifNotExists name "(" element { "," element } ")" { tableOption } .
// tableOption (ENGINE=InnoDB, WITH (...), PARTITION BY ...) is skipped
// to the statement's end.
func (p *parser) createTable() error {
	p.ifNotExists()
	name, pos, err := p.name("a table name")
	if err != nil {
		return err
	}
	t := &Table{Name: name, Pos: pos}
	if p.peek().is("AS") || p.peek().is("LIKE") || p.peek().is("PARTITION") {
		return fmt.Errorf("%s: CREATE TABLE %s %s has no column list to read", p.peek().pos, name, strings.ToUpper(p.peek().text))
	}
	if err := p.expect("("); err != nil {
		return err
	}
	for {
		if err := p.element(t); err != nil {
			return err
		}
		if p.accept(")") {
			break
		}
		if err := p.expect(","); err != nil {
			return err
		}
	}
	p.skipStatement() // table options
	if p.s.Table(name) != nil {
		return fmt.Errorf("%s: table %s is created twice", pos, name)
	}
	p.s.Tables = append(p.s.Tables, t)
	return nil
}

// element = tableConstraint | column .
func (p *parser) element(t *Table) error {
	c, ok, err := p.tableConstraint()
	if err != nil {
		return err
	}
	if ok {
		p.addConstraint(t, c)
		return nil
	}
	return p.column(t)
}

// addConstraint applies c to t.
func (p *parser) addConstraint(t *Table, c constraint) {
	switch c.kind {
	case "pk":
		t.PrimaryKey = c.cols
	case "fk":
		t.ForeignKeys = append(t.ForeignKeys, c.fk)
	case "unique", "index":
		p.s.Indexes = append(p.s.Indexes, &Index{Name: c.name, Table: t.Name, Columns: c.cols, Unique: c.kind == "unique", Pos: c.pos})
	case "skip":
		p.s.Skipped = append(p.s.Skipped, Skipped{What: "index " + c.name, Reason: "a FULLTEXT or SPATIAL index: no DynamoDB key searches text or space (an OpenSearch integration does)", Pos: c.pos})
	}
}

// tableConstraint = [ "CONSTRAINT" name ] ( "PRIMARY" "KEY" columns
//
//	| "UNIQUE" [ "KEY" | "INDEX" ] [ name ] columns
//	| "FOREIGN" "KEY" [ name ] columns references
//	| "CHECK" group
//	| ( "KEY" | "INDEX" | "FULLTEXT" | "SPATIAL" ) ... [ name ] columns ) { option } .
//
// ok is false (and nothing consumed) when the element is a column.
func (p *parser) tableConstraint() (c constraint, ok bool, err error) {
	c.pos = p.peek().pos
	named := false
	if p.accept("CONSTRAINT") {
		if c.name, _, err = p.name("a constraint name"); err != nil {
			return c, false, err
		}
		named = true
	}
	// A column may be named key or index: those are constraints only when
	// a "(" or a name and "(" follow.
	indexWord := func() bool {
		n := p.peekAt(1)
		return n.is("(") || n.is("KEY") || n.is("INDEX") || n.name() && p.peekAt(2).is("(")
	}
	switch t := p.peek(); {
	case t.is("PRIMARY") && p.peekAt(1).is("KEY"):
		p.i += 2
		c.kind = "pk"
	case t.is("UNIQUE") && indexWord():
		p.i++
		c.kind = "unique"
	case t.is("FOREIGN") && p.peekAt(1).is("KEY"):
		p.i += 2
		c.kind = "fk"
	case t.is("CHECK") && p.peekAt(1).is("("):
		p.i++
		return c, true, p.group()
	case (t.is("KEY") || t.is("INDEX") || t.is("FULLTEXT") || t.is("SPATIAL")) && indexWord():
		p.i++
		c.kind = "index"
		if t.is("FULLTEXT") || t.is("SPATIAL") {
			c.kind = "skip" // no key a design can have
		}
	default:
		if named {
			return c, false, fmt.Errorf("%s: want PRIMARY KEY, UNIQUE, FOREIGN KEY or CHECK after CONSTRAINT %s, found %s", t.pos, c.name, describe(t))
		}
		return c, false, nil
	}
	p.accept("KEY")
	p.accept("INDEX")
	if !p.peek().is("(") {
		n, _, err := p.name("an index name or (")
		if err != nil {
			return c, true, err
		}
		if c.name == "" {
			c.name = n
		}
	}
	p.usingMethod()
	if c.cols, err = p.columns(); err != nil {
		return c, true, err
	}
	if c.kind == "fk" {
		c.fk = &ForeignKey{Columns: c.cols, Pos: c.pos}
		if err := p.references(c.fk); err != nil {
			return c, true, err
		}
	}
	p.skipOptions()
	return c, true, nil
}

// usingMethod = [ "USING" word ] .
func (p *parser) usingMethod() {
	if p.accept("USING") && p.peek().kind == tokIdent {
		p.i++
	}
}

// skipOptions skips what follows an element up to its "," or the list's
// ")": index options, DEFERRABLE, COMMENT '...', and the like.
func (p *parser) skipOptions() {
	for t := p.peek(); t.kind != tokEOF && !t.is(",") && !t.is(")") && !t.is(";"); t = p.peek() {
		if t.is("(") {
			p.group()
			continue
		}
		p.i++
	}
}

// columns = "(" indexColumn { "," indexColumn } ")" .
// indexColumn = name [ "(" number ")" ] [ "ASC" | "DESC" ] [ "NULLS" ( "FIRST" | "LAST" ) ]
// (an expression, lower(email), is an error: no key holds it).
func (p *parser) columns() ([]string, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var cols []string
	for {
		n, pos, err := p.name("a column name")
		if err != nil {
			return nil, err
		}
		if p.peek().is("(") {
			if p.peekAt(1).kind != tokNumber {
				return nil, fmt.Errorf("%s: an index on an expression (%s(...)) has no attribute a key could hold", pos, n)
			}
			p.group() // MySQL prefix length: name(20)
		}
		for p.accept("ASC") || p.accept("DESC") || p.acceptAll("NULLS", "FIRST") || p.acceptAll("NULLS", "LAST") || p.accept("COLLATE") && p.nextTok().kind != tokEOF {
		}
		cols = append(cols, n)
		if p.accept(")") {
			return cols, nil
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
	}
}

// references = "REFERENCES" name [ columns ] { "ON" ( "DELETE" | "UPDATE" ) action | "MATCH" word | ... } .
// Without columns it references the parent's primary key (filled in by
// the importer, which knows it).
func (p *parser) references(fk *ForeignKey) error {
	if err := p.expect("REFERENCES"); err != nil {
		return err
	}
	var err error
	if fk.RefTable, _, err = p.name("the referenced table"); err != nil {
		return err
	}
	if p.peek().is("(") {
		if fk.RefColumns, err = p.columns(); err != nil {
			return err
		}
	}
	return nil
}

// group skips a parenthesised group, nested ones included.
func (p *parser) group() error {
	open := p.peek()
	if err := p.expect("("); err != nil {
		return err
	}
	for depth := 1; depth > 0; {
		t := p.nextTok()
		switch {
		case t.kind == tokEOF:
			return fmt.Errorf("%s: ( opened here is never closed", open.pos)
		case t.is("("):
			depth++
		case t.is(")"):
			depth--
		}
	}
	return nil
}
