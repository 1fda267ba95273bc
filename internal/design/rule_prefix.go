package design

import (
	"slices"
	"strings"
)

// keysText renders e's table key templates.
func keysText(d *Design, e *Entity) string {
	var parts []string
	for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
		t, _, _, _ := e.ValueOf(ka.Name)
		parts = append(parts, ka.Name+" = "+t.Text)
	}
	return strings.Join(parts, ", ")
}

// PrefixIsolationRule finds entity types that leak into each other's
// results: on one index, two entities whose partition keys are built
// alike and one of whose sort keys starts with the other's literal
// prefix (ORDER#<OrderId> and ORDER#<OrderId>#ITEM#<n>), so that a
// begins_with query for one returns the other too.
var PrefixIsolationRule = &Rule{
	Name: "prefix-isolation",
	Doc: `A begins_with (or between) on a sort key returns every item whose sort key has
that prefix. When one entity's sort-key prefix is a prefix of another's in
the same item collection (ORDER# and ORDER#ITEM#), a query for one also
returns the other. The rule reports each pattern that would return entity
types it does not expect, and each pair of entities so placed.`,
	Run: func(pass *Pass) {
		d := pass.Design
		for _, r := range d.reads() {
			if slices.ContainsFunc(r.p.Returns, func(n string) bool { return d.Entity(n) == nil }) {
				continue // the templates rule reports the unknown entity
			}
			var leaks []string
			for _, e := range d.Entities {
				if !slices.Contains(r.p.Returns, e.Name) && d.matchEntity(r, e) == certainly {
					leaks = append(leaks, e.Name)
				}
			}
			if len(leaks) > 0 {
				pass.Reportf(r.p.Pos, Error, "pattern %s also returns %s items: %q matches their keys on %s; give each entity type its own sort-key prefix, or expect them (returns) and tell them apart", r.p.ID, strings.Join(leaks, ", "), r.p.KeyCondition, indexLabel(r.index))
			}
		}
		// Entities whose items can have the same primary key: one
		// overwrites the other.
		for i, a := range d.Entities {
			for _, b := range d.Entities[i+1:] {
				same := len(d.Table.PartitionKey) > 0
				for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
					ta, _, _, oka := a.ValueOf(ka.Name)
					tb, _, _, okb := b.ValueOf(ka.Name)
					same = same && oka && okb && ta.Shape() == tb.Shape()
				}
				if same {
					pass.Reportf(b.Pos, Error, "%s and %s items are keyed alike (%s): items of the two with the same values have the same primary key, and one overwrites the other; give each its own sort-key prefix", a.Name, b.Name, keysText(d, b))
				}
			}
		}
		// Pairs of entities on each index.
		indexes := []string{""}
		for _, ix := range d.Table.Indexes {
			indexes = append(indexes, ix.Name)
		}
		for _, index := range indexes {
			pk, sk, _ := d.KeySchema(index)
			if len(sk) == 0 || len(pk) != 1 {
				continue
			}
			for i, a := range d.Entities {
				for _, b := range d.Entities[i+1:] {
					if !d.InIndex(a, index) || !d.InIndex(b, index) {
						continue
					}
					pa, _, _, _ := a.ValueOf(pk[0].Name)
					pb, _, _, _ := b.ValueOf(pk[0].Name)
					if pa.Shape() != pb.Shape() {
						continue
					}
					sa, ka, _, _ := a.ValueOf(sk[0].Name)
					sb, kb, _, _ := b.ValueOf(sk[0].Name)
					shorter, longer, at := sa, sb, kb
					short, long := a, b
					if len(sa.Prefix()) > len(sb.Prefix()) {
						shorter, longer, at, short, long = sb, sa, ka, b, a
					}
					if shorter.Prefix() == "" || !strings.HasPrefix(longer.Prefix(), shorter.Prefix()) {
						continue
					}
					pos := long.Pos
					if at != nil {
						pos = at.Pos
					}
					pass.Reportf(pos, Warning, "on %s, %s's %s %s starts with %s's prefix %q: begins_with %s returns %s items too",
						indexLabel(index), long.Name, sk[0].Name, longer, short.Name, shorter.Prefix(), shorter.Prefix(), long.Name)
				}
			}
		}
	},
}
