package engine

import (
	"testing"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/storage/teststore"
)

// TestPlanIndexes checks planIndexes, the pure part of index maintenance
// (change → entry puts and deletes, and their cost), against DynamoDB's
// rules for index writes: an item that enters an index costs one write
// of its projected size, one that leaves costs one write, a changed index
// key is both (a delete and a put), a changed projected attribute alone
// is one write, and an entry that does not change costs nothing and is
// not rewritten; an item without the index key is not in the (sparse)
// index.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes
func TestPlanIndexes(t *testing.T) {
	e := New(teststore.Open(t), Options{})
	t.Cleanup(e.Close)
	mustRun(t, e, (*Engine).CreateTable, `{"TableName":"plan","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
 "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],
 "BillingMode":"PAY_PER_REQUEST",
 "GlobalSecondaryIndexes":[{"IndexName":"byG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],
   "Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["p"]}}]}`)
	tab := mustLookup(t, e, "plan")
	item := func(kv ...string) attr.Item {
		it := attr.Item{"pk": attr.Str("a")}
		for i := 0; i < len(kv); i += 2 {
			it[kv[i]] = attr.Str(kv[i+1])
		}
		return it
	}
	for _, tc := range []struct {
		name     string
		old, new attr.Item // nil: absent
		puts     int       // entries put
		deletes  int       // entries deleted
		units    float64   // the index's write units (0: index untouched)
	}{
		{"enters the index", nil, item("g", "x"), 1, 0, 1},
		{"outside the index (sparse)", nil, item("q", "x"), 0, 0, 0},
		{"leaves it: the key attribute removed", item("g", "x"), item(), 0, 1, 1},
		{"leaves it: the item deleted", item("g", "x"), nil, 0, 1, 1},
		{"index key changed: a delete and a put", item("g", "x"), item("g", "y"), 1, 1, 2},
		{"projected attribute changed: one put", item("g", "x", "p", "1"), item("g", "x", "p", "2"), 1, 0, 1},
		{"attribute outside the projection changed: nothing", item("g", "x", "q", "1"), item("g", "x", "q", "2"), 0, 0, 0},
		{"unchanged: nothing", item("g", "x"), item("g", "x"), 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := change{t: tab, tk: tableKey{hash: attr.Str("a")}}
			c.key = storageKey(tab, c.tk)
			if tc.old != nil {
				size := tc.old.Size()
				stored := encodeItem(tc.old, size)
				_, js, _ := splitItem(stored)
				c.old = version{exists: true, item: tc.old, json: js, stored: stored, size: size}
			}
			if tc.new != nil {
				c.become(tc.new, nil, tc.new.Size())
			}
			w, err := planIndexes(&c, false)
			if err != nil {
				t.Fatal(err)
			}
			puts, deletes := 0, 0
			for _, op := range w.direct {
				if op.value == nil {
					deletes++
				} else {
					puts++
				}
			}
			units := 0.0
			for _, u := range w.change.units {
				units += u.units
			}
			if puts != tc.puts || deletes != tc.deletes || units != tc.units || len(w.queued) != 0 {
				t.Fatalf("puts %d, deletes %d, units %v, queued %d; want %d, %d, %v, 0", puts, deletes, units, len(w.queued), tc.puts, tc.deletes, tc.units)
			}
			// With a GSI lag the same writes are queued instead.
			lagged, err := planIndexes(&c, true)
			if err != nil {
				t.Fatal(err)
			}
			if len(lagged.direct) != 0 || len(lagged.queued) != tc.puts+tc.deletes {
				t.Fatalf("lagged: %d direct, %d queued; want 0 and %d", len(lagged.direct), len(lagged.queued), tc.puts+tc.deletes)
			}
		})
	}
}
