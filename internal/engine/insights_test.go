package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/throttle"
)

// TestContributorInsights_States walks UpdateContributorInsights,
// DescribeContributorInsights and ListContributorInsights through
// DynamoDB's states and answers, as probed on live DynamoDB
// (docs/research-contributor-insights.md §1-§3). Settling takes the
// engine's CreateDelay (2 s here).
func TestContributorInsights_States(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now, CreateDelay: 2 * time.Second}, "")
	mustRun(t, e, (*Engine).CreateTable, ciTable)
	clock.Advance(3 * time.Second)
	stamp := fmt.Sprint(clock.Now().UnixMilli())
	gsiAt := clock.Now().Add(2 * time.Second) // the GSI is enabled after the table settles
	rule := func(kind, res string) string {
		return `"DynamoDBContributorInsights-` + kind + `-` + res + `-` + stamp + `"`
	}
	ops := map[string]answerFunc{
		"update":   answer((*Engine).UpdateContributorInsights),
		"describe": answer((*Engine).DescribeContributorInsights),
		"list":     answer((*Engine).ListContributorInsights),
	}
	walkAnswers(t, e, clock, ops, []answerStep{
		{"describe", `{"TableName":"cit"}`, `{"TableName":"cit","ContributorInsightsStatus":"DISABLED"}`, 0},
		{"list", `{}`, `{"ContributorInsightsSummaries":[]}`, 0},
		{"update", `{"TableName":"cit","ContributorInsightsAction":"DISABLE"}`, `{"TableName":"cit","ContributorInsightsStatus":"DISABLED"}`, 0},
		{"update", `{"TableName":"cit","ContributorInsightsAction":"ENABLE"}`, `{"TableName":"cit","ContributorInsightsStatus":"ENABLING","ContributorInsightsMode":"ACCESSED_AND_THROTTLED_KEYS"}`, 0},
		{"list", `{"TableName":"cit"}`, `{"ContributorInsightsSummaries":[{"TableName":"cit","ContributorInsightsStatus":"ENABLING","ContributorInsightsMode":"ACCESSED_AND_THROTTLED_KEYS"}]}`, 2 * time.Second},
		{"describe", `{"TableName":"cit"}`, `{"TableName":"cit","ContributorInsightsRuleList":[` + rule("PKC", "cit") + `,` + rule("PKT", "cit") + `,` + rule("SKC", "cit") + `,` + rule("SKT", "cit") + `],"ContributorInsightsStatus":"ENABLED","LastUpdateDateTime":` + strconv.FormatFloat(epochSeconds(clock.Now().UnixNano()), 'f', -1, 64) + `,"ContributorInsightsMode":"ACCESSED_AND_THROTTLED_KEYS"}`, 0},
		// Enabling what is enabled changes nothing.
		{"update", `{"TableName":"cit","ContributorInsightsAction":"ENABLE"}`, `{"TableName":"cit","ContributorInsightsStatus":"ENABLED","ContributorInsightsMode":"ACCESSED_AND_THROTTLED_KEYS"}`, 0},
		// A table ARN names the table too; the GSI has no sort key.
		{"update", `{"TableName":"arn:aws:dynamodb:us-east-1:000000000000:table/cit","IndexName":"byG","ContributorInsightsAction":"ENABLE","ContributorInsightsMode":"THROTTLED_KEYS"}`, `{"TableName":"cit","IndexName":"byG","ContributorInsightsStatus":"ENABLING","ContributorInsightsMode":"THROTTLED_KEYS"}`, 2 * time.Second},
		{"describe", `{"TableName":"cit","IndexName":"byG"}`, `{"TableName":"cit","IndexName":"byG","ContributorInsightsRuleList":[` + strings.Replace(rule("PKT", "cit-byG"), stamp, fmt.Sprint(gsiAt.UnixMilli()), 1) + `],"ContributorInsightsStatus":"ENABLED","LastUpdateDateTime":` + strconv.FormatFloat(epochSeconds(gsiAt.UnixNano()), 'f', -1, 64) + `,"ContributorInsightsMode":"THROTTLED_KEYS"}`, 0},
		{"list", `{"MaxResults":1}`, `{"ContributorInsightsSummaries":[{"TableName":"cit","ContributorInsightsStatus":"ENABLED","ContributorInsightsMode":"ACCESSED_AND_THROTTLED_KEYS"}],"NextToken":"Y2l0AA"}`, 0},
		{"list", `{"MaxResults":1,"NextToken":"Y2l0AA"}`, `{"ContributorInsightsSummaries":[{"TableName":"cit","IndexName":"byG","ContributorInsightsStatus":"ENABLED","ContributorInsightsMode":"THROTTLED_KEYS"}]}`, 0},
		{"update", `{"TableName":"cit","ContributorInsightsAction":"DISABLE","ContributorInsightsMode":"THROTTLED_KEYS"}`, `{"TableName":"cit","ContributorInsightsStatus":"DISABLING","ContributorInsightsMode":"ACCESSED_AND_THROTTLED_KEYS"}`, 2 * time.Second},
		{"list", `{}`, `{"ContributorInsightsSummaries":[{"TableName":"cit","IndexName":"byG","ContributorInsightsStatus":"ENABLED","ContributorInsightsMode":"THROTTLED_KEYS"}]}`, 0},
		// Errors.
		{"describe", `{"TableName":"nope"}`, `ResourceNotFoundException: Requested resource not found: Table: nope not found`, 0},
		{"update", `{"TableName":"cit","IndexName":"byL","ContributorInsightsAction":"ENABLE"}`, `ResourceNotFoundException: Requested resource not found: Index: byL not found for table: cit`, 0},
		{"describe", `{"TableName":"cit","IndexName":"nope"}`, `ResourceNotFoundException: Requested resource not found: Index: nope not found for table: cit`, 0},
		{"update", `{"TableName":"cit","ContributorInsightsAction":""}`, `ValidationException: 1 validation error detected: Value '' at 'contributorInsightsAction' failed to satisfy constraint: Member must satisfy enum value set: [ENABLE, DISABLE]`, 0},
		{"update", `{"TableName":"cit","ContributorInsightsAction":"ENABLE","ContributorInsightsMode":"ALL"}`, `ValidationException: 1 validation error detected: Value 'ALL' at 'contributorInsightsMode' failed to satisfy constraint: Member must satisfy enum value set: [THROTTLED_KEYS, ACCESSED_AND_THROTTLED_KEYS]`, 0},
		{"update", `{"TableName":"cit"}`, `ValidationException: 1 validation error detected: Value null at 'contributorInsightsAction' failed to satisfy constraint: Member must not be null`, 0},
		{"describe", `{"TableName":"cit","IndexName":""}`, `ValidationException: IndexName must be at least 3 characters long and at most 255 characters long`, 0},
		{"list", `{"MaxResults":101}`, `ValidationException: 1 validation error detected: Value '101' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 100`, 0},
		{"list", `{"NextToken":"!!"}`, `ValidationException: Invalid NextToken`, 0},
		{"list", `{"TableName":"nope"}`, `ResourceNotFoundException: Requested resource not found: Table: nope not found`, 0},
		// An ARN of another account or region names no table here.
		{"describe", `{"TableName":"arn:aws:dynamodb:eu-west-1:999999999999:table/cit"}`, `ResourceNotFoundException: Requested resource not found: Table: arn:aws:dynamodb:eu-west-1:999999999999:table/cit not found`, 0},
	})
}

