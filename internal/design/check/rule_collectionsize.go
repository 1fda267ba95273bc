package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// maxCollectionSize is DynamoDB's limit on one item collection (a
// partition key value's items and their LSI entries) of a table with a
// local secondary index: 10 GB.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.ItemCollections.SizeLimit
const maxCollectionSize = 10 << 30

// CollectionSizeRule computes, on a table with a local index, the
// largest item collection the workload implies: per partition key
// template, each entity's items per key value (workload.items over the
// key's values, which come from declared values or parent counts, the
// busiest value's share by workload.skew), times the item's size and its
// entries in each LSI. Past 10 GB the collection cannot grow: DynamoDB
// refuses the write.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.ItemCollections.SizeLimit
// ("Item collection size limit"), and ItemCollectionMetrics
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ItemCollectionMetrics.html:
// the size counts the table's items and the attributes projected into
// every LSI).
var CollectionSizeRule = &Rule{
	Name: "collection-size",
	Doc: `A table with a local secondary index caps each item collection (one partition
key value's items with their LSI entries) at 10 GB; a write that would grow
one past it fails with ItemCollectionSizeLimitExceededException, and no
support request lifts it. From workload.items, each key's values (declared,
or a parent's item count: 50 M orders over 1 M customers), workload.skew
(the busiest value's share, taken for its items too) and the item and LSI
entry sizes, the rule estimates the largest collection of each partition
key template (without per-item overhead) and reports one over 10 GB. Without
item counts it warns that the limit applies.`,
	Run: func(pass *Pass) {
		d := pass.Design
		var lsis []*design.Index
		for _, ix := range d.Table.Indexes {
			if ix.Local {
				lsis = append(lsis, ix)
			}
		}
		if len(lsis) == 0 || len(d.Table.PartitionKey) == 0 {
			return
		}
		pk := d.Table.PartitionKey
		var templates []string
		groups := map[string][]*design.Entity{}
		for _, e := range d.Entities {
			t, _, _, ok := e.ValueOf(pk[0].Name)
			if !ok {
				continue
			}
			if _, seen := groups[t.Text]; !seen {
				templates = append(templates, t.Text)
			}
			groups[t.Text] = append(groups[t.Text], e)
		}
		var uncounted, unvalued []string
		for _, text := range templates {
			u, v := checkCollection(pass, lsis, text, groups[text])
			uncounted, unvalued = append(uncounted, u...), append(unvalued, v...)
		}
		var missing []string
		if len(uncounted) > 0 {
			missing = append(missing, "workload.items for "+strings.Join(uncounted, ", "))
		}
		if len(unvalued) > 0 {
			missing = append(missing, "how many values "+strings.Join(unvalued, ", ")+" take (cardinality:, or a parent entity counted in workload.items)")
		}
		if len(missing) > 0 {
			pass.Reportf(d.Table.Pos, design.Warning, "with a local index (%s), each partition key's items and their LSI entries are limited to 10 GB: to check the largest item collection, give %s", indexList(lsis), strings.Join(missing, ", and "))
		}
	},
}

// checkCollection estimates the largest collection of one partition key
// template, shared by es, and reports it past the limit; it returns the
// entities the workload does not count, and the key variables whose
// number of values is unknown.
func checkCollection(pass *Pass, lsis []*design.Index, text string, es []*design.Entity) (uncounted, unvalued []string) {
	d := pass.Design
	pk := d.Table.PartitionKey
	var total float64
	var parts, vars []string
	var biggest *design.Entity
	most := -1.0
	for _, e := range es {
		items, ok := d.Workload.Items[e.Name]
		if !ok {
			uncounted = append(uncounted, e.Name)
			continue
		}
		conds := keyConds(e, pk)
		values := d.KeyValues(e, conds)
		_, share, variable := d.Spread(e, conds)
		if share == 0 {
			if values == 0 {
				for _, v := range conds[0].Values[0].Vars() {
					if d.Cardinality(e, v) == 0 {
						unvalued = append(unvalued, e.Name+"'s <"+v+">")
					}
				}
				continue
			}
			share = 1 / values
		}
		if variable != "" && !slices.Contains(vars, variable) {
			vars = append(vars, variable)
		}
		per := d.ItemSize(e)
		entry := 0
		var in []string
		for _, ix := range lsis {
			if d.InIndex(e, ix.Name) {
				entry += d.ProjectedSize(e, ix.Name)
				in = append(in, ix.Name)
			}
		}
		// The busiest value's share of the items, as of the requests
		// (a customer who orders more holds more orders); a parent
		// holds its one item a value however skewed its requests.
		n := items * share
		if values > 0 && items <= values {
			n = items / values
		}
		bytes := n * float64(per+entry)
		total += bytes
		noun := " items"
		if countText(n) == "1" {
			noun = " item"
		}
		part := fmt.Sprintf("%s %s%s of %d bytes", countText(n), e.Name, noun, per)
		if len(in) > 0 {
			part += fmt.Sprintf(" with %d bytes in %s", entry, strings.Join(in, " and "))
		}
		parts = append(parts, part)
		if bytes > most {
			most, biggest = bytes, e
		}
	}
	if total <= maxCollectionSize || biggest == nil {
		return uncounted, unvalued
	}
	pos := biggest.Pos
	if k := biggest.Key(pk[0].Name); k != nil {
		pos = k.Pos
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name
	}
	busiest := "each value"
	if len(vars) > 0 {
		busiest = "its busiest " + strings.Join(vars, ", ")
	}
	pass.Reportf(pos, design.Error, "item collection %s = %s (%s) holds about %.1f GB for %s: %s (workload.items and workload.skew); a table with a local index caps each item collection at 10 GB, and writes to a full one fail with ItemCollectionSizeLimitExceededException: make %s a global index (no size limit), or split the collection (a bucket in the partition key)",
		pk[0].Name, text, strings.Join(names, ", "), total/(1<<30), busiest, strings.Join(parts, ", "), indexList(lsis))
	return uncounted, unvalued
}

// countText writes an item count for messages: 3.5 M, 50, 1.2 k.
func countText(n float64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f M", n/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.0f k", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}

func indexList(ixs []*design.Index) string {
	names := make([]string, len(ixs))
	for i, ix := range ixs {
		names[i] = ix.Name
	}
	return strings.Join(names, ", ")
}
