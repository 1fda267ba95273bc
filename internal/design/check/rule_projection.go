package check

import (
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// ProjectionRule checks that an index read gets the attributes the
// pattern needs: a KEYS_ONLY or INCLUDE index returns only the table's
// and the index's keys plus the included attributes.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Projections
var ProjectionRule = &Rule{
	Name: "projection",
	Doc: `A GSI returns only what it projects: the table and index keys, plus all
attributes (ALL) or the INCLUDE list. A pattern whose needs are not
projected must fetch each item again from the table (a GetItem per item),
or the index must project them. An LSI can fetch them, at extra read cost.`,
	Run: func(pass *Pass) {
		d := pass.Design
		for _, p := range d.Patterns {
			ix := d.Index(p.Index)
			if ix == nil || ix.Projection == "ALL" || len(p.Needs) == 0 {
				continue
			}
			projected := map[string]bool{}
			for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey, ix.PartitionKey, ix.SortKey) {
				projected[ka.Name] = true
			}
			for _, a := range ix.Include {
				projected[a] = true
			}
			var missing []string
			for _, n := range p.Needs {
				if !projected[n] {
					missing = append(missing, n)
				}
			}
			if len(missing) == 0 {
				continue
			}
			if ix.Local {
				pass.Reportf(p.Pos, design.Warning, "pattern %s needs %s, which LSI %s does not project: each item is fetched from the table, at extra read cost", p.ID, strings.Join(missing, ", "), ix.Name)
				continue
			}
			pass.Reportf(p.Pos, design.Error, "pattern %s needs %s, which index %s (%s) does not project: add them to its projection, or fetch each item from the table", p.ID, strings.Join(missing, ", "), ix.Name, ix.Projection)
		}
	},
}