// TestContributorInsights_CreatingTable: a table still CREATING cannot
// have Contributor Insights enabled.
func TestContributorInsights_CreatingTable(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now, CreateDelay: 5 * time.Second}, "")
	mustRun(t, e, (*Engine).CreateTable, ciTable)
	_, err := run(e, (*Engine).UpdateContributorInsights, `{"TableName":"cit","ContributorInsightsAction":"ENABLE"}`)
	if want := "ValidationException: Table or Index is not in a valid state to update Key Access Insights: TableStatus must be ACTIVE to enable ContributorInsights."; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

// report returns the engine's insights report for table as decoded JSON.
func report(t *testing.T, e *Engine, table string) *InsightsReport {
	t.Helper()
	r, err := e.Insights(context.Background(), table, time.Minute, 5)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(r)
	var back InsightsReport
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TestInsights_Seed001 is seed 001's hot GSI key seen through the
// insights report: with Contributor Insights on the GSI, STATUS#open is
// its most accessed and most throttled partition key, its partition is
// the one that throttled, and the traffic is costed; the sharded key
// spreads the load and nothing throttles.
func TestInsights_Seed001(t *testing.T) {
	e, clock := throttledEngine(t, throttle.Options{Scale: 100}, ordersTable)
	mustRun(t, e, (*Engine).UpdateContributorInsights, `{"TableName":"orders","IndexName":"GSI2","ContributorInsightsAction":"ENABLE"}`)
	mustRun(t, e, (*Engine).UpdateContributorInsights, `{"TableName":"orders","ContributorInsightsAction":"ENABLE"}`)
	throttled := 0
	for i := 0; i < 200; i++ { // 20 a second for 10 s
		_, err := run(e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"orders","Item":{"PK":{"S":"ORDER#%d"},"SK":{"S":"ORDER#%d"},"GSI2PK":{"S":"STATUS#open"},"GSI2SK":{"S":"2026-01-01T00:00:%06d"}}}`, i, i, i))
		if err != nil {
			throttled++
		}
		clock.Advance(50 * time.Millisecond)
	}
	r := report(t, e, "orders")
	if len(r.KeySpaces) != 2 || r.KeySpaces[1].Index != "GSI2" || !r.Throttling || r.CapacityScale != 100 {
		t.Fatalf("report: %+v", r)
	}
	gsi := r.KeySpaces[1]
	if len(gsi.MostAccessedPartitionKeys) != 1 || string(gsi.MostAccessedPartitionKeys[0].Key) != `{"GSI2PK":{"S":"STATUS#open"}}` {
		t.Fatalf("most accessed GSI partition keys: %+v", gsi.MostAccessedPartitionKeys)
	}
	if len(gsi.MostThrottledPartitionKeys) != 1 || gsi.MostThrottledPartitionKeys[0].Throttled != throttled ||
		string(gsi.MostThrottledPartitionKeys[0].Key) != `{"GSI2PK":{"S":"STATUS#open"}}` {
		t.Fatalf("most throttled GSI partition keys: %+v (%d throttled)", gsi.MostThrottledPartitionKeys, throttled)
	}
	if k := gsi.MostAccessedKeys; len(k) != 5 || !strings.HasPrefix(string(k[0].Key), `{"GSI2PK":{"S":"STATUS#open"},"GSI2SK":{"S":"2026-01-01T`) {
		t.Fatalf("most accessed GSI keys: %+v", k)
	}
	hot := 0
	for _, p := range gsi.Partitions {
		if p.WriteThrottled > 0 {
			hot++
			if p.WriteThrottled != throttled || p.WriteLimit != 10 || p.WriteUnits < 1.5 {
				t.Fatalf("hot partition: %+v", p)
			}
		}
	}
	if hot != 1 || len(gsi.Partitions) != 4 {
		t.Fatalf("%d hot partitions of %d, want 1 of 4", hot, len(gsi.Partitions))
	}
	// Units a second over the minute: (200 - throttled) one-unit writes.
	if want := float64(200-throttled) / r.WindowSeconds; gsi.WriteUnits < want*0.99 || gsi.WriteUnits > want*1.01 {
		t.Fatalf("GSI write units %.3f/s, want %.3f", gsi.WriteUnits, want)
	}
	if gsi.Cost.OnDemandHour <= 0 || gsi.ProductionCost == nil || gsi.ProductionCost.OnDemandHour < 99*gsi.Cost.OnDemandHour {
		t.Fatalf("cost %+v, production %+v", gsi.Cost, gsi.ProductionCost)
	}
	// The table's own keys: no key stands out, nothing throttled there.
	if tb := r.KeySpaces[0]; len(tb.MostThrottledPartitionKeys) != 0 || len(tb.MostAccessedPartitionKeys) != 5 {
		t.Fatalf("table view: %+v", tb)
	}

	// Sharded: 16 shards, the same rate, a minute later.
	clock.Advance(2 * time.Minute)
	for i := 1000; i < 1200; i++ {
		if _, err := run(e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"orders","Item":{"PK":{"S":"ORDER#%d"},"SK":{"S":"ORDER#%d"},"GSI2PK":{"S":"STATUS#open#%d"},"GSI2SK":{"S":"x"}}}`, i, i, i%16)); err != nil {
			t.Fatalf("sharded write %d: %v", i, err)
		}
		clock.Advance(50 * time.Millisecond)
	}
	gsi = report(t, e, "orders").KeySpaces[1]
	if len(gsi.MostThrottledPartitionKeys) != 0 || len(gsi.MostAccessedPartitionKeys) != 5 ||
		!strings.HasPrefix(string(gsi.MostAccessedPartitionKeys[0].Key), `{"GSI2PK":{"S":"STATUS#open#`) {
		t.Fatalf("sharded GSI view: %+v", gsi)
	}
	for _, p := range gsi.Partitions {
		if p.WriteThrottled != 0 {
			t.Fatalf("sharded: partition throttled: %+v", p)
		}
	}
}

// TestInsights_WithoutThrottling: consumed units and Contributor Insights
// work with throttling off; partitions are left out; a Query counts once
// for its partition key and a Scan not at all.
func TestInsights_WithoutThrottling(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now}, "")
	mustRun(t, e, (*Engine).CreateTable, ciTable)
	mustRun(t, e, (*Engine).UpdateContributorInsights, `{"TableName":"cit","ContributorInsightsAction":"ENABLE"}`)
	for i := range 10 {
		mustRun(t, e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"cit","Item":{"pk":{"S":"a"},"sk":{"S":"%d"}}}`, i))
	}
	mustRun(t, e, (*Engine).PutItem, `{"TableName":"cit","Item":{"pk":{"S":"b"},"sk":{"S":"1"}}}`)
	mustRun(t, e, (*Engine).Query, `{"TableName":"cit","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"b"}},"ConsistentRead":true}`)
	mustRun(t, e, (*Engine).Scan, `{"TableName":"cit"}`)
	clock.Advance(time.Second)
	r := report(t, e, "cit")
	tb := r.KeySpaces[0]
	if r.Throttling || len(tb.Partitions) != 0 {
		t.Fatalf("throttling off, yet %+v", r)
	}
	span := r.WindowSeconds
	pks := tb.MostAccessedPartitionKeys
	if len(pks) != 2 || string(pks[0].Key) != `{"pk":{"S":"a"}}` || pks[0].WriteUnits*span < 9.99 || pks[0].WriteUnits*span > 10.01 ||
		string(pks[1].Key) != `{"pk":{"S":"b"}}` || pks[1].ReadUnits*span < 0.99 || pks[1].ReadUnits*span > 1.01 {
		t.Fatalf("partition keys over %v s: %+v", span, pks)
	}
	if len(tb.MostAccessedKeys) != 5 || !strings.HasPrefix(string(tb.MostAccessedKeys[0].Key), `{"pk":{"S":`) || !strings.Contains(string(tb.MostAccessedKeys[0].Key), `"sk":{"S":`) {
		t.Fatalf("keys: %+v", tb.MostAccessedKeys)
	}
	// 11 writes of 1 unit, a Query of 1 (strong) and a Scan of 0.5.
	if want := 1.5 / span; tb.ReadUnits < want*0.999 || tb.ReadUnits > want*1.001 || tb.WriteUnits*span < 10.99 || tb.WriteUnits*span > 11.01 {
		t.Fatalf("table units: %.4f read, %.4f write a second", tb.ReadUnits, tb.WriteUnits)
	}
	if _, err := e.Insights(context.Background(), "nope", time.Minute, 5); err == nil || !strings.Contains(err.Error(), "Table: nope not found") {
		t.Fatalf("missing table: %v", err)
	}
}

// TestWarmThroughput_Grows: an on-demand table's WarmThroughput in
// DescribeTable is what its partitions serve, and grows with its peak.
func TestWarmThroughput_Grows(t *testing.T) {
	e, clock := throttledEngine(t, throttle.Options{Scale: 100}, accountsTable)
	warm := func() (int64, int64) {
		d := mustRun(t, e, (*Engine).DescribeTable, `{"TableName":"accounts"}`).Table
		return d.WarmRead, d.WarmWrite
	}
	if r, w := warm(); r != 12000 || w != 4000 {
		t.Fatalf("new table warm throughput %d/%d, want 12000/4000", r, w)
	}
	// 32 writes a second (3,200 in production) for 3 s: the peak asks for
	// double, 7 partitions.
	for i := range 96 {
		mustRun(t, e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"accounts","Item":{"pk":{"S":"k%d"}}}`, i))
		clock.Advance(time.Second / 32)
	}
	if r, w := warm(); r != 21000 || w != 7000 {
		t.Fatalf("warm throughput after a 3,200 WCU peak: %d/%d, want 21000/7000", r, w)
	}
}

// TestInsights_FreshStart: enabling Contributor Insights anew, or in
// another mode, starts its key views afresh, and THROTTLED_KEYS mode has
// no most accessed views; the units consumed stay.
func TestInsights_FreshStart(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now}, "")
	mustRun(t, e, (*Engine).CreateTable, ciTable)
	enable := func(mode string) {
		mustRun(t, e, (*Engine).UpdateContributorInsights, `{"TableName":"cit","ContributorInsightsAction":"ENABLE","ContributorInsightsMode":"`+mode+`"}`)
	}
	put := func(pk string) {
		mustRun(t, e, (*Engine).PutItem, `{"TableName":"cit","Item":{"pk":{"S":"`+pk+`"},"sk":{"S":"1"}}}`)
	}
	enable("ACCESSED_AND_THROTTLED_KEYS")
	put("before")
	mustRun(t, e, (*Engine).UpdateContributorInsights, `{"TableName":"cit","ContributorInsightsAction":"DISABLE"}`)
	put("while-off")
	enable("ACCESSED_AND_THROTTLED_KEYS")
	put("after")
	clock.Advance(time.Second)
	tb := report(t, e, "cit").KeySpaces[0]
	if len(tb.MostAccessedPartitionKeys) != 1 || string(tb.MostAccessedPartitionKeys[0].Key) != `{"pk":{"S":"after"}}` {
		t.Fatalf("after re-enabling: %+v", tb.MostAccessedPartitionKeys)
	}
	if got := tb.WriteUnits * report(t, e, "cit").WindowSeconds; got < 2.99 || got > 3.01 {
		t.Fatalf("table units %.2f, want all 3 writes", got)
	}
	enable("THROTTLED_KEYS")
	put("throttled-mode")
	tb = report(t, e, "cit").KeySpaces[0]
	if tb.Mode != "THROTTLED_KEYS" || tb.MostAccessedPartitionKeys != nil || tb.MostAccessedKeys != nil {
		t.Fatalf("THROTTLED_KEYS mode shows accessed keys: %+v", tb)
	}
}
