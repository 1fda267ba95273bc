package counters_test

import (
	"context"
	"testing"

	"github.com/dynago/dynago/dynagotest"
	"github.com/dynago/dynago/examples/gen/counters"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/run"
)

// TestGenerated_Counters runs the code gen-go wrote for a partition-key-
// only table with a Number key (internal/design/gengo/testdata): numbers
// stay exact past a float64's 15 digits, the NULL attribute round-trips,
// and the transactional put goes through TransactWriteItems.
func TestGenerated_Counters(t *testing.T) {
	ctx := context.Background()
	db := dynagotest.New(t).Client()
	d, diags, err := design.Load("../../../internal/design/gengo/testdata/counters.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	if _, err := run.CreateTable(ctx, d, db, counters.TableName); err != nil {
		t.Fatal(err)
	}
	c := counters.New(db)
	in := counters.Counter{Id: "9007199254740993", Count: "12345678901234567890123456789012345678", Retired: true}
	if err := c.PutCounter(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetCounter(ctx, "9007199254740993")
	if err != nil || got == nil || *got != in {
		t.Fatalf("GetCounter: %+v %v, want %+v", got, err, in)
	}
	if none, err := c.GetCounter(ctx, "9007199254740992"); err != nil || none != nil {
		t.Fatalf("a neighbouring key: %+v %v", none, err)
	}
	// The Scan pattern's method (the checker refuses a Scan; gen-go still
	// writes it) reads every item, decoded by entity.
	other := counters.Counter{Id: "7", Count: "1"}
	if err := c.PutCounter(ctx, other); err != nil {
		t.Fatal(err)
	}
	seen := map[string]counters.Counter{}
	for x, err := range c.AllCounters(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		seen[x.(counters.Counter).Id] = x.(counters.Counter)
	}
	if len(seen) != 2 || seen[in.Id] != in || seen[other.Id] != other {
		t.Fatalf("AllCounters: %+v", seen)
	}
}
