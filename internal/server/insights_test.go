package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/server"
)

// TestServe_Insights: GET /insights serves the engine's report as JSON
// and answers bad parameters with 400 and a missing table with 404; the
// consumed-units metric counts without --throttle.
func TestServe_Insights(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ts := startServer(t, engine.Options{Now: func() time.Time { return now }}, server.Options{Metrics: server.NewMetrics()})
	mustOK(t, ts, "CreateTable", `{"TableName":"ins","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`)
	mustOK(t, ts, "UpdateContributorInsights", `{"TableName":"ins","ContributorInsightsAction":"ENABLE"}`)
	for range 3 {
		mustOK(t, ts, "PutItem", `{"TableName":"ins","Item":{"pk":{"S":"hot"}}}`)
	}
	get := func(query string) (int, string) {
		resp, err := http.Get(ts.URL + "/insights" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", query, ct)
		}
		return resp.StatusCode, string(body)
	}
	for _, tc := range []struct {
		query string
		code  int
		want  string
	}{
		{"", 400, `"error":"the table parameter is required`},
		{"?table=ins&window=soon", 400, `window must be a duration from 10s to 5m`},
		{"?table=ins&window=-1s", 400, `window must be a duration from 10s to 5m`},
		{"?table=ins&window=1h", 400, `window must be a duration from 10s to 5m`},
		{"?table=ins&window=1s", 400, `window must be a duration from 10s to 5m`},
		{"?table=ab", 400, `"error":"1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"`},
		{"?table=ins&top=0", 400, `top must be a whole number from 1 to 100`},
		{"?table=nope", 404, `"error":"Requested resource not found: Table: nope not found"`},
		{"?table=ins&top=1&window=10s", 200, `"mostAccessedPartitionKeys": [
        {
          "key": {
            "pk": {
              "S": "hot"
            }
          },
          "readUnitsPerSecond": 0,
          "writeUnitsPerSecond": 3,`}, // the table is as old as the clock: a second's window,
	} {
		code, body := get(tc.query)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("GET /insights%s = %d %s, want %d with %s", tc.query, code, body, tc.code, tc.want)
		}
	}
	_, body := get("?table=ins")
	var rep engine.InsightsReport
	if err := json.Unmarshal([]byte(body), &rep); err != nil || rep.Table != "ins" || rep.Throttling || rep.WindowSeconds != 1 || // no older than the table, at least a second

		rep.KeySpaces[0].ContributorInsights != "ENABLED" || rep.Prices.Region != "us-east-1" {
		t.Fatalf("report %+v, %v", rep, err)
	}
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `dynago_consumed_capacity_units_total{index="",kind="write",table="ins"} 3`; !strings.Contains(string(metrics), want) {
		t.Errorf("/metrics lacks %s without --throttle", want)
	}
}
