package check

import (
	"slices"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/expr"
)

// DynamoDB's size limits.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
const (
	maxItemSize         = 400 * 1024
	maxPartitionKeySize = 2048
	maxSortKeySize      = 1024
)

// LimitsRule checks an entity's estimated item and key sizes against
// DynamoDB's limits, and flags attribute names that are reserved words.
var LimitsRule = &Rule{
	Name: "limits",
	Doc: `An item is at most 400 KB, a partition key value 2,048 bytes, a sort key value
1,024 (estimated from the declared or typical sizes). An attribute whose
name is a DynamoDB reserved word (Status, Name, Type, Date, ...) must be
written #Status in every expression, through ExpressionAttributeNames.`,
	Run: func(pass *Pass) {
		d := pass.Design
		pkAttrs := slices.Concat(d.Table.PartitionKey)
		skAttrs := slices.Concat(d.Table.SortKey)
		for _, ix := range d.Table.Indexes {
			pkAttrs = append(pkAttrs, ix.PartitionKey...)
			skAttrs = append(skAttrs, ix.SortKey...)
		}
		reported := map[string]bool{}
		reserved := func(pos design.Pos, name string) {
			if expr.IsReserved(name) && !reported[name] {
				reported[name] = true
				pass.Reportf(pos, design.Warning, "%s is a DynamoDB reserved word: expressions must name it through ExpressionAttributeNames (#%s)", name, name)
			}
		}
		for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
			reserved(d.Table.Pos, ka.Name)
		}
		for _, ix := range d.Table.Indexes {
			for _, ka := range slices.Concat(ix.PartitionKey, ix.SortKey) {
				reserved(ix.Pos, ka.Name)
			}
		}
		for _, e := range d.Entities {
			if size := d.ItemSize(e); size > maxItemSize {
				pass.Reportf(e.Pos, design.Error, "%s items are about %d bytes: DynamoDB's limit is 400 KB; move the large attributes to S3 or split the item", e.Name, size)
			}
			for _, k := range e.Keys {
				t, _, _, _ := e.ValueOf(k.Attr)
				n := design.TemplateSize(e, t)
				switch {
				case design.HasAttr(pkAttrs, k.Attr) && n > maxPartitionKeySize:
					pass.Reportf(k.Pos, design.Error, "%s's %s is about %d bytes: a partition key value is at most 2,048", e.Name, k.Attr, n)
				case design.HasAttr(skAttrs, k.Attr) && n > maxSortKeySize:
					pass.Reportf(k.Pos, design.Error, "%s's %s is about %d bytes: a sort key value is at most 1,024", e.Name, k.Attr, n)
				}
			}
			if e.Discriminator != "" {
				reserved(e.Pos, e.Discriminator)
			}
			for _, a := range e.Attributes {
				reserved(a.Pos, a.Name)
			}
		}
	},
}
