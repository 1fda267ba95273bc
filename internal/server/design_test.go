package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/server"
)

// TestDesignTraffic: with a design attached (serve --design) requests,
// and each item of a batch or transaction, are classified as its patterns
// or undeclared paths, shown at GET
// /design/traffic and in the dynago_design_* metrics; with DesignStrict
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
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ts := startServer(t, engine.Options{Now: func() time.Time { return now }}, server.Options{Metrics: server.NewMetrics(), Traffic: tr, DesignStrict: true})
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
	plain := newServer(t)
	resp, _ = http.Get(plain.URL + "/design/traffic")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(body), "start the server with --design FILE") {
		t.Errorf("no design: %d %s", resp.StatusCode, body)
	}
}

// TestCloudFormationCreatesTable: the Properties of the
// AWS::DynamoDB::Table that dynago design export --format cloudformation
// writes for each seed design are a CreateTable request that DynamoDB's
// validation (here, dynago's) accepts, and the table created has the
// design's key schema and indexes. (TimeToLiveSpecification is an
// UpdateTimeToLive, and StreamSpecification gains StreamEnabled, as
// CloudFormation sends them.)
func TestCloudFormationCreatesTable(t *testing.T) {
	files := []string{"../../examples/ecommerce.design.yaml", "../../examples/orders.design.yaml", "../../examples/social.design.yaml", "../../bench/orders-hot.design.yaml"}
	ts := newServer(t)
	for _, path := range files {
		d, diags, err := design.Load(path)
		if err != nil || len(diags) > 0 {
			t.Fatal(err, diags)
		}
		raw, err := design.ExportCloudFormation(d)
		if err != nil {
			t.Fatal(err)
		}
		var tmpl struct {
			Resources map[string]struct {
				Type       string
				Properties map[string]any
			}
		}
		if err := json.Unmarshal(raw, &tmpl); err != nil || len(tmpl.Resources) != 1 {
			t.Fatalf("%s: %v %s", path, err, raw)
		}
		for _, r := range tmpl.Resources {
			props := r.Properties
			delete(props, "TimeToLiveSpecification")
			if ss, ok := props["StreamSpecification"].(map[string]any); ok {
				ss["StreamEnabled"] = true
			}
			body, _ := json.Marshal(props)
			if st, _, out := call(t, ts, "CreateTable", string(body)); st != 200 {
				t.Fatalf("%s: CreateTable %s: %s", path, body, out)
			}
		}
		_, _, out := call(t, ts, "DescribeTable", `{"TableName":"`+d.Table.Name+`"}`)
		var desc struct {
			Table struct {
				KeySchema              []struct{ AttributeName, KeyType string }
				GlobalSecondaryIndexes []struct{ IndexName string }
				LocalSecondaryIndexes  []struct{ IndexName string }
			}
		}
		if err := json.Unmarshal(out, &desc); err != nil {
			t.Fatal(err)
		}
		if desc.Table.KeySchema[0].AttributeName != d.Table.PartitionKey[0].Name {
			t.Errorf("%s: key schema %+v", path, desc.Table.KeySchema)
		}
		if n := len(desc.Table.GlobalSecondaryIndexes) + len(desc.Table.LocalSecondaryIndexes); n != len(d.Table.Indexes) {
			t.Errorf("%s: %d indexes, the design has %d", path, n, len(d.Table.Indexes))
		}
	}
}
