package check

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// TimeBucketRule finds partition keys bucketed by time under write load
// (DATE#<Day>, EVENTS#<CreatedAt>, a Month): every item written now
// carries the current bucket, so the current value takes every write
// however many buckets there are over time. Against the write patterns'
// peak rates it computes the current value's load and, past 1,000 WCU,
// the shard count that fixes it. A workload.skew entry for the time
// variable says how writes really spread over it and hands the key to
// the hot-keys rule.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-uniform-load.html
// ("Item creation date, rounded to the nearest time period (for example,
// day, hour, or minute)" is a partition key of bad uniformity);
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-sharding.html
// (write sharding: a suffix spreads one logical key over several).
var TimeBucketRule = &Rule{
	Name: "time-bucket",
	Doc: `A partition key built from a time (a timestamp or epoch attribute, or one named
Day, Date, Month, Hour, CreatedAt...) is bucketed by time: the items written
now all carry the current bucket, so today's value takes every write while
the other days take none. The rule computes that value's load at the write
patterns' peak rates (the key's other variables spread it, skew included)
and, past a partition's 1,000 WCU a second, the shards that fix it. If
writes are not all current (a backfill, a date chosen by the user), say so
in workload.skew for the time attribute; without rates it warns only.`,
	Run: func(pass *Pass) {
		d := pass.Design
		for _, index := range d.PartitionSpaces() {
			pk, _, _ := d.KeySchema(index)
			for _, e := range d.Entities {
				if d.InIndex(e, index) {
					checkTimeBucket(pass, index, pk, e)
				}
			}
		}
	},
}

// timeVar returns the variable of e's partition key pk that buckets it
// by time, unless workload.skew says how requests spread over it; "" for
// none.
func timeVar(d *design.Design, e *design.Entity, pk []design.KeyAttr) string {
	for _, ka := range pk {
		t, _, _, _ := e.ValueOf(ka.Name)
		for _, v := range t.Vars() {
			a := e.Attribute(v)
			if a == nil || len(a.Values) > 0 {
				continue
			}
			if _, skewed := d.Workload.Skew[v]; skewed {
				continue
			}
			named := (a.Type == "S" || a.Type == "N") && (looksLikeTime(v) || looksLikeBucket(v))
			if a.Type == "timestamp" || a.Type == "epoch" || named {
				return v
			}
		}
	}
	return ""
}

// looksLikeBucket reports whether a name says it is a calendar period:
// Month, Week, Year, Hour, Minute, Quarter, alone or at the end of a name
// (OrderMonth, created_hour).
func looksLikeBucket(name string) bool {
	lower := strings.ToLower(name)
	return slices.ContainsFunc([]string{"month", "week", "year", "hour", "minute", "quarter"}, func(s string) bool {
		return lower == s || len(name) > len(s) && strings.HasSuffix(lower, s) && (name[len(name)-len(s)-1] == '_' || name[len(name)-len(s)] >= 'A' && name[len(name)-len(s)] <= 'Z')
	})
}

func checkTimeBucket(pass *Pass, index string, pk []design.KeyAttr, e *design.Entity) {
	d := pass.Design
	tv := timeVar(d, e, pk)
	if tv == "" {
		return
	}
	// The current bucket takes every write; the other variables spread
	// them as they spread any key.
	_, text, pos, shards := keyValues(e, pk)
	share := 1.0
	for _, ka := range pk {
		t, k, _, _ := e.ValueOf(ka.Name)
		for _, v := range t.Vars() {
			if v == tv {
				continue
			}
			_, h := d.VarSpread(e, k, v)
			share *= h
		}
	}
	if share == 0 {
		return // an unbounded variable beside the time spreads today's writes
	}
	what := fmt.Sprintf("%s on %s", text, indexLabel(index))
	units, peak := writeLoad(d, index, e)
	if units == 0 {
		if share == 1 {
			pass.Reportf(pos, design.Warning, "%s is bucketed by time (<%s>): every %s written now goes to the current value; declare the write patterns' peak rates to see whether it runs hot (a partition serves 1,000 WCU a second)", what, tv, e.Name)
		}
		return
	}
	load := units * share
	if load <= design.PartitionWriteUnits {
		return
	}
	need := int(math.Ceil(load * float64(shards) / design.PartitionWriteUnits))
	fix := fmt.Sprintf("shard it into at least %d (shard: {count: %d, by: <an ID>}; a read of one %s then queries %d keys)", need, need, tv, need)
	if shards > 1 {
		fix = fmt.Sprintf("raise its shard count from %d to at least %d (a read of one %s then queries %d keys)", shards, need, tv, need)
	}
	pass.Reportf(pos, design.Error, "time-bucketed partition key: %s: every %s written now carries the current <%s>, so one value takes the writes; at the declared peak (%g writes a second, %.0f WCU) it takes %.0f WCU a second, %.1f× the 1,000 WCU a partition serves: %s, or say in workload.skew how writes spread over %s if they are not all current",
		what, e.Name, tv, peak, units, load, load/design.PartitionWriteUnits, fix, tv)
}
