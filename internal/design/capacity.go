package design

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// The capacity model: the units a request of each pattern takes and how
// its key spreads them, for the analyzer, the hot-keys rule and the
// provisioned capacity of the IaC exports.
//
// Capacity follows DynamoDB's rules
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html):
// a read unit per 4 KB read strongly consistently (half for eventually
// consistent reads, twice in a transaction), summed over a Query's items
// before rounding; a write unit per 1 KB written, for the table and for
// each index entry the write touches (an update that changes an index key
// deletes the old entry and puts a new one: two writes), twice in a
// transaction for the table's part. Partitions serve 3,000 read and
// 1,000 write units a second
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html).

// defaultZipfValues is how many values a Zipf-skewed attribute is taken
// to have when the design gives neither values nor cardinality.
const defaultZipfValues = 1_000_000

// PatternCost is one access pattern's capacity: per request, and a
// second at the pattern's average and peak rates.
type PatternCost struct {
	ID, Description, Kind, Operation string
	Index                            string // "" for the table
	// Items is how many items a request reads (reads) and ItemBytes the
	// size of each, as read (projected on an index).
	Items     float64
	ItemBytes int
	// ReadUnits and WriteUnits are per request; Writes splits WriteUnits
	// over the table and the indexes it writes.
	ReadUnits, WriteUnits float64
	Writes                []IndexUnits
	Rate                  Rate
}

// IndexUnits is capacity units in one table or index ("" for the table).
type IndexUnits struct {
	Index string
	Units float64
}

// PartitionSpaces are the table ("") and its GSIs: each has partitions
// of its own (an LSI uses its table's).
func (d *Design) PartitionSpaces() []string {
	spaces := []string{""}
	for _, ix := range d.Table.Indexes {
		if !ix.Local {
			spaces = append(spaces, ix.Name)
		}
	}
	return spaces
}

// PartitionSpace is the table or GSI whose partitions an index's traffic
// uses: an LSI lives in its table's partitions.
func (d *Design) PartitionSpace(index string) string {
	if ix := d.Index(index); ix != nil && ix.Local {
		return ""
	}
	return index
}

// patternCost is one pattern's units per request.
func (d *Design) patternCost(p *Pattern) PatternCost {
	pc := PatternCost{ID: p.ID, Description: p.Description, Kind: p.Kind, Index: p.Index, Rate: p.Rate}
	if p.Multi() {
		pc.Operation = p.Operation
		pc.ItemBytes = d.RequestBytes(p)
		d.multiCost(p, &pc)
		return pc
	}
	if p.Kind == "write" {
		pc.Operation = cmp.Or(p.Operation, "PutItem")
		pc.Items = 1
		d.writeCost(p, &pc)
		return pc
	}
	pc.Operation = d.Operation(p)
	for _, name := range p.Returns {
		if e := d.Entity(name); e != nil {
			pc.ItemBytes = max(pc.ItemBytes, d.ProjectedSize(e, p.Index))
		}
	}
	pc.Items = d.itemsPerRead(p, pc.Operation)
	if pc.Operation == "Query" && pc.ItemBytes > 0 {
		// A Query page reads at most 1 MB.
		pc.Items = math.Min(pc.Items, math.Max(1, math.Floor(float64(1<<20)/float64(pc.ItemBytes))))
	}
	units := ReadUnits(int(math.Ceil(pc.Items * float64(pc.ItemBytes))))
	if n := d.ShardCount(p); n > 1 && p.Shards == "all" {
		// A Query of each shard, their pages merged.
		pc.Items *= float64(n)
		units *= float64(n)
	}
	if pc.Operation == "Scan" && pc.Items == 0 {
		units = 0 // a Scan of a table whose size the workload does not give
	}
	switch {
	case p.Transaction:
		units *= 4 // two strongly consistent reads' worth
	case p.Consistent:
		units *= 2
	}
	pc.ReadUnits = units
	return pc
}

// PatternCost is p's capacity (the units of one request, and its rate).
func (d *Design) PatternCost(p *Pattern) PatternCost { return d.patternCost(p) }

// PatternCosts is every pattern's capacity, in file order.
func (d *Design) PatternCosts() []PatternCost {
	var out []PatternCost
	for _, p := range d.Patterns {
		out = append(out, d.patternCost(p))
	}
	return out
}

