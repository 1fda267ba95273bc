package designtraffic_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/designtraffic"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/server"
	"github.com/dynago/dynago/internal/storage/teststore"
)

var _ server.Interceptor = (*designtraffic.Classifier)(nil)

// startServer returns a ready test HTTP server over an in-memory store,
// wired as serve wires --design: GET /design/traffic always, and with t a
// Classifier (strict for --design-strict) whose metrics are in the
// server's. Test cleanup stops it.
func startServer(tb testing.TB, t *design.Traffic, strict bool) *httptest.Server {
	tb.Helper()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	metrics := server.NewMetrics()
	so := server.Options{Metrics: metrics, Endpoints: map[string]http.Handler{"/design/traffic": designtraffic.Handler(t)}}
	if t != nil {
		c, err := designtraffic.New(t, strict, metrics.Registerer())
		if err != nil {
			tb.Fatal(err)
		}
		so.Intercept = c
	}
	eng := engine.New(teststore.Open(tb), engine.Options{Now: func() time.Time { return now }, Observer: metrics})
	s := server.New(eng, so)
	s.MarkReady()
	ts := httptest.NewServer(s)
	tb.Cleanup(func() { ts.Close(); eng.Close() })
	return ts
}

// call sends one API request and returns status, headers and body.
func call(tb testing.TB, ts *httptest.Server, op, body string) (int, http.Header, []byte) {
	tb.Helper()
	req, _ := http.NewRequest("POST", ts.URL+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260102/eu-west-2/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc")
	req.Header.Set("X-Amz-Date", "20260102T030405Z")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// TestDesignTraffic: with a design attached (serve --design) requests,
// and each item of a batch or transaction, are classified as its patterns
// or undeclared paths, shown at GET
// /design/traffic and in the dynago_design_* metrics; when strict
// an undeclared Scan is refused with AccessDeniedException and a
// declared Query still runs.
func TestDesignTraffic(t *testing.T) {
	d, diags, err := design.Load("../../examples/ecommerce.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	tr, err := design.NewTraffic([]*design.Design{d})
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, tr, true)
	steps := []struct{ op, body, want string }{
		{"CreateTable", `{"TableName":"ecommerce","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"}]}`, `"TableStatus"`},
		{"PutItem", `{"TableName":"ecommerce","Item":{"PK":{"S":"USER#alice"},"SK":{"S":"USER#alice"},"Type":{"S":"USER"}}}`, `{}`},
		{"PutItem", `{"TableName":"ecommerce","Item":{"PK":{"S":"USER#alice"},"SK":{"S":"ORDER#1"},"Type":{"S":"ORDER"}}}`, `{}`},
		{"PutItem", `{"TableName":"ecommerce","Item":{"PK":{"S":"JUNK"},"SK":{"S":"X"}}}`, `{}`},
		{"PutItem", `{"TableName":"ecommerce","Item":{"PK":{"S":"USER#alice"},"SK":{"S":"USER#alice"}},"ConditionExpression":"attribute_not_exists(PK)"}`, `ConditionalCheckFailedException`},
		{"GetItem", `{"TableName":"ecommerce","Key":{"PK":{"S":"USER#alice"},"SK":{"S":"USER#alice"}}}`, `"Item"`},
		{"Query", `{"TableName":"ecommerce","KeyConditionExpression":"PK = :p AND begins_with(SK, :s)","ExpressionAttributeValues":{":p":{"S":"USER#alice"},":s":{"S":"ORDER#"}}}`, `"Count":1`},
		{"Query", `{"TableName":"ecommerce","KeyConditionExpression":"PK = :p","FilterExpression":"#t = :o","ExpressionAttributeNames":{"#t":"Type"},"ExpressionAttributeValues":{":p":{"S":"USER#alice"},":o":{"S":"ORDER"}}}`, `"Count":1,"ScannedCount":2`},
		{"BatchWriteItem", `{"RequestItems":{"ecommerce":[{"PutRequest":{"Item":{"PK":{"S":"USER#bob"},"SK":{"S":"USER#bob"},"Type":{"S":"USER"}}}}]}}`, `"UnprocessedItems":{}`},
		{"BatchGetItem", `{"RequestItems":{"ecommerce":{"Keys":[{"PK":{"S":"USER#alice"},"SK":{"S":"USER#alice"}}]}}}`, `"Responses"`},
		{"TransactWriteItems", `{"TransactItems":[{"Update":{"TableName":"ecommerce","Key":{"PK":{"S":"USER#alice"},"SK":{"S":"ORDER#1"}},"UpdateExpression":"SET #s = :s","ExpressionAttributeNames":{"#s":"Status"},"ExpressionAttributeValues":{":s":{"S":"shipped"}}}}]}`, `{}`},
		{"Scan", `{"TableName":"ecommerce"}`, `{"__type":"com.amazon.coral.service#AccessDeniedException","message":"dynago --design-strict: the design of table ecommerce declares no Scan: add an access pattern, or query by key"}`},
	}
	for _, s := range steps {
		if _, _, body := call(t, ts, s.op, s.body); !strings.Contains(string(body), s.want) {
			t.Fatalf("%s %s: %s, want %s", s.op, s.body, body, s.want)
		}
	}
	resp, err := http.Get(ts.URL + "/design/traffic?table=ecommerce")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Tables []design.TableTraffic }
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil || len(rep.Tables) != 1 {
		t.Fatalf("traffic: %v %+v", err, rep)
	}
	resp.Body.Close()
	got := map[string]design.PathStats{}
	for _, p := range rep.Tables[0].Paths {
		got[p.Pattern+"|"+p.Path] = *p
	}
	for key, want := range map[string]struct{ requests, failed, items, scanned int64 }{
		"1|GetItem table: PK = USER#<UserName> AND SK = USER#<UserName>": {2, 0, 0, 0},
		"6|Query table: PK = USER#<UserName> AND SK begins_with ORDER#":  {1, 0, 1, 1},
		"|Query table: PK = USER#<UserName>":                             {1, 0, 1, 2},
		"|Scan table":                                                    {1, 0, 0, 0},
		"|PutItem User":                                                  {3, 1, 0, 0},
		"|UpdateItem Order":                                              {1, 0, 0, 0},
		"|PutItem (no entity)":                                           {1, 0, 0, 0},
	} {
		p, ok := got[key]
		if !ok || p.Requests != want.requests || p.Failed != want.failed || p.Items != want.items || p.Scanned != want.scanned {
			t.Errorf("%s: %+v (present %v), want %+v", key, p, ok, want)
		}
	}
	if rep.Tables[0].Unmatched != 1 {
		t.Errorf("unmatched items: %d", rep.Tables[0].Unmatched)
	}
	for path, want := range map[string]string{"/design/traffic?table=nope": "no design for table nope"} {
		resp, _ := http.Get(ts.URL + path)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	resp, _ = http.Get(ts.URL + "/metrics")
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`dynago_design_requests_total{declared="true",pattern="6",table="ecommerce"} 1`,
		`dynago_design_requests_total{declared="false",pattern="Scan table",table="ecommerce"} 1`,
		`dynago_design_items_total{kind="scanned",pattern="Query table: PK = USER#<UserName>",table="ecommerce"} 2`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// Without a design the endpoint says how to attach one.
	plain := startServer(t, nil, false)
	resp, _ = http.Get(plain.URL + "/design/traffic")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(body), "start the server with --design FILE") {
		t.Errorf("no design: %d %s", resp.StatusCode, body)
	}
}

// read is a Query's or Scan's table and index ("" for the table).
func read(table, index string) api.ReadRequest {
	r := api.ReadRequest{TableName: &table}
	if index != "" {
		r.IndexName = &index
	}
	return r
}

// statement is a prepared ExecuteStatement request of src.
func statement(tb testing.TB, src string) *api.ExecuteStatementInput {
	tb.Helper()
	in := &api.ExecuteStatementInput{Statement: &src}
	if err := in.Prepare(); err != nil {
		tb.Fatal(err)
	}
	return in
}

// TestClassifier_Before: only a strict Classifier refuses, and only a
// Scan that no pattern of its table's design declares (recorded as its
// undeclared path); other tables and other operations pass unrecorded.
func TestClassifier_Before(t *testing.T) {
	d, diags, err := design.Load("../../examples/ecommerce.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	for _, tc := range []struct {
		name     string
		strict   bool
		op       string
		in       any
		want     string // the refusal's message; "" lets the request run
		recorded string // the undeclared path the refusal recorded
	}{
		{"not strict: a Scan runs", false, "Scan", &api.ScanInput{ReadRequest: read("ecommerce", "")}, "", ""},
		{"strict: an undeclared Scan", true, "Scan", &api.ScanInput{ReadRequest: read("ecommerce", "")}, "dynago --design-strict: the design of table ecommerce declares no Scan: add an access pattern, or query by key", "Scan table"},
		{"strict: an undeclared Scan of an index", true, "Scan", &api.ScanInput{ReadRequest: read("ecommerce", "GSI1")}, "dynago --design-strict: the design of table ecommerce declares no Scan on index GSI1: add an access pattern, or query by key", "Scan GSI1"},
		{"strict: a table without a design", true, "Scan", &api.ScanInput{ReadRequest: read("other", "")}, "", ""},
		{"strict: a Query is not refused", true, "Query", &api.QueryInput{ReadRequest: read("ecommerce", "")}, "", ""},
		{"strict: a control-plane call", true, "ListTables", &api.ListTablesInput{}, "", ""},
		{"strict: a PartiQL Scan", true, "ExecuteStatement", statement(t, `SELECT * FROM "ecommerce" WHERE Status = 'open'`), "dynago --design-strict: the design of table ecommerce declares no Scan: add an access pattern, or query by key", "Scan table"},
		{"strict: a PartiQL Scan of an index", true, "ExecuteStatement", statement(t, `SELECT * FROM "ecommerce"."GSI1"`), "dynago --design-strict: the design of table ecommerce declares no Scan on index GSI1: add an access pattern, or query by key", "Scan GSI1"},
		{"strict: a PartiQL Query is not refused", true, "ExecuteStatement", statement(t, `SELECT * FROM "ecommerce" WHERE PK = 'x'`), "", ""},
		{"strict: a PartiQL write is not refused", true, "ExecuteStatement", statement(t, `DELETE FROM "ecommerce" WHERE PK = 'x' AND SK = 'y'`), "", ""},
	} {
		tr, err := design.NewTraffic([]*design.Design{d})
		if err != nil {
			t.Fatal(err)
		}
		c, err := designtraffic.New(tr, tc.strict, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = c.Before(context.Background(), tc.op, tc.in)
		e, isDDB := ddberr.As(err)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != "" && (!isDDB || e.Code != ddberr.AccessDeniedException || e.Message != tc.want):
			t.Errorf("%s: %v, want AccessDeniedException %q", tc.name, err, tc.want)
		}
		var got []string
		for _, p := range tr.Report()[0].Paths {
			if p.Requests > 0 {
				got = append(got, p.Path)
			}
		}
		if strings.Join(got, ", ") != tc.recorded {
			t.Errorf("%s: recorded %q, want %q", tc.name, got, tc.recorded)
		}
	}
}

// TestClassifier_After: what ran is recorded, a failed request as failed
// and without its items, a Query's items from its output; a table
// without a design is not.
func TestClassifier_After(t *testing.T) {
	d, diags, err := design.Load("../../examples/ecommerce.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	query := &api.QueryInput{ReadRequest: read("ecommerce", "GSI2")}
	for _, tc := range []struct {
		name                             string
		in, out                          any
		err                              error
		requests, failed, items, scanned int64
	}{
		{"a Query that ran", query, &api.ReadOutput{Count: 1, ScannedCount: 10}, nil, 1, 0, 1, 10},
		{"a Query that failed", query, nil, errors.New("throttled"), 1, 1, 0, 0},
		{"a table without a design", &api.QueryInput{ReadRequest: read("other", "")}, &api.ReadOutput{Count: 1}, nil, 0, 0, 0, 0},
	} {
		tr, err := design.NewTraffic([]*design.Design{d})
		if err != nil {
			t.Fatal(err)
		}
		c, err := designtraffic.New(tr, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.After(context.Background(), "Query", tc.in, tc.out, tc.err)
		var got design.PathStats
		for _, p := range tr.Report()[0].Paths {
			if p.Requests > 0 {
				got = *p
			}
		}
		if got.Requests != tc.requests || got.Failed != tc.failed || got.Items != tc.items || got.Scanned != tc.scanned {
			t.Errorf("%s: %+v, want %d requests, %d failed, %d items, %d scanned", tc.name, got, tc.requests, tc.failed, tc.items, tc.scanned)
		}
	}
}

// TestDesignTraffic_PartiQL: PartiQL statements are classified as the
// operations they run as (issue 23): a SELECT of a full key as a GetItem
// pattern, one that fixes the partition key as a Query, INSERT/UPDATE as
// writes of their entities; with --design-strict a SELECT that would scan
// undeclared is refused like a Scan.
func TestDesignTraffic_PartiQL(t *testing.T) {
	d, diags, err := design.Load("../../examples/ecommerce.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	tr, err := design.NewTraffic([]*design.Design{d})
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, tr, true)
	steps := []struct{ op, body, want string }{
		{"CreateTable", `{"TableName":"ecommerce","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"}]}`, `"TableStatus"`},
		{"ExecuteStatement", `{"Statement":"INSERT INTO ecommerce VALUE {'PK': 'USER#alice', 'SK': 'USER#alice', 'Type': 'USER'}"}`, `{"Items":[]}`},
		{"BatchExecuteStatement", `{"Statements":[{"Statement":"INSERT INTO ecommerce VALUE {'PK': 'USER#alice', 'SK': 'ORDER#1', 'Type': 'ORDER'}"}]}`, `"Responses"`},
		{"ExecuteStatement", `{"Statement":"SELECT * FROM ecommerce WHERE PK = ? AND SK = ?","Parameters":[{"S":"USER#alice"},{"S":"USER#alice"}]}`, `"Items":[{`},
		{"ExecuteStatement", `{"Statement":"SELECT * FROM ecommerce WHERE PK = 'USER#alice' AND begins_with(SK, 'ORDER#')"}`, `"Items":[{`},
		{"ExecuteTransaction", `{"TransactStatements":[{"Statement":"UPDATE ecommerce SET Status = 'shipped' WHERE PK = 'USER#alice' AND SK = 'ORDER#1'"}]}`, `"Responses":[]`},
		{"ExecuteStatement", `{"Statement":"SELECT * FROM ecommerce WHERE Type = 'USER'"}`, `{"__type":"com.amazon.coral.service#AccessDeniedException","message":"dynago --design-strict: the design of table ecommerce declares no Scan: add an access pattern, or query by key"}`},
	}
	for _, s := range steps {
		if _, _, body := call(t, ts, s.op, s.body); !strings.Contains(string(body), s.want) {
			t.Fatalf("%s %s: %s, want %s", s.op, s.body, body, s.want)
		}
	}
	resp, err := http.Get(ts.URL + "/design/traffic?table=ecommerce")
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Tables []design.TableTraffic }
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil || len(rep.Tables) != 1 {
		t.Fatalf("traffic: %v %+v", err, rep)
	}
	resp.Body.Close()
	got := map[string]int64{}
	for _, p := range rep.Tables[0].Paths {
		got[p.Pattern+"|"+p.Path] = p.Requests
	}
	for key, want := range map[string]int64{
		"1|GetItem table: PK = USER#<UserName> AND SK = USER#<UserName>": 1,
		"6|Query table: PK = USER#<UserName> AND SK begins_with ORDER#":  1,
		"|PutItem User":     1,
		"|PutItem Order":    1,
		"|UpdateItem Order": 1,
		"|Scan table":       1,
	} {
		if got[key] != want {
			t.Errorf("%s: %d requests, want %d (paths %v)", key, got[key], want, got)
		}
	}
}
