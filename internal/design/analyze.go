package design

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/pricing"
)

// The analyzer: what a design costs and where it runs hot, from its
// patterns' rates and its workload section, before any item is written.
//
// Capacity follows DynamoDB's rules
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html):
// a read unit per 4 KB read strongly consistently (half for eventually
// consistent reads, twice in a transaction), summed over a Query's items
// before rounding; a write unit per 1 KB written, for the table and for
// each index entry the write touches (an update that changes an index key
// deletes the old entry and puts a new one: two writes), twice in a
// transaction for the table's part. Storage is each item's bytes plus 100
// bytes of overhead, in the table and again in each index that holds it
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html,
// GSI.html "Storage considerations"). Partitions serve 3,000 read and
// 1,000 write units a second
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html).

// HoursPerMonth is the month the costs are for: 730 hours, as AWS's
// pricing pages count it.
const HoursPerMonth = 730

// itemOverhead is the bytes DynamoDB adds to each stored item and index
// entry for its indexing.
const itemOverhead = 100

// defaultZipfValues is how many values a Zipf-skewed attribute is taken
// to have when the design gives neither values nor cardinality.
const defaultZipfValues = 1_000_000

// Analysis is what dynago design analyze reports for a design.
type Analysis struct {
	File, Table, BillingMode string
	Prices                   pricing.Prices
	Patterns                 []PatternCost
	Storage                  []EntityStorage
	Cost                     Cost
	Keys                     []KeyLoad
}

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

// EntityStorage is one entity's stored bytes: the table's and each
// index's, with DynamoDB's 100 bytes of overhead per entry.
type EntityStorage struct {
	Entity    string
	Items     float64
	ItemBytes int
	Bytes     []IndexUnits // Units are bytes here
}

// Cost is the design's monthly cost at the patterns' rates: on-demand at
// the average rates, provisioned at capacity for the peak (no auto
// scaling), and storage. Currency is the price table's.
type Cost struct {
	Currency string
	// ReadUnits and WriteUnits are the average units a second; PeakRead
	// and PeakWrite what provisioned capacity must cover, per table and
	// GSI (LSIs use the table's).
	ReadUnits, WriteUnits float64
	PeakRead, PeakWrite   []IndexUnits
	StorageBytes          float64
	OnDemandReads         float64
	OnDemandWrites        float64
	ProvisionedReads      float64
	ProvisionedWrites     float64
	Storage               float64
	OnDemand, Provisioned float64
}

// KeyLoad is the load on the hottest value of one partition key template
// (on the table or a GSI) at the patterns' peak rates.
type KeyLoad struct {
	Index    string // "" for the table
	Key      string // the key attributes, e.g. GSI2PK
	Template string
	Entities []string
	// Values is how many values the key takes (0: unbounded), and Share
	// the hottest value's share of the key's requests.
	Values float64
	Share  float64
	// Variable is the template variable that concentrates the load most
	// ("" for a key with no variable).
	Variable string
	// ReadUnits and WriteUnits are a second on the hottest value.
	ReadUnits, WriteUnits float64
	// Multiple is the larger of ReadUnits/3,000 and WriteUnits/1,000.
	Multiple float64
	// Shards is the shard count that brings the hottest value under the
	// limits (0 when it is under them), and Sharded the count the design
	// has; a read of the whole logical key then takes Shards queries.
	Shards, Sharded int
}

// Hot reports whether the key's hottest value passes a partition's
// limits.
func (k KeyLoad) Hot() bool { return k.Multiple > 1 }

// Analyze computes d's costs and hot keys at prices.
func Analyze(d *Design, prices pricing.Prices) *Analysis {
	a := &Analysis{File: d.File, Table: d.Table.Name, BillingMode: cmp.Or(d.Table.BillingMode, "PAY_PER_REQUEST"), Prices: prices}
	for _, p := range d.Patterns {
		a.Patterns = append(a.Patterns, d.patternCost(p))
	}
	a.storage(d)
	a.cost(d)
	a.Keys = d.keyLoads(a.Patterns)
	return a
}

// partitionSpaces are the table ("") and its GSIs: each has partitions
// of its own (an LSI uses its table's).
func (d *Design) partitionSpaces() []string {
	spaces := []string{""}
	for _, ix := range d.Table.Indexes {
		if !ix.Local {
			spaces = append(spaces, ix.Name)
		}
	}
	return spaces
}

// partitionSpace is the table or GSI whose partitions an index's traffic
// uses: an LSI lives in its table's partitions.
func (d *Design) partitionSpace(index string) string {
	if ix := d.Index(index); ix != nil && ix.Local {
		return ""
	}
	return index
}

