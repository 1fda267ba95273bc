package check

import (
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// WritePathRule checks that an update keeps every key true: an
// UpdateItem that changes an attribute a key template uses must also set
// every key built from it, or the item stays indexed under its old value.
var WritePathRule = &Rule{
	Name: "write-path",
	Doc: `Keys are copies: GSI1SK = STATUS#<Status>#<CreatedAt> holds Status twice. An
UpdateItem that sets Status must set GSI1SK too, or queries by status find
the item under its old one. Changing a variable of the table's own key is
no update at all: the item must be deleted and put again.`,
	Run: func(pass *Pass) {
		d := pass.Design
		tableKey := slices.Concat(d.Table.PartitionKey, d.Table.SortKey)
		for _, p := range d.Writes() {
			if p.Operation != "UpdateItem" {
				continue
			}
			e := d.Entity(p.Entity)
			if e == nil {
				continue
			}
			for _, u := range p.Updates {
				if e.Attribute(u) == nil && e.Key(u) == nil && u != e.Discriminator {
					pass.Reportf(p.Pos, design.Error, "pattern %s updates %s, which is neither an attribute nor a key of %s", p.ID, u, e.Name)
				}
			}
			for _, k := range e.Keys {
				var changed []string
				for _, v := range k.Template.Vars() {
					if slices.Contains(p.Updates, v) {
						changed = append(changed, v)
					}
				}
				if k.Shard != nil && slices.Contains(p.Updates, k.Shard.By) {
					changed = append(changed, k.Shard.By)
				}
				if len(changed) == 0 {
					continue
				}
				switch {
				case design.HasAttr(tableKey, k.Attr):
					pass.Reportf(p.Pos, design.Error, "pattern %s updates %s, part of the table key %s = %s: an item's key cannot change; delete it and put it again (in one TransactWriteItems)", p.ID, strings.Join(changed, ", "), k.Attr, k.Template)
				case !slices.Contains(p.Updates, k.Attr):
					field := "updates"
					if p.Action != nil {
						field = "the action's set"
					}
					pass.Reportf(p.Pos, design.Error, "pattern %s updates %s but not %s = %s, which is built from it: the item stays indexed under its old value (add %s to %s)", p.ID, strings.Join(changed, ", "), k.Attr, k.Template, k.Attr, field)
				}
			}
		}
	},
}
