package counters_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/dynagotest"
	"github.com/dynago/dynago/examples/gen/counters"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/run"
)

// TestGenerated_Counters runs the code gen-go wrote for a partition-key-
// only table with a Number key (internal/design/gengo/testdata): numbers
// stay exact past a float64's 15 digits, the NULL attribute round-trips,
// and the transactional put goes through TransactWriteItems, refusing to
// overwrite.
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
	// The put must not overwrite: a second one of that id cancels its
	// transaction, and the counter stays.
	err = c.PutCounter(ctx, counters.Counter{Id: in.Id, Count: "1"})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) || aws.ToString(tce.CancellationReasons[0].Code) != "ConditionalCheckFailed" {
		t.Fatalf("a second put of %s: %v", in.Id, err)
	}
	if got, err := c.GetCounter(ctx, in.Id); err != nil || *got != in {
		t.Fatalf("after the refused put: %+v %v", got, err)
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
