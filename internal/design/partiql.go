package design

import (
	"fmt"
	"strings"

	"github.com/dynago/dynago/internal/partiql"
)

// statementPattern reads a read pattern written as a PartiQL SELECT
// (pattern key "statement"): its FROM names the table (and index), its
// WHERE clause's top-level conditions are the key condition, with
// templates as string literals, and ORDER BY ... DESC makes it
// descending:
//
//	SELECT * FROM "app"."GSI1" WHERE GSI1PK = 'ORDER' AND begins_with(GSI1SK, 'STATUS#<Status>#') ORDER BY GSI1SK DESC
//
// is index GSI1, key "GSI1PK = ORDER AND GSI1SK begins_with STATUS#<Status>#",
// order descending. A SELECT without WHERE is a Scan. The statement must
// be one DynamoDB's PartiQL reads as a Query of the key written (a
// partition key equality, at most one sort key condition); what else its
// WHERE says is not part of the pattern.
func statementPattern(src string) (table, index, key, order string, err error) {
	st, err := partiql.Parse(src)
	if err != nil {
		return "", "", "", "", fmt.Errorf("statement: %v", err)
	}
	sel, ok := st.(*partiql.Select)
	if !ok {
		return "", "", "", "", fmt.Errorf("statement: a read pattern's statement is a SELECT")
	}
	table, index = sel.From.Table, sel.From.Index
	if len(sel.OrderBy) > 0 && sel.OrderBy[0].Desc {
		order = "descending"
	}
	var conds []string
	for _, c := range partiql.Conjuncts(sel.Where) {
		s, err := templateCondition(c)
		if err != nil {
			return "", "", "", "", err
		}
		conds = append(conds, s)
	}
	return table, index, strings.Join(conds, " AND "), order, nil
}

// templateCondition renders one WHERE condition in key condition terms.
func templateCondition(c partiql.Expr) (string, error) {
	bad := fmt.Errorf("statement: %s is not a key condition (attribute = 'template', <, <=, >, >=, BETWEEN or begins_with)", c)
	text := func(e partiql.Expr) (string, bool) {
		l, ok := partiql.Unparen(e).(*partiql.Literal)
		if !ok || l.Kind != partiql.LitString && l.Kind != partiql.LitNumber {
			return "", false
		}
		return l.Text, true
	}
	name := func(e partiql.Expr) (string, bool) {
		p, ok := partiql.Unparen(e).(*partiql.Path)
		if !ok || len(p.Elems) != 1 || p.Elems[0].IsIndex {
			return "", false
		}
		return p.Elems[0].Name, true
	}
	switch x := partiql.Unparen(c).(type) {
	case *partiql.Binary:
		a, ok1 := name(x.L)
		v, ok2 := text(x.R)
		if ok1 && ok2 && strings.Contains("= < <= > >=", x.Op) {
			return a + " " + x.Op + " " + v, nil
		}
	case *partiql.Between:
		a, ok1 := name(x.X)
		lo, ok2 := text(x.Lo)
		hi, ok3 := text(x.Hi)
		if ok1 && ok2 && ok3 && !x.Not {
			return a + " between " + lo + " and " + hi, nil
		}
	case *partiql.Call:
		if strings.EqualFold(x.Name, "begins_with") && len(x.Args) == 2 {
			a, ok1 := name(x.Args[0])
			v, ok2 := text(x.Args[1])
			if ok1 && ok2 {
				return a + " begins_with " + v, nil
			}
		}
	}
	return "", bad
}
