// Package show draws a single-table design as the items its table and
// each index would hold, as dynago design show does: the sample items
// (package sample) of each partition in sort-key order, one view for the
// table and one for each index (the layout of seed 001's
// single-table.txt: PK, SK, type, attributes), with the findings of
// dynago design check pinned to the rows they concern. It is what NoSQL
// Workbench's facets and aggregate view show, driven by the file.
//
// Build makes the Picture; WriteText and WriteHTML render it. The HTML
// is one self-contained file (inline CSS, no script, no asset fetched)
// and can hold the analyze load chart, which the caller passes in: a
// design tool does not import another (internal/lint).
package show

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/sample"
)

// Picture is a design drawn as items: one view per table and index, and
// the findings the views' rows and headers refer to by number.
type Picture struct {
	File, Table string
	// Items is the items generated per entity.
	Items    int
	Views    []*View
	Findings []Finding
}

// View is the table or one index as its items: partitions in key order,
// each partition's rows in sort-key order.
type View struct {
	// Index is "" for the table, else the index's name; Kind says
	// table, GSI or LSI, and Projection what an index holds.
	Index, Kind, Projection string
	// PK and SK are the names of the view's key attributes.
	PK, SK     []string
	Partitions []Partition
	// Findings are the numbers of the findings about the view as a
	// whole (an index's definition, a read of no generated partition).
	Findings []int
}

// Name is the view's name in headers: the table's or the index's.
func (v *View) Name(p *Picture) string {
	if v.Index == "" {
		return p.Table
	}
	return v.Index
}

// Rows counts the view's rows.
func (v *View) Rows() int {
	n := 0
	for _, pt := range v.Partitions {
		n += len(pt.Rows)
	}
	return n
}

// Partition is the rows of one partition key value.
type Partition struct {
	Key  []string
	Rows []*Row
}

// Row is one item as the view holds it.
type Row struct {
	// PK and SK are the item's values of the view's key attributes.
	PK, SK []string
	// Entity is the item's entity, Type what the seed's type column
	// shows: its discriminator value, else the entity's name.
	Entity, Type string
	// Attrs are the other attributes the view holds, in the entity's
	// order: its attributes, then the keys of the table and the other
	// indexes (Key set).
	Attrs []Attr
	// Findings are the numbers of the findings pinned to the row.
	Findings []int
}

// Attr is one attribute of a row.
type Attr struct {
	Name, Value string
	// Key says the attribute is a key of the table or another index:
	// the text view shows it with its value (GSI1PK=ORDER#9001), as
	// the seed does, and a plain attribute by its name alone.
	Key bool
}

// Finding is one check finding, numbered from 1 in file order.
type Finding struct {
	N          int
	Diagnostic design.Diagnostic
	// Rows is how many rows it is pinned to, over all views.
	Rows int
}

// Options configure Build.
type Options struct {
	// Index, when set, draws only that view: an index's name, or
	// "table".
	Index string
	// Items is the items to generate per entity (default 3).
	Items int
}

// Build draws d with generated items, pinning diags (dynago design
// check's findings on d) to the rows they concern: a finding on an
// entity's key to that entity's rows in each view keyed by it; on the
// rest of an entity, or on a write pattern, to the entity's table rows;
// on a read pattern, to the rows of the entities it returns in the
// partition its generated values read; on an index's definition, to
// that view. A finding elsewhere (the table, the workload) is listed
// only. An unknown opts.Index is an error.
func Build(d *design.Design, diags []design.Diagnostic, opts Options) (*Picture, error) {
	n := cmp.Or(opts.Items, 3)
	p := &Picture{File: d.File, Table: d.Table.Name, Items: n}
	spaces := []string{""}
	for _, ix := range d.Table.Indexes {
		spaces = append(spaces, ix.Name)
	}
	if opts.Index != "" && opts.Index != "table" {
		if d.Index(opts.Index) == nil {
			names := []string{"table"}
			for _, ix := range d.Table.Indexes {
				names = append(names, ix.Name)
			}
			return nil, fmt.Errorf("no index %q in the design (%s)", opts.Index, strings.Join(names, ", "))
		}
		spaces = []string{opts.Index}
	} else if opts.Index == "table" {
		spaces = []string{""}
	}
	items := sample.Generate(d, n)
	rowsOf := map[*View]map[*sample.Item]*Row{}
	for _, s := range spaces {
		v, rows := buildView(d, s, items)
		p.Views = append(p.Views, v)
		rowsOf[v] = rows
	}
	sorted := slices.Clone(diags)
	design.SortDiagnostics(sorted)
	for i, dg := range sorted {
		f := Finding{N: i + 1, Diagnostic: dg}
		f.Rows = pin(d, p, rowsOf, items, dg, f.N)
		p.Findings = append(p.Findings, f)
	}
	return p, nil
}

