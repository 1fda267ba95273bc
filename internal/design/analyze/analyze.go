// Package analyze costs a single-table design before any item is
// written, as dynago design analyze does: from its patterns' rates and
// its workload section, the capacity each pattern takes (the capacity
// model of package design), the storage, the monthly cost on demand and
// provisioned, and the load on each partition key's hottest value, with
// the shard count that fixes a hot one (Analyze); the analysis is
// written as text, JSON or an SVG chart.
//
// Storage is each item's bytes plus 100 bytes of overhead, in the table
// and again in each index that holds it
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html,
// GSI.html "Storage considerations").
package analyze

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/pricing"
)

// HoursPerMonth is the month the costs are for: 730 hours, as AWS's
// pricing pages count it.
const HoursPerMonth = 730

// itemOverhead is the bytes DynamoDB adds to each stored item and index
// entry for its indexing.
const itemOverhead = 100

// Analysis is what dynago design analyze reports for a design.
type Analysis struct {
	File, Table, BillingMode string
	Prices                   pricing.Prices
	Patterns                 []design.PatternCost
	Storage                  []EntityStorage
	Cost                     Cost
	Keys                     []KeyLoad
}

// EntityStorage is one entity's stored bytes: the table's and each
// index's, with DynamoDB's 100 bytes of overhead per entry.
type EntityStorage struct {
	Entity    string
	Items     float64
	ItemBytes int
	Bytes     []design.IndexUnits // Units are bytes here
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
	PeakRead, PeakWrite   []design.IndexUnits
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
func Analyze(d *design.Design, prices pricing.Prices) *Analysis {
	a := &Analysis{File: d.File, Table: d.Table.Name, BillingMode: cmp.Or(d.Table.BillingMode, "PAY_PER_REQUEST"), Prices: prices}
	a.Patterns = d.PatternCosts()
	a.storage(d)
	a.cost(d)
	a.Keys = keyLoads(d, a.Patterns)
	return a
}

// storage fills each entity's stored bytes from the workload's item
// counts.
func (a *Analysis) storage(d *design.Design) {
	for _, e := range d.Entities {
		items, ok := d.Workload.Items[e.Name]
		if !ok {
			continue
		}
		es := EntityStorage{Entity: e.Name, Items: items, ItemBytes: d.ItemSize(e)}
		es.Bytes = append(es.Bytes, design.IndexUnits{Index: "", Units: items * float64(es.ItemBytes+itemOverhead)})
		for _, ix := range d.Table.Indexes {
			if d.InIndex(e, ix.Name) {
				es.Bytes = append(es.Bytes, design.IndexUnits{Index: ix.Name, Units: items * float64(d.ProjectedSize(e, ix.Name)+itemOverhead)})
			}
		}
		a.Storage = append(a.Storage, es)
	}
}

// cost prices the average and peak units and the storage.
func (a *Analysis) cost(d *design.Design) {
	c := &a.Cost
	c.Currency = a.Prices.Currency
	for _, pc := range a.Patterns {
		c.ReadUnits += pc.ReadUnits * pc.Rate.Average
		c.WriteUnits += pc.WriteUnits * pc.Rate.Average
	}
	c.PeakRead, c.PeakWrite = d.PeakCapacity(a.Patterns)
	for i := range c.PeakRead {
		c.ProvisionedReads += c.PeakRead[i].Units * HoursPerMonth * a.Prices.ProvisionedRCUHour
		c.ProvisionedWrites += c.PeakWrite[i].Units * HoursPerMonth * a.Prices.ProvisionedWCUHour
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

// keyLoads groups the entities by partition key template on the table
// and each GSI and computes each group's load at peak.
func keyLoads(d *design.Design, costs []design.PatternCost) []KeyLoad {
	byID := map[string]design.PatternCost{}
	for _, pc := range costs {
		byID[pc.ID] = pc
	}
	var out []KeyLoad
	for _, space := range d.PartitionSpaces() {
		pk, _, _ := d.KeySchema(space)
		var groups []*KeyLoad
		var members [][]*design.Entity
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
			loadGroup(d, g, members[i], pk, byID)
			out = append(out, *g)
		}
	}
	return out
}

// loadGroup computes one key group's peak load on its hottest value.
func loadGroup(d *design.Design, g *KeyLoad, es []*design.Entity, pk []design.KeyAttr, byID map[string]design.PatternCost) {
	var conds []design.Condition
	for _, ka := range pk {
		t, _, _, _ := es[0].ValueOf(ka.Name)
		conds = append(conds, design.Condition{Attr: ka.Name, Op: "=", Values: []design.Template{t}})
	}
	g.Values, g.Share, g.Variable = d.Spread(es[0], conds)
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
				if _, h := d.VarSpread(es[0], nil, v); h > best {
					best, g.Variable = h, v
				}
			}
		}
	}
	// Writes one item at a time: a transaction's or batch's puts, updates
	// and deletes each at the request's rate times its count.
	for _, p := range d.Writes() {
		e := d.Entity(p.Entity)
		if p.Rate.Peak == 0 || e == nil || !slices.Contains(es, e) {
			continue
		}
		pc, ok := byID[p.ID]
		if !ok {
			pc = d.PatternCost(p) // an action of a multi-item write
		}
		_, share, _ := d.Spread(e, conds)
		for _, w := range pc.Writes {
			if d.PartitionSpace(w.Index) == g.Index {
				g.WriteUnits += p.Rate.Peak * w.Units * share
			}
		}
	}
	for _, p := range d.Patterns {
		if p.Rate.Peak == 0 {
			continue
		}
		pc := byID[p.ID]
		switch {
		case p.Kind == "write" || p.Multi():
		case p.Operation != "Scan" && d.PartitionSpace(p.Index) == g.Index:
			r, ok := d.Resolve(p)
			if !ok {
				continue
			}
			var owner *design.Entity
			for _, e := range es {
				if slices.Contains(p.Returns, e.Name) && d.MatchEntity(r, e) != design.Never {
					owner = e
					break
				}
			}
			if owner == nil {
				continue
			}
			_, share, _ := d.Spread(owner, r.PKConds)
			g.ReadUnits += p.Rate.Peak * pc.ReadUnits * share
		}
	}
	g.Multiple = max(g.ReadUnits/design.PartitionReadUnits, g.WriteUnits/design.PartitionWriteUnits)
	if g.Hot() {
		// The hottest value's load with its current shards, spread over
		// enough shards to bring each under both limits.
		g.Shards = int(math.Ceil(g.Multiple * float64(g.Sharded)))
	}
}

// keyNames is a key schema's attribute names joined by " + ".
func keyNames(ks []design.KeyAttr) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Name
	}
	return strings.Join(names, " + ")
}
