package check

import (
	"slices"

	"github.com/dynago/dynago/internal/design"
)

// IndexMembershipRule reports which entities land in which index and
// what is odd about it: an index no entity lands in or no pattern reads,
// a key that exists only when an optional attribute is set (sparse by
// accident rather than by declaration), more GSIs than the seeds advise,
// and DynamoDB's hard limits.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
// (20 GSIs, 5 LSIs per table); seeds 000 and 004 (overload GSI1/GSI2;
// few GSIs); https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-indexes-general-sparse-indexes.html
var IndexMembershipRule = &Rule{
	Name: "index-membership",
	Doc: `An item lands in an index only when it has every key attribute of it. The rule
reports an index no entity lands in, one no pattern reads (it costs writes
and storage for nothing), a key built from an optional attribute that is
not declared sparse (items without it silently leave the index), more than
three GSIs (the seeds' advice: overload GSI1/GSI2 instead), and more than 20
GSIs or 5 LSIs (DynamoDB's limits).`,
	Run: func(pass *Pass) {
		d := pass.Design
		gsis, lsis := 0, 0
		for _, ix := range d.Table.Indexes {
			if ix.Local {
				lsis++
			} else {
				gsis++
			}
			in := 0
			for _, e := range d.Entities {
				if d.InIndex(e, ix.Name) {
					in++
				}
			}
			if in == 0 && len(d.Entities) > 0 {
				pass.Reportf(ix.Pos, design.Warning, "no entity lands in index %s: none has all of its key attributes", ix.Name)
			}
			if !slices.ContainsFunc(d.Patterns, func(p *design.Pattern) bool { return p.Index == ix.Name }) {
				pass.Reportf(ix.Pos, design.Warning, "no pattern reads index %s: it costs a write per item change and storage for nothing", ix.Name)
			}
		}
		if gsis > 3 {
			pass.Reportf(d.Table.Pos, design.Warning, "%d GSIs: single-table designs overload two or three (GSI1PK/GSI1SK hold each entity's own values)", gsis)
		}
		if gsis > 20 {
			pass.Reportf(d.Table.Pos, design.Error, "%d GSIs: DynamoDB allows 20 a table", gsis)
		}
		if lsis > 5 {
			pass.Reportf(d.Table.Pos, design.Error, "%d LSIs: DynamoDB allows 5 a table", lsis)
		}
		for _, e := range d.Entities {
			for _, k := range e.Keys {
				if d.IsTableKey(k.Attr) {
					// Every item holds the table's key (API reference,
					// PutItem: "you must provide all of the attributes for
					// the primary key"): no part of it may be optional,
					// and it cannot be sparse.
					if k.Sparse {
						pass.Reportf(k.Pos, design.Error, "%s's %s is a table key attribute, which every item must have: it cannot be sparse; build it from attributes every %s has", e.Name, k.Attr, e.Name)
						continue
					}
					for _, v := range k.Template.Vars() {
						if a := e.Attribute(v); a != nil && a.Optional {
							pass.Reportf(k.Pos, design.Error, "%s's %s, a table key attribute, is built from the optional <%s>: a %s without %s cannot be written (DynamoDB refuses an item without its whole primary key); build %s from attributes every %s has, or make %s required", e.Name, k.Attr, v, e.Name, v, k.Attr, e.Name, v)
							break
						}
					}
					continue
				}
				if k.Sparse {
					continue
				}
				for _, v := range k.Template.Vars() {
					if a := e.Attribute(v); a != nil && a.Optional {
						pass.Reportf(k.Pos, design.Warning, "%s's %s exists only when the optional <%s> is set, so %s items without it are not indexed: declare sparse: true if that is intended", e.Name, k.Attr, v, e.Name)
						break
					}
				}
			}
		}
	},
}
