package check

import (
	"fmt"
	"slices"

	"github.com/dynago/dynago/internal/design"
)

// NamesRule finds one key spelled two ways: entities that build keys of
// the same shape from variables whose names differ only in case or '_'
// (USER#<userId> and USER#<UserId>), and patterns whose key writes a
// variable that way against the entity they read (PK = USER#<userId>
// for a User built from <UserId>). Each spelling is an attribute of its
// own: the generated items, code and samples keep them apart, and an
// item collection meant to hold both holds one.
var NamesRule = &Rule{
	Name: "names",
	Doc: `A variable is an attribute name, and names are case-sensitive: USER#<userId> and
USER#<UserId> are two attributes, so items meant for one item collection are
written under two spellings of their key, and a pattern that writes <userId>
for a User built from <UserId> names a value the item does not have. The
rule reports keys of one shape whose variables differ only in case or '_'
(an error when a pattern reads the two entities together), and a pattern's
variable that misspells the one the entity builds its key from, with "did
you mean". Unknown names elsewhere (a template variable that is no
attribute, an unknown entity or index) get "did you mean" from the
templates rule.`,
	Run: func(pass *Pass) {
		d := pass.Design
		checkEntitySpellings(pass)
		for _, r := range d.Reads() {
			checkPatternSpellings(pass, r)
		}
	},
}

// spelling is one variable of one entity's key template.
type spelling struct {
	e   *design.Entity
	k   *design.Key
	v   string
	pos int
}

// checkEntitySpellings groups the key templates' variables by their
// name folded (case and '_' ignored); where a group has two spellings,
// the more used one (the first on a tie) is taken as meant, and each key
// spelling it otherwise is reported against a key of the same shape
// that spells it so.
func checkEntitySpellings(pass *Pass) {
	d := pass.Design
	var all []spelling
	count := map[string]int{}
	for _, e := range d.Entities {
		for _, k := range e.Keys {
			for i, p := range k.Template.Parts {
				if p.Var != "" && p.Var != "shard" {
					all = append(all, spelling{e, k, p.Var, i})
					count[p.Var]++
				}
			}
		}
	}
	reported := map[*design.Key]bool{}
	for _, s := range all {
		for _, o := range all {
			if !sameName(s.v, o.v) || count[o.v] < count[s.v] || count[o.v] == count[s.v] && !firstSeen(all, o.v, s.v) {
				continue // o is not the spelling meant
			}
			if reported[s.k] || o.e == s.e || o.k.Template.Shape() != s.k.Template.Shape() || o.pos != s.pos || s.e.Attribute(o.v) != nil {
				continue
			}
			reported[s.k] = true
			sev, together := design.Warning, ""
			if id := readTogether(d, s.e, o.e); id != "" {
				sev, together = design.Error, fmt.Sprintf(" (pattern %s reads them together)", id)
			}
			pass.Reportf(s.k.Pos, sev, "%s builds %s = %s and %s builds %s = %s: the same key spelled two ways, <%s> and <%s>, which are two attributes, so their items land under different keys%s; name the attribute %s in both (did you mean <%s>?)",
				s.e.Name, s.k.Attr, s.k.Template, o.e.Name, o.k.Attr, o.k.Template, s.v, o.v, together, o.v, o.v)
		}
	}
}

// firstSeen reports whether spelling a comes before b in all.
func firstSeen(all []spelling, a, b string) bool {
	for _, s := range all {
		switch s.v {
		case a:
			return true
		case b:
			return false
		}
	}
	return false
}

// readTogether returns the id of a read pattern that returns both a and
// b, or "".
func readTogether(d *design.Design, a, b *design.Entity) string {
	for _, p := range d.Patterns {
		if p.Kind == "read" && slices.Contains(p.Returns, a.Name) && slices.Contains(p.Returns, b.Name) {
			return p.ID
		}
	}
	return ""
}

// checkPatternSpellings reports a variable of r's key equality or
// prefix that is no attribute of a returned entity but misspells the one
// the entity builds that key from.
func checkPatternSpellings(pass *Pass, r design.Read) {
	d := pass.Design
	reported := map[string]bool{}
	for _, c := range slices.Concat(r.PKConds, r.SKConds) {
		if c.Op != "=" && c.Op != "begins_with" {
			continue // range bounds are named for what they bound (<FromOrderId>)
		}
		for _, name := range r.Pattern.Returns {
			e := d.Entity(name)
			if e == nil {
				continue
			}
			t, _, _, ok := e.ValueOf(c.Attr)
			if !ok {
				continue
			}
			for _, v := range c.Values {
				for _, pv := range v.Vars() {
					if reported[pv] || slices.ContainsFunc(r.Pattern.Returns, func(n string) bool {
						o := d.Entity(n)
						return o != nil && o.Attribute(pv) != nil
					}) {
						continue // a returned entity has it: the entities' spellings are the odd ones
					}
					want := closest(pv, t.Vars())
					if want == "" || want == "shard" {
						continue
					}
					reported[pv] = true
					pass.Reportf(r.Pattern.KeyPos, design.Error, "pattern %s writes <%s> in %s, but %s builds %s = %s from <%s>: %s has no attribute %s, so the caller's value has no name in the item (did you mean <%s>?)",
						r.Pattern.ID, pv, c, e.Name, c.Attr, t, want, e.Name, pv, want)
				}
			}
		}
	}
}
