package design

import (
	"slices"
	"strings"
)

// Read is a read pattern resolved against its index: which conditions
// bind which key attribute.
type Read struct {
	Pattern *Pattern
	Index   string // "" for the table
	PK, SK  []KeyAttr
	// PKConds are the conditions on partition key attributes, SKConds
	// those on sort key attributes, Other those on neither.
	PKConds, SKConds, Other []Condition
}

// Resolve returns p's read on its index; ok is false when the index
// does not exist.
func (d *Design) Resolve(p *Pattern) (r Read, ok bool) {
	r = Read{Pattern: p, Index: p.Index}
	r.PK, r.SK, ok = d.KeySchema(p.Index)
	if !ok {
		return r, false
	}
	for _, c := range p.Conditions {
		switch {
		case HasAttr(r.PK, c.Attr):
			r.PKConds = append(r.PKConds, c)
		case HasAttr(r.SK, c.Attr):
			r.SKConds = append(r.SKConds, c)
		default:
			r.Other = append(r.Other, c)
		}
	}
	return r, true
}

// HasAttr reports whether the key schema ks has an attribute named name.
func HasAttr(ks []KeyAttr, name string) bool {
	return slices.ContainsFunc(ks, func(k KeyAttr) bool { return k.Name == name })
}

// Match says whether an entity's items can be among a read's results:
// Never, Maybe (its templates allow it) or Certainly (every item of the
// partition the read names that has its key shape is returned).
type Match int

// The matches, from none to all.
const (
	Never Match = iota
	Maybe
	Certainly
)

// MatchEntity decides whether e's items can answer r.
func (d *Design) MatchEntity(r Read, e *Entity) Match {
	if !d.InIndex(e, r.Index) {
		return Never
	}
	m := Certainly
	for _, c := range r.PKConds {
		t, _, _, _ := e.ValueOf(c.Attr)
		if c.Op != "=" {
			return Never
		}
		switch may, certain := Unify(c.Values[0], t, e); {
		case !may:
			return Never
		case !certain:
			m = Maybe
		}
	}
	for _, c := range r.SKConds {
		t, _, _, _ := e.ValueOf(c.Attr)
		switch c.Op {
		case "=":
			switch may, certain := Unify(c.Values[0], t, e); {
			case !may:
				return Never
			case !certain || !t.Constant():
				m = Maybe
			}
		case "begins_with":
			switch {
			case t.AlwaysStartsWith(c.Values[0]):
			case t.MayStartWith(c.Values[0]):
				m = Maybe
			default:
				return Never
			}
		case "between":
			common := commonPrefix(c.Values[0].Prefix(), c.Values[1].Prefix())
			lit := Template{Parts: []Part{{Literal: common}}, Text: common}
			switch {
			case common == "":
				m = Maybe
			case t.AlwaysStartsWith(lit):
			case t.MayStartWith(lit):
				m = Maybe
			default:
				return Never
			}
		default:
			// <, <=, >, >=: a literal prefix that parts from the bound's
			// before either ends settles it (PROFILE > ORDER#...).
			a, b := t.Prefix(), c.Values[0].Prefix()
			if a == "" || strings.HasPrefix(a, b) || strings.HasPrefix(b, a) {
				m = Maybe
				break
			}
			if above := a > b; above != (c.Op == ">" || c.Op == ">=") {
				return Never
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

// Reads returns the design's read patterns resolved (those on a missing
// index are left out: the key-condition rule reports them).
func (d *Design) Reads() []Read {
	var out []Read
	for _, p := range d.Patterns {
		if p.Kind != "read" || p.Operation == "Scan" || p.Multi() {
			continue
		}
		if r, ok := d.Resolve(p); ok {
			out = append(out, r)
		}
	}
	return out
}
