package sqlschema

import (
	"fmt"
	"strings"
)

// typeWords continue a type name after its first word (character
// varying, double precision, timestamp with time zone, int unsigned).
var typeWords = map[string]bool{"varying": true, "precision": true, "with": true, "without": true, "time": true, "zone": true, "unsigned": true, "signed": true, "zerofill": true, "varchar": true}

// column = name type { columnOption } .
// type = word { typeWord } [ "(" args ")" ] { typeWord } { "[" [ number ] "]" } .
func (p *parser) column(t *Table) error {
	name, pos, err := p.name("a column name or a constraint")
	if err != nil {
		return err
	}
	c := &Column{Name: name, Pos: pos}
	tt := p.peek()
	if !tt.name() {
		return fmt.Errorf("%s: column %s: want its type, found %s", tt.pos, name, describe(tt))
	}
	p.i++
	for p.peek().is(".") && p.peekAt(1).name() { // public.order_status
		p.i++
		tt = p.nextTok()
	}
	words := []string{strings.ToLower(tt.text)}
	for {
		switch n := p.peek(); {
		case n.kind == tokIdent && typeWords[strings.ToLower(n.text)]:
			words = append(words, strings.ToLower(n.text))
			p.i++
			continue
		case n.is("("):
			if words[0] == "enum" || words[0] == "set" {
				vals, err := p.stringList()
				if err != nil {
					return err
				}
				c.Values = vals
				continue
			}
			if err := p.group(); err != nil {
				return err
			}
			continue
		case n.is("["):
			for p.peek().kind != tokEOF && !p.accept("]") {
				p.i++
			}
			if !strings.HasSuffix(words[len(words)-1], "[]") {
				words[len(words)-1] += "[]"
			}
			continue
		}
		break
	}
	c.Type = strings.Join(words, " ")
	t.Columns = append(t.Columns, c)
	return p.columnOptions(t, c)
}

