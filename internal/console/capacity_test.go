package console_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/console"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/throttle"
)

// clock is a test clock the engine reads (engine.Options.Now).
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 1, 0, 0, 3, 0, time.UTC)} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// ordersTable has a GSI whose partition key seed 001 makes hot
// (STATUS#open).
const ordersTable = `{"TableName":"orders","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],
 "AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},{"AttributeName":"GSI1PK","AttributeType":"S"},{"AttributeName":"GSI1SK","AttributeType":"S"}],
 "BillingMode":"PAY_PER_REQUEST",
 "GlobalSecondaryIndexes":[{"IndexName":"GSI1","KeySchema":[{"AttributeName":"GSI1PK","KeyType":"HASH"},{"AttributeName":"GSI1SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]}`

// capacityEnv is a console over an engine on a test clock, with
// orders created; throttled says serve --throttle --capacity-scale 100.
func capacityEnv(t *testing.T, throttled bool) (*env, *clock) {
	t.Helper()
	clk := newClock()
	eo := engine.Options{Now: clk.Now}
	co := console.Options{}
	if throttled {
		eo.Throttle = &throttle.Options{Scale: 100}
		co.Throttle, co.CapacityScale = true, 100
	}
	e := newEnv(t, co, eo)
	e.api("CreateTable", ordersTable)
	clk.Advance(20 * time.Second)
	return e, clk
}

// burst writes n items at 20 a second, every one on GSI1PK
// STATUS#open, and returns how many were throttled.
func burst(e *env, clk *clock, from, n int) int {
	throttled := 0
	for i := from; i < from+n; i++ {
		body := fmt.Sprintf(`{"TableName":"orders","Item":{"PK":{"S":"ORDER#%d"},"SK":{"S":"A"},"GSI1PK":{"S":"STATUS#open"},"GSI1SK":{"S":"%06d"}}}`, i, i)
		if status, _ := e.srv.Invoke(e.t.Context(), "DynamoDB_20120810.PutItem", []byte(body)); status != http.StatusOK {
			throttled++
		}
		clk.Advance(50 * time.Millisecond)
	}
	return throttled
}

// capacityData fetches the capacity page's JSON.
func capacityData(t *testing.T, e *env, query string) (int, console.CapacityData, string) {
	t.Helper()
	status, body := e.get("/console/capacity/data?" + query)
	var d console.CapacityData
	if status == http.StatusOK {
		if err := json.Unmarshal([]byte(body), &d); err != nil {
			t.Fatalf("data: %v\n%s", err, body)
		}
	}
	return status, d, body
}

