package sqlschema

import (
	"fmt"
	"strings"
)

// Query is a SELECT of a query log in the form an access pattern can
// say: one table, equalities ANDed, at most one range on another column,
// and an ORDER BY.
type Query struct {
	// Text is the statement as written, its whitespace collapsed.
	Text  string
	Table string
	// Eq are the columns compared with = to a value, in order.
	Eq []string
	// Range is a column compared with <, <=, >, >=, BETWEEN or LIKE
	// 'prefix%' (Op "begins_with"); nil for none.
	Range *Range
	// OrderBy is the ORDER BY column ("" for none), Desc its direction.
	OrderBy string
	Desc    bool
	// Limit is the LIMIT (0 for none or a parameter).
	Limit int
	Pos   Pos
}

// Range is a range condition on one column.
type Range struct {
	Column, Op string
}

// ParseQueries reads a query log: statements separated by ";" (or each
// starting with SELECT). The SELECTs in Query's form come back as
// queries; every other statement, and every SELECT with a JOIN, OR, IN,
// a subquery, a function or GROUP BY, comes back in skipped with the
// reason.
func ParseQueries(src string) (queries []*Query, skipped []Skipped, err error) {
	toks, err := lex(src)
	if err != nil {
		return nil, nil, err
	}
	p := &parser{toks: toks, s: &Schema{}}
	for p.peek().kind != tokEOF {
		if p.accept(";") {
			continue
		}
		start := p.peek()
		q, err := p.query()
		end := p.i
		if err != nil {
			p.skipQuery()
			end = p.i
			skipped = append(skipped, Skipped{What: p.text(src, start, end), Reason: err.Error(), Pos: start.pos})
			continue
		}
		q.Text, q.Pos = p.text(src, start, end), start.pos
		queries = append(queries, q)
	}
	return queries, skipped, nil
}

// text is the source from token start to token end, whitespace collapsed.
func (p *parser) text(src string, start token, end int) string {
	stop := len(src)
	if end < len(p.toks) {
		stop = p.toks[end].off
	}
	return strings.Join(strings.Fields(src[start.off:stop]), " ")
}

// skipQuery skips to the ";" or the next SELECT at depth 0.
func (p *parser) skipQuery() {
	depth := 0
	for first := true; p.peek().kind != tokEOF; first = false {
		t := p.peek()
		switch {
		case t.is("("):
			depth++
		case t.is(")"):
			depth = max(0, depth-1)
		case depth == 0 && (t.is(";") || t.is("SELECT") && !first):
			return
		}
		p.i++
	}
}

// query = "SELECT" selectList "FROM" name [ [ "AS" ] alias ]
//
//	[ "WHERE" condition { "AND" condition } ]
//	[ "ORDER" "BY" column [ "ASC" | "DESC" ] { "," column ... } ]
//	[ "LIMIT" ( number | param ) ] [ "OFFSET" value ] .
func (p *parser) query() (*Query, error) {
	if !p.accept("SELECT") {
		t := p.peek()
		return nil, fmt.Errorf("%s: only SELECT statements are read, not %s", t.pos, strings.ToUpper(t.text))
	}
	p.accept("DISTINCT")
	if err := p.selectList(); err != nil {
		return nil, err
	}
	q := &Query{}
	var err error
	if q.Table, _, err = p.name("the table after FROM"); err != nil {
		return nil, err
	}
	if p.accept("AS") || p.peek().name() && !p.isClause() {
		if _, _, err = p.name("an alias"); err != nil {
			return nil, err
		}
	}
	if t := p.peek(); t.is(",") || t.is("JOIN") || t.is("INNER") || t.is("LEFT") || t.is("RIGHT") || t.is("CROSS") || t.is("NATURAL") || t.is("FULL") {
		return nil, fmt.Errorf("%s: a query of several tables (%s): DynamoDB has no joins; write it as one item collection read, or two patterns", t.pos, strings.ToUpper(t.text))
	}
	if p.accept("WHERE") {
		for {
			if err := p.condition(q); err != nil {
				return nil, err
			}
			if t := p.peek(); t.is("OR") {
				return nil, fmt.Errorf("%s: OR: a key condition ANDs; write each branch as its own pattern", t.pos)
			}
			if !p.accept("AND") {
				break
			}
		}
	}
	if p.acceptAll("GROUP", "BY") || p.peek().is("HAVING") {
		return nil, fmt.Errorf("%s: GROUP BY and HAVING aggregate: keep the aggregate in an item (a counter updated with ADD) instead", p.peek().pos)
	}
	if p.acceptAll("ORDER", "BY") {
		if q.OrderBy, err = p.colRef(); err != nil {
			return nil, err
		}
		q.Desc = p.accept("DESC")
		p.accept("ASC")
		if p.peek().is(",") {
			return nil, fmt.Errorf("%s: ORDER BY several columns: a sort key orders by one value (build it from them: <a>#<b>)", p.peek().pos)
		}
	}
	if p.accept("LIMIT") {
		if n := p.nextTok(); n.kind == tokNumber {
			fmt.Sscan(n.text, &q.Limit)
		} else if n.kind != tokParam {
			return nil, fmt.Errorf("%s: LIMIT takes a number or a parameter, not %s", n.pos, describe(n))
		}
		if p.accept("OFFSET") {
			p.nextTok()
		}
	}
	if t := p.peek(); t.kind != tokEOF && !t.is(";") && !t.is("SELECT") {
		return nil, fmt.Errorf("%s: %s is not read: a pattern says a key condition, an order and a page size only", t.pos, describe(t))
	}
	return q, nil
}

