package engine

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/analyze"
	"github.com/dynago/dynago/internal/pricing"
	"github.com/dynago/dynago/internal/throttle"
)

// TestAnalyzePrediction_Seed001 (issue 9): what dynago design analyze
// predicts for seed 001 before write sharding (STATUS#open on GSI2 at 5×
// a partition's 1,000 WCU) is what the throttled engine does at the
// design's peak: at 5,000 order writes a second (50 at --capacity-scale
// 100), the hot GSI partition admits a fifth of them, so four in five are
// throttled. The clock is simulated, so the figures are exact to the
// write.
func TestAnalyzePrediction_Seed001(t *testing.T) {
	d, diags, err := design.Load("../design/analyze/testdata/orders-unsharded.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	var hot *analyze.KeyLoad
	a := analyze.Analyze(d, pricing.Default())
	for i := range a.Keys {
		if a.Keys[i].Hot() {
			hot = &a.Keys[i]
		}
	}
	if hot == nil || hot.Index != "GSI2" || hot.Multiple != 5 {
		t.Fatalf("analysis: %+v", a.Keys)
	}
	const scale = 100
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now, Throttle: &throttle.Options{Scale: scale}}, "")
	mustRun(t, e, (*Engine).CreateTable, `{"TableName":"app","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],
	 "AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},{"AttributeName":"GSI1PK","AttributeType":"S"},{"AttributeName":"GSI2PK","AttributeType":"S"},{"AttributeName":"GSI2SK","AttributeType":"S"}],
	 "BillingMode":"PAY_PER_REQUEST",
	 "GlobalSecondaryIndexes":[{"IndexName":"GSI1","KeySchema":[{"AttributeName":"GSI1PK","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}},
	   {"IndexName":"GSI2","KeySchema":[{"AttributeName":"GSI2PK","KeyType":"HASH"},{"AttributeName":"GSI2SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]}`)
	// The design's place-order peak, scaled: 50 a second for 20 s.
	peak := 0.0
	for _, p := range d.Patterns {
		if p.ID == "place-order" {
			peak = p.Rate.Peak
		}
	}
	perSecond := int(peak / scale)
	const seconds = 20
	writes, throttled := 0, 0
	for s := 0; s < seconds; s++ {
		for i := 0; i < perSecond; i++ {
			n := s*perSecond + i
			at := clock.Now().Format("2006-01-02T15:04:05.000Z")
			_, err := run(e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"app","Item":{"PK":{"S":"CUSTOMER#c%d"},"SK":{"S":"ORDER#%s#o%d"},"GSI1PK":{"S":"ORDER#o%d"},"GSI2PK":{"S":"STATUS#open"},"GSI2SK":{"S":"%s"},"type":{"S":"order"},"total":{"N":"10"}}}`, n%97, at, n, n, at))
			writes++
			if err != nil {
				if _, reason := reasonOf(err); reason != "IndexWriteKeyRangeThroughputExceeded" {
					t.Fatalf("write %d: %v", n, err)
				}
				throttled++
			}
			clock.Advance(time.Second / time.Duration(perSecond))
		}
	}
	got, want := float64(throttled)/float64(writes), 1-1/hot.Multiple
	t.Logf("analyze: %.1f× the limit, %d shards; engine: %d of %d writes throttled (%.3f, predicted %.3f)", hot.Multiple, hot.Shards, throttled, writes, got, want)
	if math.Abs(got-want) > 0.03 {
		t.Errorf("throttled fraction %.3f, predicted %.3f", got, want)
	}
}
