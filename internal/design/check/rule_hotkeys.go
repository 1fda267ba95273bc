package check

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// HotKeysRule finds partition keys that run hot: a partition key
// template with no variable (ALL_POSTS, ORDER) or with only
// low-cardinality ones (STATUS#<Status> of four statuses) puts every
// item of an entity on a few partitions. Against the patterns' declared
// peak rates it computes the units a second each key value takes and,
// past 1,000 WCU or 3,000 RCU, the shard count that would fix it.
var HotKeysRule = &Rule{
	Name: "hot-keys",
	Doc: `Each partition key value is one partition, which serves at most 1,000 write and
3,000 read units a second however much the table has. A key with no
variable, or only variables of few values (declare values: or cardinality:),
concentrates an entity's traffic. With peak rates on the patterns the rule
computes each value's load and, when it passes the limit, the shards needed
(shard: {count: N, by: ID} appends #0..N-1; a read then queries N keys).
Without rates it warns only.`,
	Run: func(pass *Pass) {
		d := pass.Design
		for _, index := range d.PartitionSpaces() {
			pk, _, _ := d.KeySchema(index)
			for _, e := range d.Entities {
				if !d.InIndex(e, index) {
					continue
				}
				checkHotWrites(pass, index, pk, e)
			}
		}
		for _, r := range d.Reads() {
			checkHotReads(pass, r)
		}
	},
}

// keyValues returns how many values a partition key of e takes (0:
// many), the key's text for messages, where it is written and its shard
// count.
func keyValues(e *design.Entity, pk []design.KeyAttr) (n int, text string, pos design.Pos, shards int) {
	n, pos, shards = 1, e.Pos, 1
	var texts []string
	for _, ka := range pk {
		t, k, _, _ := e.ValueOf(ka.Name)
		texts = append(texts, ka.Name+" = "+t.Text)
		if k != nil {
			pos = k.Pos
		}
		for _, v := range t.Vars() {
			if v == "shard" && k != nil && k.Shard != nil {
				n *= k.Shard.Count
				shards *= k.Shard.Count
				continue
			}
			a := e.Attribute(v)
			switch {
			case a == nil:
				n = 0
			case len(a.Values) > 0:
				n *= len(a.Values)
			case a.Cardinality > 0:
				n *= a.Cardinality
			case a.Type == "BOOL":
				n *= 2
			default:
				n = 0
			}
		}
	}
	return n, strings.Join(texts, ", "), pos, shards
}

// writeLoad is the write units a second e's writes (one-item patterns,
// and each action of a transaction or batch) put on index at their peak
// rates, and the writes a second.
func writeLoad(d *design.Design, index string, e *design.Entity) (units, peak float64) {
	for _, p := range d.Writes() {
		if p.Entity != e.Name || p.Rate.Peak == 0 {
			continue
		}
		u := design.WriteUnits(d.ProjectedSize(e, index))
		if p.Transaction && index == "" {
			u *= 2 // a transaction's table write, as the capacity model counts it (index entries once)
		}
		if p.Operation == "UpdateItem" && index != "" {
			// An update that moves the item between index keys (a key
			// attribute or a variable of its template) is a delete and a
			// put in the index, as the analyzer counts it.
			ix := d.Index(index)
			if slices.ContainsFunc(slices.Concat(ix.PartitionKey, ix.SortKey), func(k design.KeyAttr) bool { return d.UpdatesKey(e, p, k.Name) }) {
				u *= 2
			}
		}
		units += p.Rate.Peak * u
		peak += p.Rate.Peak
	}
	return units, peak
}

// keyConds are the equalities that bind e's partition key pk to its own
// templates, for design.Spread.
func keyConds(e *design.Entity, pk []design.KeyAttr) []design.Condition {
	var conds []design.Condition
	for _, ka := range pk {
		t, _, _, _ := e.ValueOf(ka.Name)
		conds = append(conds, design.Condition{Attr: ka.Name, Op: "=", Values: []design.Template{t}})
	}
	return conds
}

