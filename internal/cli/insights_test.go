package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/server"
	"github.com/dynago/dynago/internal/storage/pebble"
	"github.com/dynago/dynago/internal/throttle"
)

// insightsServer runs a server with throttling at scale 100 and seed
// 001's hot GSI key written 200 times over 10 s of engine clock.
func insightsServer(t *testing.T) string {
	t.Helper()
	st, err := pebble.Open(pebble.Options{InMemory: true, ReadCached: catalog.IsKey})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	eng := engine.New(st, engine.Options{Now: clock, Throttle: &throttle.Options{Scale: 100}})
	srv := server.New(eng, server.Options{})
	srv.MarkReady()
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); eng.Close(); st.Close() })
	ctx := context.Background()
	do := func(op func(context.Context, *engine.Engine, []byte) error, body string) {
		t.Helper()
		if err := op(ctx, eng, []byte(body)); err != nil && !strings.Contains(err.Error(), "Throughput exceeds") {
			t.Fatal(err)
		}
	}
	do(decodeRun((*engine.Engine).CreateTable), `{"TableName":"orders","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"}],
	 "AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"GSI2PK","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST",
	 "GlobalSecondaryIndexes":[{"IndexName":"GSI2","KeySchema":[{"AttributeName":"GSI2PK","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`)
	do(decodeRun((*engine.Engine).UpdateContributorInsights), `{"TableName":"orders","IndexName":"GSI2","ContributorInsightsAction":"ENABLE"}`)
	for i := range 200 {
		do(decodeRun((*engine.Engine).PutItem), fmt.Sprintf(`{"TableName":"orders","Item":{"PK":{"S":"ORDER#%d"},"GSI2PK":{"S":"STATUS#open"}}}`, i))
		now = now.Add(50 * time.Millisecond)
	}
	return ts.URL
}

// decodeRun adapts an engine operation to take a request body.
func decodeRun[P any, I interface {
	*P
	api.Request
}, O any](fn func(*engine.Engine, context.Context, I) (O, error)) func(context.Context, *engine.Engine, []byte) error {
	return func(ctx context.Context, e *engine.Engine, body []byte) error {
		in := I(new(P))
		if err := api.DecodeInput(body, in); err != nil {
			return err
		}
		if err := in.Prepare(); err != nil {
			return err
		}
		_, err := fn(e, ctx, in)
		return err
	}
}

// TestInsightsCommand: `dynago insights orders` names STATUS#open as the
// GSI's most accessed and most throttled partition key, marks its
// partition hot, costs the traffic, and with --format json prints the
// report; --prices recosts it.
func TestInsightsCommand(t *testing.T) {
	url := insightsServer(t)
	var out, errOut bytes.Buffer
	if code := Main([]string{"insights", "orders", "--endpoint", url}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	text := out.String()
	for _, want := range []string{
		"Table orders: the last 10s", // the minute asked for, but the table is 10 s old
		"Throttling on: DynamoDB's limits divided by 100 (a partition serves 30 read and 10 write units a second).",
		"table orders (PAY_PER_REQUEST)",
		"Contributor Insights is off: aws dynamodb update-contributor-insights --table-name orders --contributor-insights-action ENABLE",
		"index GSI2\n",
		"  most accessed partition keys:\n    GSI2PK=\"STATUS#open\"",
		"  most throttled partition keys:\n    GSI2PK=\"STATUS#open\"",
		"  HOT\n",
		"at production scale (x100): $",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	out.Reset()
	prices := filepath.Join(t.TempDir(), "double.json")
	if err := os.WriteFile(prices, []byte(`{"region":"test","onDemandWritePerMillion":1.25,"onDemandReadPerMillion":0.25,
		"provisionedRCUHour":0.00026,"provisionedWCUHour":0.0013,"storageGBMonth":0.5}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := Main([]string{"insights", "orders", "--endpoint", url, "--format", "json", "--prices", prices}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var rep engine.InsightsReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	gsi := rep.KeySpaces[1]
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }
	if rep.Prices.Region != "test" || !near(gsi.Cost.OnDemandHour, 3600*gsi.WriteUnits*1.25/1e6) || !near(gsi.ProductionCost.OnDemandHour, 100*gsi.Cost.OnDemandHour) {
		t.Fatalf("recosted report: prices %+v, cost %+v, production %+v", rep.Prices, gsi.Cost, gsi.ProductionCost)
	}
}

// TestInsightsCommand_Errors: usage errors exit 2, a server's refusal 1,
// each with a sentence naming the fault.
func TestInsightsCommand_Errors(t *testing.T) {
	url := insightsServer(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"insights"}, 2, "insights takes one table name, got 0 arguments"},
		{[]string{"insights", "orders", "--format", "xml"}, 2, "--format must be text or json"},
		{[]string{"insights", "orders", "--top", "0"}, 2, "--top must be from 1 to 100"},
		{[]string{"insights", "orders", "--window", "1s"}, 2, "--window must be from 10s to 5m"},
		{[]string{"insights", "orders", "--endpoint", "localhost:8000"}, 2, "--endpoint must be an http(s) URL"},
		{[]string{"insights", "orders", "--prices", "/nonexistent.json"}, 2, "--prices: open /nonexistent.json"},
		{[]string{"insights", "nope", "--endpoint", url}, 1, "dynago: Requested resource not found: Table: nope not found"},
		{[]string{"insights", "ab", "--endpoint", url}, 1, "dynago: 1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{[]string{"insights", "orders", "--endpoint", "http://127.0.0.1:1"}, 1, "cannot reach the server at http://127.0.0.1:1"},
	} {
		var out, errOut bytes.Buffer
		code := Main(tc.args, &out, &errOut)
		if code != tc.code || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want %d with %q", tc.args, code, errOut.String(), tc.code, tc.want)
		}
	}
}