// PeakCapacity is the provisioned capacity that costs take at their
// patterns' peak rates, for the table ("") and each GSI (an LSI's
// traffic is its table's), in PartitionSpaces order: whole units, at
// least one each.
func (d *Design) PeakCapacity(costs []PatternCost) (read, write []IndexUnits) {
	peakRead, peakWrite := map[string]float64{}, map[string]float64{}
	for _, pc := range costs {
		peakRead[d.PartitionSpace(pc.Index)] += pc.ReadUnits * pc.Rate.Peak
		for _, w := range pc.Writes {
			peakWrite[d.PartitionSpace(w.Index)] += w.Units * pc.Rate.Peak
		}
	}
	for _, s := range d.PartitionSpaces() {
		read = append(read, IndexUnits{s, math.Max(1, math.Ceil(peakRead[s]))})
		write = append(write, IndexUnits{s, math.Max(1, math.Ceil(peakWrite[s]))})
	}
	return read, write
}

// itemsPerRead is how many items a read returns: one for GetItem; a
// Query's page size, else the items per partition key value the workload
// implies, else one per entity type it returns; a Scan all the items.
func (d *Design) itemsPerRead(p *Pattern, op string) float64 {
	switch {
	case op == "GetItem":
		return 1
	case op == "Scan":
		n := 0.0
		for _, name := range p.Returns {
			n += d.Workload.Items[name]
		}
		return n
	case p.PageSize > 0:
		return float64(p.PageSize)
	}
	r, _ := d.Resolve(p)
	n := 0.0
	for _, name := range p.Returns {
		e := d.Entity(name)
		if e == nil {
			continue
		}
		items, ok := d.Workload.Items[name]
		values := d.KeyValues(e, r.PKConds)
		if !ok || values == 0 {
			n++
			continue
		}
		n += math.Max(1, items/values)
	}
	return math.Max(1, n)
}

// writeCost fills a write pattern's units: its table write and each
// index entry it writes.
func (d *Design) writeCost(p *Pattern, pc *PatternCost) {
	e := d.Entity(p.Entity)
	if e == nil {
		return
	}
	pc.ItemBytes = d.ItemSize(e)
	table := WriteUnits(pc.ItemBytes)
	if p.Transaction {
		table *= 2
	}
	pc.Writes = append(pc.Writes, IndexUnits{"", table})
	pc.WriteUnits = table
	for _, ix := range d.Table.Indexes {
		if !d.InIndex(e, ix.Name) {
			continue
		}
		n := 1.0
		if pc.Operation == "UpdateItem" && len(p.Updates) > 0 {
			keys := slices.Concat(ix.PartitionKey, ix.SortKey)
			switch {
			case slices.ContainsFunc(keys, func(k KeyAttr) bool { return d.UpdatesKey(e, p, k.Name) }):
				n = 2 // the entry moves: a delete and a put
			case !d.updatesProjected(e, p, ix):
				n = 0
			}
		}
		if n == 0 {
			continue
		}
		u := n * WriteUnits(d.ProjectedSize(e, ix.Name))
		pc.Writes = append(pc.Writes, IndexUnits{ix.Name, u})
		pc.WriteUnits += u
	}
}

// UpdatesKey reports whether p's updates change key attribute name of e:
// the attribute itself, or a variable of its template.
func (d *Design) UpdatesKey(e *Entity, p *Pattern, name string) bool {
	if slices.Contains(p.Updates, name) {
		return true
	}
	t, _, _, _ := e.ValueOf(name)
	return slices.ContainsFunc(t.Vars(), func(v string) bool { return slices.Contains(p.Updates, v) })
}

// updatesProjected reports whether p's updates change an attribute ix
// projects.
func (d *Design) updatesProjected(e *Entity, p *Pattern, ix *Index) bool {
	switch ix.Projection {
	case "", "ALL":
		return true
	case "INCLUDE":
		return slices.ContainsFunc(p.Updates, func(u string) bool { return slices.Contains(ix.Include, u) })
	}
	return false
}

