package design

import "slices"

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
					pass.Reportf(e.Pos, Error, "entity %s has no %s: every item needs the table's key (add keys: %s: ...)", e.Name, ka.Name, ka.Name)
				}
			}
			for _, k := range e.Keys {
				if !keyAttrs[k.Attr] {
					pass.Reportf(k.Pos, Warning, "entity %s builds %s, which is no key of the table or of an index", e.Name, k.Attr)
				}
				for _, v := range k.Template.Vars() {
					if v == "shard" && k.Shard != nil {
						continue
					}
					if e.Attribute(v) == nil {
						pass.Reportf(k.Pos, Error, "entity %s: %s uses <%s>, which is not one of its attributes", e.Name, k.Attr, v)
					}
				}
				if k.Shard != nil && e.Attribute(k.Shard.By) == nil {
					pass.Reportf(k.Pos, Error, "entity %s: %s is sharded by %s, which is not one of its attributes", e.Name, k.Attr, k.Shard.By)
				}
			}
		}
		for _, p := range d.Patterns {
			for _, name := range slices.Concat(p.Returns, []string{p.Entity}) {
				if name != "" && d.Entity(name) == nil {
					pass.Reportf(p.Pos, Error, "pattern %s names entity %s, which the design does not declare", p.ID, name)
				}
			}
			if p.Index != "" && d.Index(p.Index) == nil {
				pass.Reportf(p.Pos, Error, "pattern %s reads index %s, which the table does not declare", p.ID, p.Index)
			}
		}
	},
}