// checkHotWrites checks e's writes on index against the write limit. The
// busiest value's share is even over the key's values unless the
// workload's skew says otherwise, as dynago design analyze computes it:
// a key of unbounded values runs hot only when skewed. A key bucketed by
// time is the time-bucket rule's.
func checkHotWrites(pass *Pass, index string, pk []design.KeyAttr, e *design.Entity) {
	d := pass.Design
	if timeVar(d, e, pk) != "" {
		return
	}
	values, text, pos, shards := keyValues(e, pk)
	conds := keyConds(e, pk)
	_, share, variable := d.Spread(e, conds)
	if values == 0 && share == 0 {
		return
	}
	units, peak := writeLoad(d, index, e)
	what := fmt.Sprintf("%s on %s", text, indexLabel(index))
	if units == 0 {
		if values > 0 && values <= 4 {
			pass.Reportf(pos, design.Warning, "%s takes %s for every %s item: declare the write patterns' peak rates to see whether it runs hot (a partition serves 1,000 WCU a second)", what, valuesText(values), e.Name)
		}
		return
	}
	load := units * share
	if load <= design.PartitionWriteUnits {
		return
	}
	// The fewest shards that bring each value under the limit: the other
	// variables' values stay, the shard count is what changes.
	need := int(math.Ceil(load * float64(shards) / design.PartitionWriteUnits))
	fix := fmt.Sprintf("shard it into at least %d (shard: {count: %d, by: <an ID>}, and a read queries %d keys)", need, need, need)
	if shards > 1 {
		fix = fmt.Sprintf("raise its shard count from %d to at least %d (a read then queries %d keys)", shards, need, need)
	}
	if values == 0 {
		values = int(d.KeyValues(e, conds)) // from parent counts
	}
	spread := fmt.Sprintf("takes %s for every %s item", valuesText(values), e.Name)
	if values == 0 || d.Workload.Skew[variable].Pos.Line > 0 {
		spread = fmt.Sprintf("gets %.1f%% of the %s writes on its busiest value (workload.skew of %s)", share*100, e.Name, variable)
	}
	pass.Reportf(pos, design.Error, "hot partition key: %s %s; at the declared peak (%g writes a second, %.0f WCU) the busiest value takes %.0f WCU a second, %.1f× the 1,000 WCU a partition serves: %s",
		what, spread, peak, units, load, load/design.PartitionWriteUnits, fix)
}

// checkHotReads checks a read pattern's load on the partition key value
// it queries: the busiest value's share of its requests comes from the
// queried template's variables through the entity it returns, skew
// included, as dynago design analyze computes it.
func checkHotReads(pass *Pass, r design.Read) {
	d := pass.Design
	if r.Pattern.Rate.Peak == 0 || len(r.PKConds) == 0 {
		return
	}
	var owner *design.Entity
	size := 0
	for _, name := range r.Pattern.Returns {
		if e := d.Entity(name); e != nil {
			size = max(size, d.ProjectedSize(e, r.Index))
			if owner == nil && d.MatchEntity(r, e) != design.Never {
				owner = e
			}
		}
	}
	if owner == nil {
		return
	}
	values, share, variable := d.Spread(owner, r.PKConds)
	if share == 0 {
		return // unbounded values, none skewed
	}
	items := r.Pattern.PageSize
	if items == 0 || r.Pattern.Operation == "GetItem" {
		items = 1
		if r.Pattern.Operation != "GetItem" {
			items = max(1, (1<<20)/max(size, 1))
		}
	}
	units := design.ReadUnits(min(items*size, 1<<20))
	if n := d.ShardCount(r.Pattern); n > 1 && r.Pattern.Shards == "all" {
		share *= float64(n) // every request queries every shard
	}
	load := r.Pattern.Rate.Peak * units * share
	if load <= design.PartitionReadUnits {
		return
	}
	shards := int(math.Ceil(load / design.PartitionReadUnits))
	spread := valuesText(int(values))
	if values == 0 || d.Workload.Skew[variable].Pos.Line > 0 {
		spread = fmt.Sprintf("%.1f%% of them on its busiest value, by workload.skew of %s", share*100, variable)
	}
	pass.Reportf(r.Pattern.Pos, design.Error, "hot partition key: pattern %s reads %s (%s) at %g a second, %g RCU each, so the busiest value takes %.0f RCU a second, %.1f× the 3,000 RCU a partition serves: cache it, or spread it over at least %d keys",
		r.Pattern.ID, condText(r.PKConds), spread, r.Pattern.Rate.Peak, units, load, load/design.PartitionReadUnits, shards)
}

func valuesText(n int) string {
	if n == 1 {
		return "one value"
	}
	return fmt.Sprintf("%d values", n)
}
