package check

import (
	"fmt"
	"slices"

	"github.com/dynago/dynago/internal/design"
)

// keyTypes are the attribute types that fit a key attribute of each
// type: an N key takes a number, a B key binary; an S key any text.
var keyTypes = map[string][]string{"N": {"N", "epoch"}, "B": {"B"}, "S": {"S", "timestamp"}}

// checkKeyTypes checks that e fills each key attribute with a value of
// its type: a Number or Binary key only from one attribute of that type,
// a String key not from one number or binary attribute alone.
func checkKeyTypes(pass *Pass, e *design.Entity) {
	d := pass.Design
	all := slices.Concat(d.Table.PartitionKey, d.Table.SortKey)
	for _, ix := range d.Table.Indexes {
		all = append(all, ix.PartitionKey...)
		all = append(all, ix.SortKey...)
	}
	done := map[string]bool{}
	for _, ka := range all {
		if done[ka.Name] {
			continue
		}
		done[ka.Name] = true
		t, k, _, ok := e.ValueOf(ka.Name)
		if !ok {
			continue
		}
		pos := e.Pos
		if k != nil {
			pos = k.Pos
		} else if a := e.Attribute(ka.Name); a != nil {
			pos = a.Pos
		}
		vars := t.Vars()
		lone := len(t.Parts) == 1 && len(vars) == 1
		switch {
		case ka.Type != "S" && !lone:
			pass.Reportf(pos, design.Error, "%s is a %s key, so %s must fill it from one %s attribute alone, not %s", ka.Name, typeName(ka.Type), e.Name, typeName(ka.Type), t)
		case lone && (k == nil || ka.Type != "S"):
			// An attribute used as the key itself must have the key's
			// type; a template renders text for a String key.
			a := e.Attribute(vars[0])
			if a != nil && !slices.Contains(keyTypes[ka.Type], a.Type) {
				pass.Reportf(pos, design.Error, "%s is a %s key, but %s fills it from %s, which is %s", ka.Name, typeName(ka.Type), e.Name, a.Name, a.Type)
			}
		}
	}
}

func typeName(t string) string {
	switch t {
	case "N":
		return "Number"
	case "B":
		return "Binary"
	}
	return fmt.Sprintf("String (%s)", t)
}

// TemplatesRule checks that the design is whole: every entity has the
// table's key, every template variable is one of its attributes, every
// key attribute it builds is a key of the table or an index, and the
// names patterns use exist.
var TemplatesRule = &Rule{
	Name: "templates",
	Doc: `Every item needs the table's key; a key template may only use the entity's
attributes (and <shard> through a shard rule); an entity key that is no
key of the table or of an index is never indexed; patterns must name
existing entities and indexes.`,
	Run: func(pass *Pass) {
		d := pass.Design
		keyAttrs := map[string]bool{}
		for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
			keyAttrs[ka.Name] = true
		}
		for _, ix := range d.Table.Indexes {
			for _, ka := range slices.Concat(ix.PartitionKey, ix.SortKey) {
				keyAttrs[ka.Name] = true
			}
		}
		for _, e := range d.Entities {
			for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
				if _, _, _, ok := e.ValueOf(ka.Name); !ok {
					pass.Reportf(e.Pos, design.Error, "entity %s has no %s: every item needs the table's key (add keys: %s: ...)", e.Name, ka.Name, ka.Name)
				}
			}
			for _, k := range e.Keys {
				if !keyAttrs[k.Attr] {
					pass.Reportf(k.Pos, design.Warning, "entity %s builds %s, which is no key of the table or of an index", e.Name, k.Attr)
				}
				for _, v := range k.Template.Vars() {
					if v == "shard" && k.Shard != nil {
						continue
					}
					if e.Attribute(v) == nil {
						pass.Reportf(k.Pos, design.Error, "entity %s: %s uses <%s>, which is not one of its attributes%s", e.Name, k.Attr, v, didYouMean("<"+v+">", varNames(e)))
					}
				}
				if k.Shard != nil && e.Attribute(k.Shard.By) == nil {
					pass.Reportf(k.Pos, design.Error, "entity %s: %s is sharded by %s, which is not one of its attributes%s", e.Name, k.Attr, k.Shard.By, didYouMean(k.Shard.By, attrNames(e)))
				}
				for _, part := range k.Template.Parts {
					if a := e.Attribute(part.Var); a != nil && part.Width > 0 && a.Type != "N" && a.Type != "epoch" {
						pass.Reportf(k.Pos, design.Error, "entity %s: %s writes <%s:0%dd>, a fixed-width number, but %s is %s", e.Name, k.Attr, part.Var, part.Width, part.Var, a.Type)
					}
				}
			}
			checkKeyTypes(pass, e)
		}
		if ttl := d.Table.TTL; ttl != "" {
			found := false
			for _, e := range d.Entities {
				if a := e.Attribute(ttl); a != nil {
					found = true
					if a.Type != "epoch" && a.Type != "N" {
						pass.Reportf(a.Pos, design.Error, "%s is the table's TTL attribute, but %s declares it %s: DynamoDB expires only items whose TTL attribute is a Number of epoch seconds (declare it epoch)", ttl, e.Name, a.Type)
					}
				}
			}
			if !found {
				pass.Reportf(d.Table.TTLPos, design.Warning, "the TTL attribute %s is no entity's attribute: no item will ever expire", ttl)
			}
		}
		for _, p := range d.Patterns {
			names := slices.Concat(p.Returns, []string{p.Entity})
			if p.Multi() {
				names = nil // the actions name them
			}
			for _, name := range names {
				if name != "" && d.Entity(name) == nil {
					pass.Reportf(p.Pos, design.Error, "pattern %s names entity %s, which the design does not declare%s", p.ID, name, didYouMean(name, entityNames(d)))
				}
			}
			for i, a := range p.Actions {
				if a.Entity != "" && d.Entity(a.Entity) == nil {
					pass.Reportf(a.Pos, design.Error, "pattern %s: action %d names entity %s, which the design does not declare%s", p.ID, i+1, a.Entity, didYouMean(a.Entity, entityNames(d)))
				}
			}
			if p.Index != "" && d.Index(p.Index) == nil {
				pass.Reportf(p.Pos, design.Error, "pattern %s reads index %s, which the table does not declare%s", p.ID, p.Index, didYouMean(p.Index, indexNames(d)))
			}
		}
	},
}

// attrNames are e's attribute names.
func attrNames(e *design.Entity) []string {
	var out []string
	for _, a := range e.Attributes {
		out = append(out, a.Name)
	}
	return out
}

// varNames are e's attribute names as template variables, <Name>.
func varNames(e *design.Entity) []string {
	out := attrNames(e)
	for i, n := range out {
		out[i] = "<" + n + ">"
	}
	return out
}

func entityNames(d *design.Design) []string {
	var out []string
	for _, e := range d.Entities {
		out = append(out, e.Name)
	}
	return out
}

func indexNames(d *design.Design) []string {
	var out []string
	for _, ix := range d.Table.Indexes {
		out = append(out, ix.Name)
	}
	return out
}
