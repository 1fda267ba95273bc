package check

import (
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// mayCollide reports whether a value of ta (of entity a) can equal one
// of tb (of b): both built alike, part for part, and no variable pair
// whose declared values are disjoint (UP#<id> never equals FLAG#<id>).
func mayCollide(ta design.Template, a *design.Entity, tb design.Template, b *design.Entity) bool {
	if ta.Shape() != tb.Shape() {
		return false
	}
	for i, pa := range ta.Parts {
		pb := tb.Parts[i]
		if pa.Var == "" {
			continue
		}
		va, vb := declaredValues(a, pa), declaredValues(b, pb)
		if va == nil || vb == nil {
			continue
		}
		if !slices.ContainsFunc(va, func(v string) bool { return slices.Contains(vb, v) }) {
			return false
		}
	}
	return true
}

// declaredValues returns the values a variable part writes, as
// formatted, when its attribute declares them (nil: any).
func declaredValues(e *design.Entity, p design.Part) []string {
	a := e.Attribute(p.Var)
	if a == nil || len(a.Values) == 0 {
		return nil
	}
	out := make([]string, len(a.Values))
	for i, v := range a.Values {
		switch p.Case {
		case "upper":
			v = strings.ToUpper(v)
		case "lower":
			v = strings.ToLower(v)
		}
		out[i] = v
	}
	return out
}

// keysText renders e's table key templates.
func keysText(d *design.Design, e *design.Entity) string {
	var parts []string
	for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
		t, _, _, _ := e.ValueOf(ka.Name)
		parts = append(parts, ka.Name+" = "+t.Text)
	}
	return strings.Join(parts, ", ")
}

// PrefixIsolationRule finds entity types that leak into each other's
// results: a pattern whose key condition (a begins_with, a between, a
// range) certainly also matches another entity's keys in the partition
// it reads (ORDER#<OrderId> and ORDER#<OrderId>#ITEM#<n> under one
// partition key, begins_with ORDER#), and entity types keyed alike,
// whose items overwrite each other.
var PrefixIsolationRule = &Rule{
	Name: "prefix-isolation",
	Doc: `A begins_with (or between, or a range) on a sort key returns every item whose
sort key falls in it. When one entity's sort-key prefix is a prefix of
another's in the same item collection (ORDER# and ORDER#ITEM#), a query for
one also returns the other. The rule reports each pattern that would
return entity types it does not expect, and entity types whose items can
have the same primary key (one overwrites the other).`,
	Run: func(pass *Pass) {
		d := pass.Design
		for _, r := range d.Reads() {
			if slices.ContainsFunc(r.Pattern.Returns, func(n string) bool { return d.Entity(n) == nil }) {
				continue // the templates rule reports the unknown entity
			}
			var leaks []string
			for _, e := range d.Entities {
				if !slices.Contains(r.Pattern.Returns, e.Name) && d.MatchEntity(r, e) == design.Certainly {
					leaks = append(leaks, e.Name)
				}
			}
			if len(leaks) > 0 {
				pass.Reportf(r.Pattern.Pos, design.Error, "pattern %s also returns %s items: %q matches their keys on %s; give each entity type its own sort-key prefix, or expect them (returns) and tell them apart", r.Pattern.ID, strings.Join(leaks, ", "), r.Pattern.KeyCondition, indexLabel(r.Index))
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
					same = same && oka && okb && mayCollide(ta, a, tb, b)
				}
				if same {
					pass.Reportf(b.Pos, design.Error, "%s (%s) and %s (%s) are keyed alike: items of the two with the same values have the same primary key, and one overwrites the other; give each its own sort-key prefix", a.Name, keysText(d, a), b.Name, keysText(d, b))
				}
			}
		}

	},
}