// patternCost is one pattern's units per request.
func (d *Design) patternCost(p *Pattern) PatternCost {
	pc := PatternCost{ID: p.ID, Description: p.Description, Kind: p.Kind, Index: p.Index, Rate: p.Rate}
	if p.Kind == "write" {
		pc.Operation = cmp.Or(p.Operation, "PutItem")
		pc.Items = 1
		d.writeCost(p, &pc)
		return pc
	}
	pc.Operation = d.Operation(p)
	for _, name := range p.Returns {
		if e := d.Entity(name); e != nil {
			pc.ItemBytes = max(pc.ItemBytes, d.projectedSize(e, p.Index))
		}
	}
	pc.Items = d.itemsPerRead(p, pc.Operation)
	if pc.Operation == "Query" && pc.ItemBytes > 0 {
		// A Query page reads at most 1 MB.
		pc.Items = math.Min(pc.Items, math.Max(1, math.Floor(float64(1<<20)/float64(pc.ItemBytes))))
	}
	units := readUnits(int(math.Ceil(pc.Items * float64(pc.ItemBytes))))
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
	r, _ := d.resolve(p)
	n := 0.0
	for _, name := range p.Returns {
		e := d.Entity(name)
		if e == nil {
			continue
		}
		items, ok := d.Workload.Items[name]
		values, _, _ := d.spread(e, r.pkConds)
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
	table := writeUnits(pc.ItemBytes)
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
			case slices.ContainsFunc(keys, func(k KeyAttr) bool { return d.updatesKey(e, p, k.Name) }):
				n = 2 // the entry moves: a delete and a put
			case !d.updatesProjected(e, p, ix):
				n = 0
			}
		}
		if n == 0 {
			continue
		}
		u := n * writeUnits(d.projectedSize(e, ix.Name))
		pc.Writes = append(pc.Writes, IndexUnits{ix.Name, u})
		pc.WriteUnits += u
	}
}