// isClause reports whether the next word starts a clause (so it is no
// table alias).
func (p *parser) isClause() bool {
	for _, w := range []string{"WHERE", "ORDER", "LIMIT", "GROUP", "HAVING", "JOIN", "INNER", "LEFT", "RIGHT", "CROSS", "NATURAL", "FULL", "UNION", "FOR", "OFFSET"} {
		if p.peek().is(w) {
			return true
		}
	}
	return false
}

// selectList = ( "*" | item { "," item } ) "FROM" ; an item is read up to
// FROM, refusing a subquery.
func (p *parser) selectList() error {
	for depth := 0; ; {
		t := p.nextTok()
		switch {
		case t.kind == tokEOF:
			return fmt.Errorf("%s: SELECT without FROM", t.pos)
		case t.is("SELECT"):
			return fmt.Errorf("%s: a subquery: write what it reads as its own pattern", t.pos)
		case t.is("("):
			depth++
		case t.is(")"):
			depth--
		case t.is("FROM") && depth == 0:
			return nil
		}
	}
}

// colRef = [ qualifier "." ] name ; a qualifier (the table or its
// alias) is dropped: there is one table.
func (p *parser) colRef() (string, error) {
	n, pos, err := p.name("a column")
	if err != nil {
		return "", err
	}
	if p.peek().is("(") {
		return "", fmt.Errorf("%s: %s(...): a function of a column is not a key value", pos, n)
	}
	return n, nil
}

// value = param | string | number .
func (p *parser) value() (token, error) {
	t := p.nextTok()
	if t.kind == tokParam || t.kind == tokString || t.kind == tokNumber {
		return t, nil
	}
	if t.is("(") {
		return t, fmt.Errorf("%s: a subquery or a list: one value is compared to a key", t.pos)
	}
	return t, fmt.Errorf("%s: want a value (?, $1, 'text' or a number), found %s", t.pos, describe(t))
}

// condition = column ( "=" value | ( "<" | "<=" | ">" | ">=" ) value
//
//	| "BETWEEN" value "AND" value | "LIKE" 'prefix%' ) .
func (p *parser) condition(q *Query) error {
	col, err := p.colRef()
	if err != nil {
		return err
	}
	op := p.nextTok()
	setRange := func(kind string) error {
		if q.Range != nil {
			return fmt.Errorf("%s: a second range (%s %s): a key condition has one, on the sort key", op.pos, col, kind)
		}
		q.Range = &Range{Column: col, Op: kind}
		return nil
	}
	switch {
	case op.is("="):
		if _, err := p.value(); err != nil {
			return err
		}
		q.Eq = append(q.Eq, col)
		return nil
	case op.is("<") || op.is("<=") || op.is(">") || op.is(">="):
		if _, err := p.value(); err != nil {
			return err
		}
		return setRange(op.text)
	case op.is("BETWEEN"):
		if _, err := p.value(); err != nil {
			return err
		}
		if err := p.expect("AND"); err != nil {
			return err
		}
		if _, err := p.value(); err != nil {
			return err
		}
		return setRange("between")
	case op.is("LIKE"):
		v, err := p.value()
		if err != nil {
			return err
		}
		if v.kind == tokString && (strings.Count(v.text, "%") != 1 || !strings.HasSuffix(v.text, "%") || strings.Contains(v.text, "_")) {
			return fmt.Errorf("%s: LIKE '%s' is not a prefix match ('abc%%'): only begins_with is a key condition", v.pos, v.text)
		}
		return setRange("begins_with")
	case op.is("IN"):
		return fmt.Errorf("%s: %s IN (...): a key condition takes one value; a BatchGetItem, or one Query per value", op.pos, col)
	case op.is("<>") || op.is("!=") || op.is("NOT") || op.is("IS"):
		return fmt.Errorf("%s: %s %s: only =, <, <=, >, >=, BETWEEN and LIKE 'prefix%%' are key conditions (the rest is a filter)", op.pos, col, strings.ToUpper(op.text))
	}
	return fmt.Errorf("%s: want a comparison after %s, found %s", op.pos, col, describe(op))
}
