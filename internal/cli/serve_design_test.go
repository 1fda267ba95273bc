package cli

// "dynago serve --design FILE" wired end to end (package designtraffic
// classifies, package server serves), and the design exporter's tables
// created by the server.

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design"
)

// apiCall sends one API request to a server at url and returns status,
// headers and body.
func apiCall(t *testing.T, url, op, body string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260102/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=abc")
	req.Header.Set("X-Amz-Date", "20260102T030405Z")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// get sends GET url and returns status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServe_Design: with --design and --design-strict an undeclared Scan
// is refused, a Query is classified, and both show at GET /design/traffic
// and in the dynago_design_* metrics; without --design the endpoint says
// how to attach one and the metrics have no design series.
func TestServe_Design(t *testing.T) {
	const create = `{"TableName":"ecommerce","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"}]}`
	const query = `{"TableName":"ecommerce","KeyConditionExpression":"PK = :p AND begins_with(SK, :s)","ExpressionAttributeValues":{":p":{"S":"USER#alice"},":s":{"S":"ORDER#"}}}`
	for _, c := range []struct {
		name     string
		args     []string
		scan     string // in the Scan's answer
		traffic  string // in GET /design/traffic?table=ecommerce
		metrics  []string
		noMetric string
	}{
		{"--design --design-strict", []string{"--design", "../../examples/ecommerce.design.yaml", "--design-strict"},
			`{"__type":"com.amazon.coral.service#AccessDeniedException","message":"dynago --design-strict: the design of table ecommerce declares no Scan: add an access pattern, or query by key"}`,
			`"tables":[{"table":"ecommerce"`,
			[]string{`dynago_design_requests_total{declared="false",pattern="Scan table",table="ecommerce"} 1`, `dynago_design_requests_total{declared="true",pattern="6",table="ecommerce"} 1`}, ""},
		{"--design", []string{"--design", "../../examples/ecommerce.design.yaml"},
			`"Count":0`, `"path":"Scan table","declared":false,"requests":1`,
			[]string{`dynago_design_requests_total{declared="false",pattern="Scan table",table="ecommerce"} 1`}, ""},
		{"no design", nil, `"Count":0`, `{"error":"no design attached: start the server with --design FILE"}`, nil, "dynago_design_"},
	} {
		url := serveForTest(t, append([]string{"--in-memory"}, c.args...)...)
		apiCall(t, url, "CreateTable", create)
		if st, _, body := apiCall(t, url, "Query", query); st != 200 {
			t.Errorf("%s: Query: %d %s", c.name, st, body)
		}
		if _, _, body := apiCall(t, url, "Scan", `{"TableName":"ecommerce"}`); !strings.Contains(string(body), c.scan) {
			t.Errorf("%s: Scan: %s, want %s", c.name, body, c.scan)
		}
		if _, body := get(t, url+"/design/traffic?table=ecommerce"); !strings.Contains(body, c.traffic) {
			t.Errorf("%s: /design/traffic: %s, want %s", c.name, body, c.traffic)
		}
		_, metrics := get(t, url+"/metrics")
		for _, want := range c.metrics {
			if !strings.Contains(metrics, want) {
				t.Errorf("%s: metrics lack %s", c.name, want)
			}
		}
		if c.noMetric != "" && strings.Contains(metrics, c.noMetric) {
			t.Errorf("%s: metrics have %s", c.name, c.noMetric)
		}
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
	url := serveForTest(t, "--in-memory")
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
			if st, _, out := apiCall(t, url, "CreateTable", string(body)); st != 200 {
				t.Fatalf("%s: CreateTable %s: %s", path, body, out)
			}
		}
		_, _, out := apiCall(t, url, "DescribeTable", `{"TableName":"`+d.Table.Name+`"}`)
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
