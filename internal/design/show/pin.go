package show

import (
	"slices"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/sample"
)

// The file's parts a finding can be about, by the line it starts on.
type part struct {
	line    int
	entity  *design.Entity
	pattern *design.Pattern
	index   *design.Index
}

// parts are the design's entities, patterns and indexes, and the table
// and workload (which pin nothing), in line order.
func parts(d *design.Design) []part {
	ps := []part{{line: d.Table.Pos.Line}}
	for _, ix := range d.Table.Indexes {
		ps = append(ps, part{line: ix.Pos.Line, index: ix})
	}
	for _, e := range d.Entities {
		ps = append(ps, part{line: e.Pos.Line, entity: e})
	}
	for _, p := range d.Patterns {
		ps = append(ps, part{line: p.Pos.Line, pattern: p})
	}
	if d.Workload.Pos.Line > 0 {
		ps = append(ps, part{line: d.Workload.Pos.Line})
	}
	slices.SortStableFunc(ps, func(a, b part) int { return a.line - b.line })
	return ps
}

// pin pins finding number n (dg) to the rows and views it concerns (see
// Build) and returns how many rows it is on.
func pin(d *design.Design, p *Picture, rowsOf map[*View]map[*sample.Item]*Row, items []sample.Item, dg design.Diagnostic, n int) int {
	var at part
	for _, pt := range parts(d) {
		if pt.line > 0 && pt.line <= dg.Line {
			at = pt
		}
	}
	count := 0
	mark := func(v *View, keep func(it *sample.Item, r *Row) bool) {
		for i := range items {
			it := &items[i]
			if r, ok := rowsOf[v][it]; ok && keep(it, r) {
				r.Findings = append(r.Findings, n)
				count++
			}
		}
	}
	view := func(index string) *View {
		for _, v := range p.Views {
			if v.Index == index {
				return v
			}
		}
		return nil
	}
	of := func(e *design.Entity) func(*sample.Item, *Row) bool {
		return func(it *sample.Item, _ *Row) bool { return it.Entity == e }
	}
	switch {
	case at.index != nil:
		if v := view(at.index.Name); v != nil {
			v.Findings = append(v.Findings, n)
		}
	case at.entity != nil:
		var key *design.Key
		for _, k := range at.entity.Keys {
			if k.Pos.Line == dg.Line {
				key = k
			}
		}
		if key == nil {
			if v := view(""); v != nil {
				mark(v, of(at.entity))
			}
			break
		}
		for _, v := range p.Views {
			if slices.Contains(v.PK, key.Attr) || slices.Contains(v.SK, key.Attr) {
				mark(v, of(at.entity))
			}
		}
	case at.pattern != nil && at.pattern.Kind == "write":
		if v, e := view(""), d.Entity(at.pattern.Entity); v != nil && e != nil {
			mark(v, of(e))
		}
	case at.pattern != nil:
		v := view(at.pattern.Index)
		if v == nil {
			break
		}
		part, ok := readPartition(d, at.pattern, v, rowsOf[v], items)
		if !ok {
			v.Findings = append(v.Findings, n)
			break
		}
		mark(v, func(it *sample.Item, r *Row) bool {
			return slices.Equal(r.PK, part) && slices.Contains(at.pattern.Returns, it.Entity.Name)
		})
	}
	return count
}

// readPartition is the partition key value that read p asks for with
// the values of the first generated item it should find (one of an
// entity it returns, in v, whose partition key the pattern's =
// conditions build from its values).
func readPartition(d *design.Design, p *design.Pattern, v *View, rows map[*sample.Item]*Row, items []sample.Item) ([]string, bool) {
	r, ok := d.Resolve(p)
	if !ok || len(r.PKConds) == 0 {
		return nil, false
	}
	for i := range items {
		it := &items[i]
		row, in := rows[it]
		if !in || !slices.Contains(p.Returns, it.Entity.Name) {
			continue
		}
		match := true
		for _, c := range r.PKConds {
			if len(c.Values) == 0 {
				match = false
				break
			}
			s, err := c.Values[0].Render(it.Vals)
			match = match && c.Op == "=" && err == nil && s == it.Attrs[c.Attr].Text
		}
		if match {
			return row.PK, true
		}
	}
	return nil, false
}
