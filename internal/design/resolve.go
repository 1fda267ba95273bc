package design

import (
	"slices"
	"strings"
)

// read is a read pattern resolved against its index: which conditions
// bind which key attribute.
type read struct {
	p      *Pattern
	index  string // "" for the table
	pk, sk []KeyAttr
	// pkConds are the conditions on partition key attributes, skConds
	// those on sort key attributes, other those on neither.
	pkConds, skConds, other []Condition
}

// resolve returns p's read on its index; ok is false when the index
// does not exist.
func (d *Design) resolve(p *Pattern) (r read, ok bool) {
	r = read{p: p, index: p.Index}
	r.pk, r.sk, ok = d.KeySchema(p.Index)
	if !ok {
		return r, false
	}
	for _, c := range p.Conditions {
		switch {
		case hasAttr(r.pk, c.Attr):
			r.pkConds = append(r.pkConds, c)
		case hasAttr(r.sk, c.Attr):
			r.skConds = append(r.skConds, c)
		default:
			r.other = append(r.other, c)
		}
	}
	return r, true
}

func hasAttr(ks []KeyAttr, name string) bool {
	return slices.ContainsFunc(ks, func(k KeyAttr) bool { return k.Name == name })
}

// match says whether an entity's items can be among a read's results:
// never, maybe (its templates allow it) or certainly (every item of the
// partition the read names that has its key shape is returned).
type match int

const (
	never match = iota
	maybe
	certainly
)

// matchEntity decides whether e's items can answer r.
func (d *Design) matchEntity(r read, e *Entity) match {
	if !d.InIndex(e, r.index) {
		return never
	}
	m := certainly
	for _, c := range r.pkConds {
		t, _, _, _ := e.ValueOf(c.Attr)
		if c.Op != "=" {
			return never
		}
		switch may, certain := Unify(c.Values[0], t, e); {
		case !may:
			return never
		case !certain:
			m = maybe
		}
	}
	for _, c := range r.skConds {
		t, _, _, _ := e.ValueOf(c.Attr)
		switch c.Op {
		case "=":
			switch may, certain := Unify(c.Values[0], t, e); {
			case !may:
				return never
			case !certain || !t.Constant():
				m = maybe
			}
		case "begins_with":
			switch {
			case t.AlwaysStartsWith(c.Values[0]):
			case t.MayStartWith(c.Values[0]):
				m = maybe
			default:
				return never
			}
		case "between":
			common := commonPrefix(c.Values[0].Prefix(), c.Values[1].Prefix())
			lit := Template{Parts: []Part{{Literal: common}}, Text: common}
			switch {
			case common == "":
				m = maybe
			case t.AlwaysStartsWith(lit):
			case t.MayStartWith(lit):
				m = maybe
			default:
				return never
			}
		default:
			// <, <=, >, >=: a literal prefix that parts from the bound's
			// before either ends settles it (PROFILE > ORDER#...).
			a, b := t.Prefix(), c.Values[0].Prefix()
			if a == "" || strings.HasPrefix(a, b) || strings.HasPrefix(b, a) {
				m = maybe
				break
			}
			if above := a > b; above != (c.Op == ">" || c.Op == ">=") {
				return never
			}
		}
	}
	return m
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

// reads returns the design's read patterns resolved (those on a missing
// index are left out: the key-condition rule reports them).
func (d *Design) reads() []read {
	var out []read
	for _, p := range d.Patterns {
		if p.Kind != "read" || p.Operation == "Scan" {
			continue
		}
		if r, ok := d.resolve(p); ok {
			out = append(out, r)
		}
	}
	return out
}