// TestCapacity_DataMatchesInsights: after a burst of writes on one GSI
// key and a few reads, the data endpoint's series for the table and the
// GSI add up to the engine's insights report for the same window (what
// GET /insights and dynago insights show), its per-slot rates follow
// the traffic, and, with throttling, each partition's steps add up to
// the report's partition figures, throttles marked on the GSI's hot
// partition only.
func TestCapacity_DataMatchesInsights(t *testing.T) {
	for _, tc := range []struct {
		name      string
		throttled bool
		window    string
		d         time.Duration
	}{
		{"throttling on, 1m", true, "1m", time.Minute},
		{"throttling on, 5m", true, "5m", 5 * time.Minute},
		{"throttling off, 2m", false, "2m", 2 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, clk := capacityEnv(t, tc.throttled)
			throttled := burst(e, clk, 0, 200)
			for range 4 {
				e.api("GetItem", `{"TableName":"orders","Key":{"PK":{"S":"ORDER#1"},"SK":{"S":"A"}},"ConsistentRead":true}`)
			}
			clk.Advance(5 * time.Second)
			status, d, body := capacityData(t, e, "table=orders&window="+tc.window)
			if status != http.StatusOK {
				t.Fatalf("data: %d %s", status, body)
			}
			rep, err := e.eng.Insights(t.Context(), "orders", tc.d, 10)
			if err != nil {
				t.Fatal(err)
			}
			if d.Table != "orders" || !d.At.Equal(rep.At) || d.WindowSeconds != rep.WindowSeconds || d.Throttling != tc.throttled || len(d.KeySpaces) != 2 || d.KeySpaces[1].Index != "GSI1" {
				t.Fatalf("data %+v, report at %v over %v s", d, rep.At, rep.WindowSeconds)
			}
			if (throttled > 0) != tc.throttled {
				t.Fatalf("%d of 200 writes throttled", throttled)
			}
			for i, ks := range d.KeySpaces {
				rs := rep.KeySpaces[i]
				if ks.ReadUnits != rs.ReadUnits || ks.WriteUnits != rs.WriteUnits || ks.ContributorInsights != "DISABLED" {
					t.Errorf("%q: %.4f/%.4f units a second, report %.4f/%.4f", ks.Index, ks.ReadUnits, ks.WriteUnits, rs.ReadUnits, rs.WriteUnits)
				}
				// The series: slot starts 10 s apart, each rate over the
				// part of the window the slot holds.
				var read, write float64
				for j, start := range ks.Series.Time {
					from := math.Max(float64(start), float64(d.From.UnixNano())/1e9)
					to := math.Min(float64(start+10), float64(d.At.UnixNano())/1e9)
					secs := math.Max(to-from, 1)
					read += ks.Series.Read[j] * secs
					write += ks.Series.Write[j] * secs
					if j > 0 && start-ks.Series.Time[j-1] != 10 {
						t.Fatalf("%q: slots %d and %d are %d s apart", ks.Index, j-1, j, start-ks.Series.Time[j-1])
					}
				}
				if math.Abs(read/d.WindowSeconds-rs.ReadUnits) > 1e-9 || math.Abs(write/d.WindowSeconds-rs.WriteUnits) > 1e-9 {
					t.Errorf("%q: series %.3f/%.3f units over %v s, report %.4f/%.4f a second", ks.Index, read, write, d.WindowSeconds, rs.ReadUnits, rs.WriteUnits)
				}
				// 200 writes in 10 s less the throttled: 20 a second at
				// most in a slot of the burst.
				peak := 0.0
				for _, w := range ks.Series.Write {
					peak = math.Max(peak, w)
				}
				if peak < 5 || peak > 20.01 {
					t.Errorf("%q: peak write rate %.2f a second", ks.Index, peak)
				}
				if !tc.throttled {
					if ks.Heat != nil || ks.Partitions != nil {
						t.Errorf("%q: heat without throttling", ks.Index)
					}
					continue
				}
				if ks.Heat == nil || len(ks.Heat.Partitions) != len(rs.Partitions) || len(rs.Partitions) != 4 {
					t.Fatalf("%q: heat %+v, report partitions %+v", ks.Index, ks.Heat, rs.Partitions)
				}
				hot := 0
				for j, p := range ks.Heat.Partitions {
					var units float64
					thr := 0
					for k, secs := range ks.Heat.Seconds {
						units += p.WriteUnits[k] * secs
						thr += p.WriteThrottled[k]
					}
					rp := rs.Partitions[j]
					if p.HashStart != rp.HashStart || math.Abs(units/d.WindowSeconds-rp.WriteUnits) > 1e-9 || thr != rp.WriteThrottled || p.WriteLimit != 10 || p.ReadLimit != 30 {
						t.Errorf("%q partition %d: %.2f units, %d throttled, limits %v/%v; report %+v", ks.Index, j, units, thr, p.ReadLimit, p.WriteLimit, rp)
					}
					if thr > 0 {
						hot++
					}
				}
				if want := map[string]int{"": 0, "GSI1": 1}[ks.Index]; hot != want {
					t.Errorf("%q: %d partitions with throttle marks, want %d", ks.Index, hot, want)
				}
			}
		})
	}
}

