package console

import (
	"cmp"
	"slices"
)

// ItemTable is items laid out for the "items" fragment
// (templates/shared.html): one column per attribute name, keys first.
type ItemTable struct {
	Columns []string
	Rows    [][]Cell
	// Items are the items, in DynamoDB JSON, as the rows show them.
	Items []Item
	// Open, when set, is each row's link to open its item.
	Open []string
	// Empty is what an empty table says ("" : "No items.").
	Empty string
	// Hidden counts the attribute names left out of Columns (see
	// itemTableMaxCells); Names is how many the items have.
	Hidden, Names int
}

// itemTableMaxCells bounds the cells an ItemTable lays out, and
// itemTableMaxColumns its columns. A page's cells are its items times the
// different attribute names they have, which for items that each have
// names of their own (a page of 3,000 such items: 9 million cells, a
// 180 MB page) would take the server's memory: past either bound the
// names fewest items have are left out, the key attributes never.
const (
	itemTableMaxCells   = 200_000
	itemTableMaxColumns = 200
)

// NewItemTable lays out items with the key attributes keys first.
func NewItemTable(items []Item, keys ...string) ItemTable {
	cols := Columns(items, keys...)
	t := ItemTable{Items: items, Names: len(cols)}
	t.Columns, t.Hidden = boundColumns(cols, items, keys)
	for _, it := range items {
		row := make([]Cell, len(t.Columns))
		for i, col := range t.Columns {
			row[i] = CellOf(it[col])
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// boundColumns returns cols (Columns' order: the keys, then the other
// names sorted) cut to the bounds, keeping the keys and, of the other
// names, those most items have; and how many it left out.
func boundColumns(cols []string, items []Item, keys []string) ([]string, int) {
	limit := min(itemTableMaxColumns, itemTableMaxCells/max(len(items), 1))
	if len(cols) <= limit {
		return cols, 0
	}
	nkeys := 0
	for nkeys < len(cols) && slices.Contains(keys, cols[nkeys]) {
		nkeys++
	}
	rest := slices.Clone(cols[nkeys:])
	count := map[string]int{}
	for _, it := range items {
		for n := range it {
			count[n]++
		}
	}
	slices.SortStableFunc(rest, func(a, b string) int { return cmp.Compare(count[b], count[a]) })
	rest = rest[:max(limit-nkeys, 0)]
	slices.Sort(rest)
	kept := append(slices.Clone(cols[:nkeys]), rest...)
	return kept, len(cols) - len(kept)
}
