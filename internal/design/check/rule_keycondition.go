package check

import (
	"fmt"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// KeyConditionRule proves each read pattern is a GetItem or a Query: its
// partition key fully bound by equality, its sort key condition a single
// prefix, equality or range, and every entity it expects reachable that
// way. Anything else needs a Scan or a FilterExpression, and the rule
// says which.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html
var KeyConditionRule = &Rule{
	Name: "key-condition",
	Doc: `Each read pattern must resolve to GetItem or Query on the table or an index:
an equality on every partition key attribute, and on the sort key at most
one condition (=, <, <=, >, >=, begins_with, between), on a multi-attribute
sort key equalities left to right and the last one any. Conditions on other
attributes need a FilterExpression, which reads and pays for the items it
drops; no partition key equality needs a Scan. GetItem reads only the
table, by its full key. Every entity a pattern returns must be reachable.`,
	Run: func(pass *Pass) {
		d := pass.Design
		for _, p := range d.Patterns {
			if p.Kind != "read" || p.Multi() {
				continue // a BatchGetItem gets its items by their whole table keys
			}
			if p.Operation == "Scan" {
				if len(p.Conditions) > 0 {
					pass.Reportf(p.Pos, design.Error, "pattern %s is a Scan: it reads every item of %s whatever its key; make it a Query (drop operation: Scan)", p.ID, indexLabel(p.Index))
				} else {
					pass.Reportf(p.Pos, design.Error, "pattern %s is a Scan: it reads every item of %s; give it a key (an index whose partition key the pattern knows)", p.ID, indexLabel(p.Index))
				}
				continue
			}
			r, ok := d.Resolve(p)
			if !ok {
				continue // the templates rule reports the index
			}
			bound := true
			for _, ka := range r.PK {
				n := 0
				for _, c := range r.PKConds {
					if c.Attr == ka.Name && c.Op == "=" {
						n++
					}
				}
				switch {
				case n == 0:
					bound = false
					pass.Reportf(p.KeyPos, design.Error, "pattern %s needs a Scan: %s's partition key %s has no equality in %q", p.ID, indexLabel(r.Index), ka.Name, p.KeyCondition)
				case n > 1:
					bound = false
					pass.Reportf(p.KeyPos, design.Error, "pattern %s has %d equalities on partition key %s; a Query takes one", p.ID, n, ka.Name)
				}
			}
			for _, c := range r.PKConds {
				if c.Op != "=" {
					pass.Reportf(p.KeyPos, design.Error, "pattern %s: %s is %s's partition key; a Query needs = on it, not %s", p.ID, c.Attr, indexLabel(r.Index), c.Op)
				}
			}
			for _, c := range r.Other {
				pass.Reportf(p.KeyPos, design.Error, "pattern %s: %s is no key of %s, so %q needs a FilterExpression: the Query reads and pays for every item it drops", p.ID, c.Attr, indexLabel(r.Index), c.String())
			}
			checkSortConditions(pass, r)
			if p.Operation == "GetItem" {
				full := r.Index == "" && len(r.Other) == 0 && len(r.PKConds) == len(r.PK) && len(r.SKConds) == len(r.SK)
				for _, c := range r.SKConds {
					full = full && c.Op == "="
				}
				if !full {
					pass.Reportf(p.Pos, design.Error, "pattern %s: GetItem reads the table by its full key (= on every key attribute); this is a Query", p.ID)
				}
			}
			for _, name := range p.Returns {
				e := d.Entity(name)
				if e == nil || !bound {
					continue
				}
				if d.MatchEntity(r, e) == design.Never {
					pass.Reportf(p.Pos, design.Error, "pattern %s expects %s, but no %s item matches %q on %s%s", p.ID, name, name, p.KeyCondition, indexLabel(r.Index), whyNot(d, r, e))
				}
			}
		}
	},
}

// checkSortConditions checks the sort key conditions: equalities on a
// left prefix of the sort key attributes, the last any operator.
func checkSortConditions(pass *Pass, r design.Read) {
	p := r.Pattern
	for _, c := range r.SKConds {
		typ := ""
		for _, ka := range r.SK {
			if ka.Name == c.Attr {
				typ = ka.Type
			}
		}
		switch {
		case c.Op == "begins_with" && typ == "N":
			pass.Reportf(p.KeyPos, design.Error, "pattern %s: begins_with takes a String or Binary sort key; %s is a Number (use between)", p.ID, c.Attr)
		case c.Op == "between" && c.Values[0].Constant() && c.Values[1].Constant() && typ != "N" && c.Values[0].Text > c.Values[1].Text:
			pass.Reportf(p.KeyPos, design.Error, "pattern %s: between %s and %s has its bounds reversed; DynamoDB refuses a lower bound above the upper", p.ID, c.Values[0], c.Values[1])
		}
	}
	for i, ka := range r.SK {
		var cs []design.Condition
		for _, c := range r.SKConds {
			if c.Attr == ka.Name {
				cs = append(cs, c)
			}
		}
		switch {
		case len(cs) > 1:
			pass.Reportf(p.Pos, design.Error, "pattern %s has %d conditions on sort key %s; a Query takes one (use between for a range)", p.ID, len(cs), ka.Name)
		case len(cs) == 1 && i > 0:
			prev := r.SK[i-1].Name
			eq := false
			for _, c := range r.SKConds {
				eq = eq || (c.Attr == prev && c.Op == "=")
			}
			if !eq {
				pass.Reportf(p.Pos, design.Error, "pattern %s: a condition on sort key attribute %s needs = on %s before it", p.ID, ka.Name, prev)
			}
		}
	}
}

// whyNot explains why e's items do not match r.
func whyNot(d *design.Design, r design.Read, e *design.Entity) string {
	if !d.InIndex(e, r.Index) {
		pk, sk, _ := d.KeySchema(r.Index)
		for _, ka := range append(pk, sk...) {
			if _, _, _, ok := e.ValueOf(ka.Name); !ok {
				return fmt.Sprintf(": %s items have no %s, so they are not in it", e.Name, ka.Name)
			}
		}
	}
	var built []string
	for _, c := range append(append([]design.Condition{}, r.PKConds...), r.SKConds...) {
		t, _, _, _ := e.ValueOf(c.Attr)
		built = append(built, c.Attr+" as "+t.Text)
	}
	if len(built) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s builds %s)", e.Name, strings.Join(built, ", "))
}