// TestCapacity_Page: the page picks the first table, shows its key
// spaces with the report's figures, says what partition heat needs
// without --throttle, and shows DynamoDB's words for a missing table;
// the data endpoint answers errors as JSON.
func TestCapacity_Page(t *testing.T) {
	for _, tc := range []struct {
		name      string
		throttled bool
		path      string
		status    int
		want      []string
		not       []string
	}{
		{"throttled", true, "/console/capacity", 200,
			[]string{`<option value="orders" selected>orders</option>`, "GSI GSI1", "Throttling on", "--capacity-scale 100", "30 read and 10 write units a second",
				`dynago insights orders --window 5m`, `canvas class="ks-heat"`, `data-src="/console/capacity/data?table=orders&amp;window=5m"`, "Enable Contributor Insights on GSI1",
				// On demand without a maximum: what limits it, in words
				// (DynamoDB's 3,000 RCU and 1,000 WCU a partition:
				// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html).
				"none of its own (on-demand, no maximum): only each partition's limits of 30 / 10 units a second apply (DynamoDB's 3,000 / 1,000 divided by <code>--capacity-scale 100</code>)",
				"Most accessed partition keys <span class=\"muted\">(units a second, averaged over the last 5m)</span>", "Times are UTC."},
			[]string{"Partition heat needs", "partitions only"}},
		{"not throttled", false, "/console/capacity?table=orders&window=1m", 200,
			[]string{"Partition heat needs <code>dynago serve --throttle</code>", "Table and index units are recorded either way", `dynago insights orders --window 1m`, "ks-chart",
				"none of its own (on-demand, no maximum): DynamoDB's only limit is each partition's 3,000 / 1,000, which dynago models with <code>serve --throttle</code>",
				"averaged over the last 1m"},
			[]string{"canvas", "partitions only"}},
		{"a bad window is the default", false, "/console/capacity?window=7h", 200, []string{"--window 5m"}, nil},
		{"missing table", false, "/console/capacity?table=nope", 400,
			[]string{"ResourceNotFoundException", "Requested resource not found: Table: nope not found"}, []string{"ks-chart"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := capacityEnv(t, tc.throttled)
			status, body := e.get(tc.path)
			if status != tc.status {
				t.Fatalf("%s: %d\n%s", tc.path, status, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(body, n) {
					t.Errorf("page has %q", n)
				}
			}
			if status == 200 && strings.Count(body, "UTC") != 1 {
				t.Errorf("the page names the time zone %d times, want once", strings.Count(body, "UTC"))
			}
		})
	}
	e, _ := capacityEnv(t, false)
	for _, tc := range []struct {
		query  string
		status int
		want   string
	}{
		{"table=nope", 400, `"error":"Requested resource not found: Table: nope not found","type":"ResourceNotFoundException"`},
		{"", 400, "the table parameter is required"},
		{"table=a", 400, "ValidationException"},
	} {
		status, _, body := capacityData(t, e, tc.query)
		if status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("data?%s: %d %s, want %d %s", tc.query, status, body, tc.status, tc.want)
		}
	}
	empty := newEnv(t, console.Options{}, engine.Options{})
	if status, body := empty.get("/console/capacity"); status != 200 || !strings.Contains(body, "No tables yet") {
		t.Errorf("no tables: %d\n%s", status, body)
	}
}

// TestCapacity_EnableContributorInsights: the page's button enables
// Contributor Insights through UpdateContributorInsights (the status
// DescribeContributorInsights then reports), after which a hot key is
// listed as the most accessed and most throttled; without the CSRF
// token the POST is refused, and DynamoDB's refusal (no such index) is
// shown as DynamoDB words it.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContributorInsights.html
func TestCapacity_EnableContributorInsights(t *testing.T) {
	e, clk := capacityEnv(t, true)
	_, body := e.get("/console/capacity?table=orders")
	if n := strings.Count(body, `action="/console/capacity/insights"`); n != 2 {
		t.Fatalf("%d enable forms, want 2 (table and GSI)", n)
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"no csrf", url.Values{"csrf": {""}, "table": {"orders"}}, 403, ""},
		{"no such index", url.Values{"table": {"orders"}, "index": {"nope"}}, 400, "Requested resource not found: Index: nope not found for table: orders"},
		{"the table", url.Values{"table": {"orders"}, "window": {"1m"}}, 200, "Contributor Insights enabled"},
		{"the GSI", url.Values{"table": {"orders"}, "index": {"GSI1"}}, 200, "Contributor Insights enabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := e.post("/console/capacity/insights", tc.form)
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("%d, want %d with %q\n%s", status, tc.status, tc.want, body)
			}
		})
	}
	for _, index := range []string{"", `,"IndexName":"GSI1"`} {
		d := e.api("DescribeContributorInsights", `{"TableName":"orders"`+index+`}`)
		if d["ContributorInsightsStatus"] != "ENABLED" {
			t.Fatalf("DescribeContributorInsights %s: %v", index, d)
		}
	}
	if _, body := e.get("/console/capacity?table=orders"); strings.Contains(body, `action="/console/capacity/insights"`) {
		t.Fatal("an enable button on enabled key spaces")
	}
	throttled := burst(e, clk, 0, 200)
	_, d, _ := capacityData(t, e, "table=orders&window=1m")
	gsi := d.KeySpaces[1]
	if gsi.ContributorInsights != "ENABLED" || len(gsi.MostAccessedPartitionKeys) != 1 || string(gsi.MostAccessedPartitionKeys[0].Key) != `{"GSI1PK":{"S":"STATUS#open"}}` ||
		len(gsi.MostThrottledPartitionKeys) != 1 || gsi.MostThrottledPartitionKeys[0].Throttled != throttled || throttled == 0 {
		t.Fatalf("GSI keys: %+v / %+v (%d throttled)", gsi.MostAccessedPartitionKeys, gsi.MostThrottledPartitionKeys, throttled)
	}
	_, body = e.get("/console/capacity?table=orders&window=1m")
	if !strings.Contains(body, `<code class="key">GSI1PK=STATUS#open</code>`) || !strings.Contains(body, fmt.Sprintf("%d throttled", throttled)) {
		t.Fatalf("page lacks the hot key:\n%s", body)
	}
}
