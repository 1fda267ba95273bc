package console

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
}

// NewItemTable lays out items with the key attributes keys first.
func NewItemTable(items []Item, keys ...string) ItemTable {
	t := ItemTable{Columns: Columns(items, keys...), Items: items}
	for _, it := range items {
		row := make([]Cell, len(t.Columns))
		for i, col := range t.Columns {
			row[i] = CellOf(it[col])
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