// VarSpread is how attribute v of e spreads requests: its number of
// values (0: unbounded) and the busiest value's share (0: no value
// stands out). k is the key whose template holds v, for <shard>.
func (d *Design) VarSpread(e *Entity, k *Key, v string) (values, hottest float64) {
	if v == "shard" && k != nil && k.Shard != nil {
		return float64(k.Shard.Count), 1 / float64(k.Shard.Count)
	}
	a := e.Attribute(v)
	if a == nil {
		return 0, 0
	}
	n := d.Cardinality(e, v)
	sk := d.Workload.Skew[v]
	switch {
	case len(sk.Top) > 0:
		// The busiest listed value, or, when the attribute's values are
		// known, an unlisted one sharing what the listed leave.
		top, sum := 0.0, 0.0
		for _, s := range sk.Top {
			top = max(top, s)
			sum += s
		}
		if rest := n - float64(len(sk.Top)); rest > 0 {
			top = max(top, (1-sum)/rest)
		}
		return n, top
	case sk.Zipf > 0:
		return n, 1 / harmonic(cmp.Or(n, defaultZipfValues), sk.Zipf)
	case n > 0:
		return n, 1 / n
	}
	return 0, 0
}

// Cardinality is how many values attribute v of e takes (0: unknown):
// its declared values or cardinality, two for a BOOL, else the item count
// of v's parent, the entity the workload counts that has one item per
// value of v: its table key is built from v alone (Customer, PK =
// CUSTOMER#<customerId>, SK = PROFILE), or it is named for it (Order for
// orderId, OrderId or order_id). So 1 M customers and 50 M orders make
// 50 orders a customer.
func (d *Design) Cardinality(e *Entity, v string) float64 {
	a := e.Attribute(v)
	if a == nil {
		return 0
	}
	if n := max(len(a.Values), a.Cardinality); n > 0 {
		return float64(n)
	}
	if a.Type == "BOOL" {
		return 2
	}
	if p := d.parent(v); p != nil {
		return d.Workload.Items[p.Name]
	}
	return 0
}

// parent returns the counted entity with one item per value of v, or
// nil (see Cardinality).
func (d *Design) parent(v string) *Entity {
	var named *Entity
	for _, p := range d.Entities {
		if _, ok := d.Workload.Items[p.Name]; !ok || p.Attribute(v) == nil {
			continue
		}
		var vars []string
		for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
			t, _, _, _ := p.ValueOf(ka.Name)
			for _, tv := range t.Vars() {
				if tv != "shard" && !slices.Contains(vars, tv) {
					vars = append(vars, tv)
				}
			}
		}
		if len(vars) == 1 && vars[0] == v {
			return p
		}
		id := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(v))
		if named == nil && id == strings.ToLower(p.Name)+"id" {
			named = p
		}
	}
	return named
}

// KeyValues is how many values the templates of conds take for e's
// items (the product of their variables' cardinalities, a <shard> its
// count; 0: unknown), as an item collection's count of partition keys.
func (d *Design) KeyValues(e *Entity, conds []Condition) float64 {
	n := 1.0
	for _, c := range conds {
		if len(c.Values) == 0 {
			continue
		}
		k := e.Key(c.Attr)
		for _, v := range c.Values[0].Vars() {
			if v == "shard" && k != nil && k.Shard != nil {
				n *= float64(k.Shard.Count)
				continue
			}
			n *= d.Cardinality(e, v)
		}
	}
	return n
}

// harmonic is the generalized harmonic number H(n, s) = sum of k^-s for
// k = 1..n: 1/H is the share of the busiest of n Zipf-distributed values.
// The first thousand terms are summed; the rest is the integral of x^-s
// from 1000.5 to n+0.5 (midpoint rule, relative error below 1e-7).
func harmonic(n, s float64) float64 {
	const exact = 1000
	n = math.Floor(n)
	h := 0.0
	for k := 1.0; k <= min(n, exact); k++ {
		h += math.Pow(k, -s)
	}
	if n > exact {
		a, b := exact+0.5, n+0.5
		if s == 1 {
			h += math.Log(b / a)
		} else {
			h += (math.Pow(b, 1-s) - math.Pow(a, 1-s)) / (1 - s)
		}
	}
	return h
}

// Spread is how the values of the key that conds name (their templates'
// variables, through e's attributes) spread requests: the number of
// values (0: unbounded), the busiest value's share, and the variable
// that concentrates them most.
func (d *Design) Spread(e *Entity, conds []Condition) (values, share float64, variable string) {
	values, share = 1, 1
	best := -1.0
	for _, c := range conds {
		if len(c.Values) == 0 {
			continue
		}
		k := e.Key(c.Attr)
		for _, v := range c.Values[0].Vars() {
			n, h := d.VarSpread(e, k, v)
			values *= n
			share *= h
			if h > best {
				best, variable = h, v
			}
		}
	}
	return values, share, variable
}

// DynamoDB's per-partition limits, in units a second.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html
const (
	PartitionReadUnits  = 3000
	PartitionWriteUnits = 1000
)