// stringList = "(" string { "," string } ")" .
func (p *parser) stringList() ([]string, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var out []string
	for {
		s := p.nextTok()
		if s.kind != tokString {
			return nil, fmt.Errorf("%s: want a quoted value, found %s", s.pos, describe(s))
		}
		out = append(out, s.text)
		if p.accept(")") {
			return out, nil
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
	}
}

// columnOption = "NOT" "NULL" | "NULL" | "PRIMARY" "KEY" | "UNIQUE" [ "KEY" ]
//
//	| references | "DEFAULT" expr | "CHECK" group | "CONSTRAINT" name
//	| any other word or group (AUTO_INCREMENT, COLLATE x, COMMENT '...',
//	  GENERATED ALWAYS AS (...) STORED, ON UPDATE CURRENT_TIMESTAMP) .
func (p *parser) columnOptions(t *Table, c *Column) error {
	for {
		switch n := p.peek(); {
		case n.kind == tokEOF || n.is(",") || n.is(")") || n.is(";"):
			return nil
		case p.acceptAll("NOT", "NULL"):
			c.NotNull = true
		case p.acceptAll("PRIMARY", "KEY"):
			t.PrimaryKey = []string{c.Name}
		case n.is("UNIQUE"):
			p.i++
			p.accept("KEY")
			p.s.Indexes = append(p.s.Indexes, &Index{Table: t.Name, Columns: []string{c.Name}, Unique: true, Pos: n.pos})
		case n.is("REFERENCES"):
			fk := &ForeignKey{Columns: []string{c.Name}, Pos: n.pos}
			if err := p.references(fk); err != nil {
				return err
			}
			t.ForeignKeys = append(t.ForeignKeys, fk)
		case p.accept("DEFAULT"):
			p.expr()
		case p.accept("CONSTRAINT"):
			if _, _, err := p.name("a constraint name"); err != nil {
				return err
			}
		case n.is("("):
			if err := p.group(); err != nil {
				return err
			}
		default:
			p.i++
		}
	}
}

// optionWords end a DEFAULT expression.
var optionWords = map[string]bool{"not": true, "null": true, "primary": true, "unique": true, "references": true, "check": true, "constraint": true, "collate": true, "comment": true, "auto_increment": true, "generated": true, "on": true}

// expr skips a DEFAULT value: tokens and groups up to a "," or ")" of
// the list, or the next column option.
func (p *parser) expr() {
	for first := true; ; first = false {
		n := p.peek()
		switch {
		case n.kind == tokEOF || n.is(",") || n.is(")") || n.is(";"):
			return
		case !first && n.kind == tokIdent && optionWords[strings.ToLower(n.text)] && !p.peekAt(-1).is("::"):
			return
		case n.is("("):
			p.group()
		default:
			p.i++
		}
	}
}

// createIndex = "CREATE" [ "UNIQUE" ] "INDEX" [ "CONCURRENTLY" ] ifNotExists [ name ]
//
//	"ON" [ "ONLY" ] name [ "USING" word ] columns { option } .
func (p *parser) createIndex() error {
	ix := &Index{Pos: p.peek().pos}
	ix.Unique = p.accept("UNIQUE")
	if err := p.expect("INDEX"); err != nil {
		return err
	}
	p.accept("CONCURRENTLY")
	p.ifNotExists()
	if !p.peek().is("ON") {
		n, _, err := p.name("an index name")
		if err != nil {
			return err
		}
		ix.Name = n
	}
	if err := p.expect("ON"); err != nil {
		return err
	}
	p.accept("ONLY")
	var err error
	if ix.Table, _, err = p.name("the indexed table"); err != nil {
		return err
	}
	p.usingMethod()
	if ix.Columns, err = p.columns(); err != nil {
		return err
	}
	if p.accept("WHERE") {
		p.skipStatement()
		p.s.Skipped = append(p.s.Skipped, Skipped{What: "CREATE INDEX " + ix.Name, Reason: "a partial index (WHERE ...): read as an index of every row; a sparse index key would hold it", Pos: ix.Pos})
	}
	p.skipStatement()
	p.s.Indexes = append(p.s.Indexes, ix)
	return nil
}

// createType = "CREATE" "TYPE" name "AS" "ENUM" stringList .
// Other types (composite, range) are skipped.
func (p *parser) createType() error {
	name, _, err := p.name("a type name")
	if err != nil {
		return err
	}
	if !p.acceptAll("AS", "ENUM") {
		return fmt.Errorf("%s: CREATE TYPE %s is not an ENUM: skipped", p.peek().pos, name)
	}
	vals, err := p.stringList()
	if err != nil {
		return err
	}
	p.enums[strings.ToLower(name)] = vals
	return nil
}

// alterTable = "ALTER" "TABLE" [ "ONLY" ] [ "IF" "EXISTS" ] name "ADD" tableConstraint .
// Any other ALTER TABLE is skipped.
func (p *parser) alterTable() (*alter, error) {
	p.i += 2
	p.accept("ONLY")
	p.acceptAll("IF", "EXISTS")
	p.accept("ONLY")
	name, pos, err := p.name("a table name")
	if err != nil {
		return nil, err
	}
	if !p.accept("ADD") {
		return nil, fmt.Errorf("%s: ALTER TABLE %s %s: only ADD CONSTRAINT is read", p.peek().pos, name, strings.ToUpper(p.peek().text))
	}
	at := p.peek().pos
	c, ok, err := p.tableConstraint()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: ALTER TABLE %s ADD: only a constraint (PRIMARY KEY, UNIQUE, FOREIGN KEY) is read", at, name)
	}
	return &alter{table: name, c: c, pos: pos}, nil
}

// equalFold compares SQL names: case-insensitively, as both dialects do
// for unquoted names (close enough for quoted ones in a real schema).
func equalFold(a, b string) bool { return strings.EqualFold(a, b) }