// updatesKey reports whether p's updates change key attribute name of e:
// the attribute itself, or a variable of its template.
func (d *Design) updatesKey(e *Entity, p *Pattern, name string) bool {
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

// storage fills each entity's stored bytes from the workload's item
// counts.
func (a *Analysis) storage(d *Design) {
	for _, e := range d.Entities {
		items, ok := d.Workload.Items[e.Name]
		if !ok {
			continue
		}
		es := EntityStorage{Entity: e.Name, Items: items, ItemBytes: d.ItemSize(e)}
		es.Bytes = append(es.Bytes, IndexUnits{"", items * float64(es.ItemBytes+itemOverhead)})
		for _, ix := range d.Table.Indexes {
			if d.InIndex(e, ix.Name) {
				es.Bytes = append(es.Bytes, IndexUnits{ix.Name, items * float64(d.projectedSize(e, ix.Name)+itemOverhead)})
			}
		}
		a.Storage = append(a.Storage, es)
	}
}

// cost prices the average and peak units and the storage.
func (a *Analysis) cost(d *Design) {
	c := &a.Cost
	c.Currency = a.Prices.Currency
	peakRead, peakWrite := map[string]float64{}, map[string]float64{}
	for _, pc := range a.Patterns {
		c.ReadUnits += pc.ReadUnits * pc.Rate.Average
		c.WriteUnits += pc.WriteUnits * pc.Rate.Average
		peakRead[d.partitionSpace(pc.Index)] += pc.ReadUnits * pc.Rate.Peak
		for _, w := range pc.Writes {
			peakWrite[d.partitionSpace(w.Index)] += w.Units * pc.Rate.Peak
		}
	}
	for _, s := range d.partitionSpaces() {
		// Provisioned capacity is whole units, at least one each.
		r, w := math.Max(1, math.Ceil(peakRead[s])), math.Max(1, math.Ceil(peakWrite[s]))
		c.PeakRead = append(c.PeakRead, IndexUnits{s, r})
		c.PeakWrite = append(c.PeakWrite, IndexUnits{s, w})
		c.ProvisionedReads += r * HoursPerMonth * a.Prices.ProvisionedRCUHour
		c.ProvisionedWrites += w * HoursPerMonth * a.Prices.ProvisionedWCUHour
	}
	for _, es := range a.Storage {
		for _, b := range es.Bytes {
			c.StorageBytes += b.Units
		}
	}
	seconds := float64(HoursPerMonth * 3600)
	c.OnDemandReads = c.ReadUnits * seconds / 1e6 * a.Prices.OnDemandReadPerMillion
	c.OnDemandWrites = c.WriteUnits * seconds / 1e6 * a.Prices.OnDemandWritePerMillion
	c.Storage = c.StorageBytes / (1 << 30) * a.Prices.StorageGBMonth
	c.OnDemand = c.OnDemandReads + c.OnDemandWrites + c.Storage
	c.Provisioned = c.ProvisionedReads + c.ProvisionedWrites + c.Storage
}

// varSpread is how attribute v of e spreads requests: its number of
// values (0: unbounded) and the busiest value's share (0: no value
// stands out). k is the key whose template holds v, for <shard>.
func (d *Design) varSpread(e *Entity, k *Key, v string) (values, hottest float64) {
	if v == "shard" && k != nil && k.Shard != nil {
		return float64(k.Shard.Count), 1 / float64(k.Shard.Count)
	}
	a := e.Attribute(v)
	if a == nil {
		return 0, 0
	}
	n := float64(max(len(a.Values), a.Cardinality))
	if a.Type == "BOOL" && n == 0 {
		n = 2
	}
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

// spread is how the values of the key that conds name (their templates'
// variables, through e's attributes) spread requests: the number of
// values (0: unbounded), the busiest value's share, and the variable
// that concentrates them most.
func (d *Design) spread(e *Entity, conds []Condition) (values, share float64, variable string) {
	values, share = 1, 1
	best := -1.0
	for _, c := range conds {
		if len(c.Values) == 0 {
			continue
		}
		k := e.Key(c.Attr)
		for _, v := range c.Values[0].Vars() {
			n, h := d.varSpread(e, k, v)
			values *= n
			share *= h
			if h > best {
				best, variable = h, v
			}
		}
	}
	return values, share, variable
}

// keyLoads groups the entities by partition key template on the table
// and each GSI and computes each group's load at peak.
func (d *Design) keyLoads(costs []PatternCost) []KeyLoad {
	byID := map[string]PatternCost{}
	for _, pc := range costs {
		byID[pc.ID] = pc
	}
	var out []KeyLoad
	for _, space := range d.partitionSpaces() {
		pk, _, _ := d.KeySchema(space)
		var groups []*KeyLoad
		var members [][]*Entity
		for _, e := range d.Entities {
			if !d.InIndex(e, space) {
				continue
			}
			var texts []string
			for _, ka := range pk {
				t, _, _, _ := e.ValueOf(ka.Name)
				texts = append(texts, t.Text)
			}
			text := strings.Join(texts, " + ")
			i := slices.IndexFunc(groups, func(g *KeyLoad) bool { return g.Template == text })
			if i < 0 {
				groups = append(groups, &KeyLoad{Index: space, Key: keyNames(pk), Template: text})
				members = append(members, nil)
				i = len(groups) - 1
			}
			groups[i].Entities = append(groups[i].Entities, e.Name)
			members[i] = append(members[i], e)
		}
		for i, g := range groups {
			d.loadGroup(g, members[i], pk, byID)
			out = append(out, *g)
		}
	}
	return out
}

// loadGroup computes one key group's peak load on its hottest value.
func (d *Design) loadGroup(g *KeyLoad, es []*Entity, pk []KeyAttr, byID map[string]PatternCost) {
	var conds []Condition
	for _, ka := range pk {
		t, _, _, _ := es[0].ValueOf(ka.Name)
		conds = append(conds, Condition{Attr: ka.Name, Op: "=", Values: []Template{t}})
	}
	g.Values, g.Share, g.Variable = d.spread(es[0], conds)
	g.Sharded = 1
	for _, ka := range pk {
		if k := es[0].Key(ka.Name); k != nil && k.Shard != nil {
			g.Sharded *= k.Shard.Count
		}
	}
	if g.Variable == "shard" {
		// The shards spread the load evenly; what concentrates it is the
		// other variables, if any.
		g.Variable = ""
		best := -1.0
		for _, c := range conds {
			for _, v := range c.Values[0].Vars() {
				if v == "shard" {
					continue
				}
				if _, h := d.varSpread(es[0], nil, v); h > best {
					best, g.Variable = h, v
				}
			}
		}
	}
	for _, p := range d.Patterns {
		if p.Rate.Peak == 0 {
			continue
		}
		pc := byID[p.ID]
		switch {
		case p.Kind == "write":
			e := d.Entity(p.Entity)
			if e == nil || !slices.Contains(es, e) {
				continue
			}
			_, share, _ := d.spread(e, conds)
			for _, w := range pc.Writes {
				if d.partitionSpace(w.Index) == g.Index {
					g.WriteUnits += p.Rate.Peak * w.Units * share
				}
			}
		case p.Operation != "Scan" && d.partitionSpace(p.Index) == g.Index:
			r, ok := d.resolve(p)
			if !ok {
				continue
			}
			var owner *Entity
			for _, e := range es {
				if slices.Contains(p.Returns, e.Name) && d.matchEntity(r, e) != never {
					owner = e
					break
				}
			}
			if owner == nil {
				continue
			}
			_, share, _ := d.spread(owner, r.pkConds)
			g.ReadUnits += p.Rate.Peak * pc.ReadUnits * share
		}
	}
	g.Multiple = max(g.ReadUnits/partitionReadUnits, g.WriteUnits/partitionWriteUnits)
	if g.Hot() {
		// The hottest value's load with its current shards, spread over
		// enough shards to bring each under both limits.
		g.Shards = int(math.Ceil(g.Multiple * float64(g.Sharded)))
	}
}

// keyNames is a key schema's attribute names joined by " + ".
func keyNames(ks []KeyAttr) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Name
	}
	return strings.Join(names, " + ")
}