// buildView makes the view of index ("" for the table) and returns the
// row of each item it holds.
func buildView(d *design.Design, index string, items []sample.Item) (*View, map[*sample.Item]*Row) {
	pk, sk, _ := d.KeySchema(index)
	v := &View{Index: index, Kind: "table", PK: names(pk), SK: names(sk)}
	if ix := d.Index(index); ix != nil {
		v.Kind, v.Projection = "GSI", cmp.Or(ix.Projection, "ALL")
		if ix.Local {
			v.Kind = "LSI"
		}
	}
	keys := slices.Concat(pk, sk)
	rows := map[*sample.Item]*Row{}
	var all []*Row
	for i := range items {
		it := &items[i]
		r := &Row{Entity: it.Entity.Name, Type: cmp.Or(it.Entity.DiscriminatorValue, it.Entity.Name)}
		in := true
		for _, ka := range keys {
			val, ok := it.Attrs[ka.Name]
			if !ok {
				in = false // sparse: not in this index
				break
			}
			if design.HasAttr(pk, ka.Name) {
				r.PK = append(r.PK, val.Text)
			} else {
				r.SK = append(r.SK, val.Text)
			}
		}
		if !in {
			continue
		}
		r.Attrs = rowAttrs(d, index, it, keys)
		rows[it] = r
		all = append(all, r)
	}
	slices.SortStableFunc(all, func(a, b *Row) int {
		if c := compareKeys(a.PK, b.PK, pk); c != 0 {
			return c
		}
		return compareKeys(a.SK, b.SK, sk)
	})
	for _, r := range all {
		if n := len(v.Partitions); n > 0 && slices.Equal(v.Partitions[n-1].Key, r.PK) {
			v.Partitions[n-1].Rows = append(v.Partitions[n-1].Rows, r)
			continue
		}
		v.Partitions = append(v.Partitions, Partition{Key: r.PK, Rows: []*Row{r}})
	}
	return v, rows
}

// rowAttrs are the attributes of it that the view of index holds besides
// its key (keys): the entity's attributes, then its other key
// attributes; an index holds what its projection says (the table's key
// and its own always).
func rowAttrs(d *design.Design, index string, it *sample.Item, keys []design.KeyAttr) []Attr {
	e := it.Entity
	projected := func(string) bool { return true }
	if ix := d.Index(index); ix != nil {
		switch ix.Projection {
		case "KEYS_ONLY":
			projected = d.IsTableKey
		case "INCLUDE":
			projected = func(name string) bool { return d.IsTableKey(name) || slices.Contains(ix.Include, name) }
		}
	}
	var out []Attr
	add := func(name string, key bool) {
		v, ok := it.Attrs[name]
		if !ok || design.HasAttr(keys, name) || name == e.Discriminator || !projected(name) ||
			slices.ContainsFunc(out, func(a Attr) bool { return a.Name == name }) {
			return
		}
		out = append(out, Attr{Name: name, Value: v.Text, Key: key})
	}
	for _, a := range e.Attributes {
		add(a.Name, false)
	}
	for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
		add(ka.Name, true)
	}
	for _, k := range e.Keys {
		add(k.Attr, true)
	}
	return out
}

func names(ks []design.KeyAttr) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.Name)
	}
	return out
}

// compareKeys orders two key values as DynamoDB does: numbers by value,
// strings and binaries by their bytes, attribute by attribute.
func compareKeys(a, b []string, ks []design.KeyAttr) int {
	for i := range min(len(a), len(b), len(ks)) {
		if ks[i].Type == "N" {
			fa, erra := strconv.ParseFloat(a[i], 64)
			fb, errb := strconv.ParseFloat(b[i], 64)
			if erra == nil && errb == nil {
				if c := cmp.Compare(fa, fb); c != 0 {
					return c
				}
				continue
			}
		}
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}
