package check

import (
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// CollectionsRule checks that a query returning several entity types can
// tell them apart: each has a discriminator attribute with its own value,
// or its own sort-key prefix on the index read.
var CollectionsRule = &Rule{
	Name: "collections",
	Doc: `A query over an item collection (a user with its orders and reviews) returns
several entity types in one page. The reader needs to tell each item's type:
by a discriminator attribute (discriminator: {EntityType: ORDER}) with a
distinct value per type, or by a distinct literal sort-key prefix.`,
	Run: func(pass *Pass) {
		d := pass.Design
		for _, r := range d.Reads() {
			if len(r.Pattern.Returns) < 2 {
				continue
			}
			var es []*design.Entity
			for _, n := range r.Pattern.Returns {
				if e := d.Entity(n); e != nil {
					es = append(es, e)
				}
			}
			if distinct(es, func(e *design.Entity) string {
				if e.Discriminator == "" || e.DiscriminatorValue == "" {
					return ""
				}
				return e.Discriminator + "=" + e.DiscriminatorValue
			}) {
				continue
			}
			if len(r.SK) == 1 && distinct(es, func(e *design.Entity) string {
				t, _, _, _ := e.ValueOf(r.SK[0].Name)
				return t.Prefix()
			}) && noPrefixOfAnother(es, r.SK[0].Name) {
				continue
			}
			pass.Reportf(r.Pattern.Pos, design.Error, "pattern %s returns %s, and nothing tells their items apart: give each a discriminator (discriminator: {EntityType: NAME}) or its own sort-key prefix", r.Pattern.ID, strings.Join(r.Pattern.Returns, ", "))
		}
	},
}

// distinct reports whether f gives every entity a non-empty value of its
// own.
func distinct(es []*design.Entity, f func(*design.Entity) string) bool {
	seen := map[string]bool{}
	for _, e := range es {
		v := f(e)
		if v == "" || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// noPrefixOfAnother reports whether no entity's literal sort-key prefix
// is a prefix of another's.
func noPrefixOfAnother(es []*design.Entity, attr string) bool {
	for i, a := range es {
		ta, _, _, _ := a.ValueOf(attr)
		for j, b := range es {
			tb, _, _, _ := b.ValueOf(attr)
			if i != j && strings.HasPrefix(tb.Prefix(), ta.Prefix()) {
				return false
			}
		}
	}
	return true
}
