package server_test

import (
	"bytes"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/server"
	"github.com/dynago/dynago/internal/storage/teststore"
	"github.com/dynago/dynago/internal/throttle"
)

// newServer returns a test HTTP server over an in-memory store, with the
// engine clock fixed (tests may move it).
func newServer(tb testing.TB) *httptest.Server {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return startServer(tb, engine.Options{Now: func() time.Time { return now }}, server.Options{})
}

// startServer returns a ready test HTTP server over an in-memory store and
// an engine with opts, served with so (so.Metrics also observes the
// engine); test cleanup stops it.
func startServer(tb testing.TB, opts engine.Options, so server.Options) *httptest.Server {
	tb.Helper()
	st := teststore.Open(tb) // Pebble in memory, or TiKV's mock cluster
	if so.Metrics != nil {
		opts.Observer = so.Metrics
	}
	eng := engine.New(st, opts)
	s := server.New(eng, so)
	s.MarkReady()
	ts := httptest.NewServer(s)
	tb.Cleanup(func() { ts.Close(); eng.Close() })
	return ts
}

const auth = "AWS4-HMAC-SHA256 Credential=AKID/20260102/eu-west-2/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc"

// call sends one API request and returns status, headers and body.
func call(tb testing.TB, ts *httptest.Server, op, body string, hdr ...string) (int, http.Header, []byte) {
	tb.Helper()
	req, _ := http.NewRequest("POST", ts.URL+"/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	switch {
	case strings.Contains(op, "."): // a whole target (DynamoDBStreams_20120810.GetRecords)
		req.Header.Set("X-Amz-Target", op)
	case op != "":
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("X-Amz-Date", "20260102T030405Z")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

func mustOK(tb testing.TB, ts *httptest.Server, op, body string) map[string]any {
	tb.Helper()
	status, _, b := call(tb, ts, op, body)
	if status != 200 {
		tb.Fatalf("%s %s: %d %s", op, body, status, b)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		tb.Fatalf("%s: bad JSON %s", op, b)
	}
	return out
}

func TestServe_ResponseHeaders(t *testing.T) {
	ts := newServer(t)
	status, h, body := call(t, ts, "ListTables", `{}`)
	if status != 200 || string(body) != `{"TableNames":[]}` {
		t.Fatalf("%d %s", status, body)
	}
	if h.Get("Content-Type") != "application/x-amz-json-1.0" {
		t.Errorf("Content-Type %q", h.Get("Content-Type"))
	}
	if got := h.Get("X-Amz-Crc32"); got != strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10) {
		t.Errorf("x-amz-crc32 %q does not match the body", got)
	}
	if id := h.Get("X-Amzn-Requestid"); len(id) != 52 {
		t.Errorf("request id %q", id)
	}
}

func TestServe_Health(t *testing.T) {
	ts := newServer(t)
	resp, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(string(b), "healthy") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

// TestServe_AcceptStringIntegers: by default "5" in an Integer or Long
// member is DynamoDB's SerializationException (docs/dynamodb-behaviour.md
// §1.1); with Options.AcceptStringIntegers it reads as 5, as DynamoDB Local
// reads it, and that is what lets dynamodb-admin's Create table form work
// (compat/admin). Strings in other members stay errors.
func TestServe_AcceptStringIntegers(t *testing.T) {
	const create = `{"TableName":"lenient","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],` +
		`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"ProvisionedThroughput":{"ReadCapacityUnits":"5","WriteCapacityUnits":"7"}}`
	strict := newServer(t)
	if st, _, body := call(t, strict, "CreateTable", create); st != 400 ||
		string(body) != `{"__type":"com.amazon.coral.service#SerializationException","Message":"STRING_VALUE cannot be converted to Long"}` {
		t.Fatalf("strict CreateTable: %d %s", st, body)
	}
	lenient := startServer(t, engine.Options{}, server.Options{AcceptStringIntegers: true})
	if st, _, body := call(t, lenient, "CreateTable", create); st != 200 ||
		!strings.Contains(string(body), `"ReadCapacityUnits":5`) || !strings.Contains(string(body), `"WriteCapacityUnits":7`) {
		t.Fatalf("lenient CreateTable: %d %s", st, body)
	}
	for _, tc := range []struct{ op, body, want string }{
		{"ListTables", `{"Limit":"1"}`, `"TableNames":["lenient"]`},
		{"ListTables", `{"Limit":"x"}`, `STRING_VALUE cannot be converted to Integer`},
		{"ListTables", `{"Limit":"0"}`, `Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1`},
		{"DescribeTable", `{"TableName":5}`, `NUMBER_VALUE cannot be converted to String`},
		{"Scan", `{"TableName":"lenient","ConsistentRead":"true"}`, `SerializationException`},
	} {
		if _, _, body := call(t, lenient, tc.op, tc.body); !strings.Contains(string(body), tc.want) {
			t.Errorf("%s %s: %s, want %s", tc.op, tc.body, body, tc.want)
		}
	}
}

// TestServe_ProtocolErrors: the protocol-level answers DynamoDB gives
// (docs/dynamodb-behaviour.md §1).
func TestServe_ProtocolErrors(t *testing.T) {
	ts := newServer(t)
	for _, tc := range []struct {
		name, op, body string
		hdr            []string
		status         int
		want           string
	}{
		{"unknown operation", "NoSuchOp", `{}`, nil, 400, `{"__type":"com.amazon.coral.service#UnknownOperationException"}`},
		{"no target", "", `{}`, nil, 400, `{"__type":"com.amazon.coral.service#UnknownOperationException"}`},
		{"old API version", "", `{}`, []string{"X-Amz-Target", "DynamoDB_20111205.ListTables"}, 400, `{"__type":"com.amazon.coral.service#UnknownOperationException"}`},
		{"no Authorization", "ListTables", `{}`, []string{"Authorization", ""}, 400,
			`{"__type":"com.amazon.coral.service#MissingAuthenticationTokenException","message":"Request is missing Authentication Token"}`},
		{"incomplete Authorization", "ListTables", `{}`, []string{"Authorization", "AWS4-"}, 400,
			`{"__type":"com.amazon.coral.service#IncompleteSignatureException","message":"Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization=AWS4-"}`},
		// A body that is not JSON gets DynamoDB's bare SerializationException,
		// before the target and the credentials are looked at (dynalite's
		// connection tests, recorded from DynamoDB; aws/aws-sdk-php#1185).
		{"malformed JSON", "ListTables", `{"Limit":`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"not JSON", "ListTables", `hi`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"not JSON, unknown target", "NoSuchOp", `hi`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"not JSON, no Authorization", "ListTables", `hi`, []string{"Authorization", ""}, 400, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"trailing garbage", "ListTables", `{}x`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"not JSON, unsupported operation", "CreateBackup", `hi`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"broken JSON after a wrong type", "DescribeTable", `{"TableName": 5, "x": }`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"not an object", "ListTables", `[`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		// Invalid UTF-8 is not JSON to DynamoDB (aws/aws-sdk-php#1185).
		{"invalid UTF-8, no Authorization", "ListTables", "{\"ExclusiveStartTableName\":\"a\xffb\"}", []string{"Authorization", ""}, 400, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"empty body", "ListTables", ``, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException"}`},
		{"number as string", "ListTables", `{"Limit":"5"}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"STRING_VALUE cannot be converted to Integer"}`},
		{"TableName as number", "DescribeTable", `{"TableName":123}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"NUMBER_VALUE cannot be converted to String"}`},
		// Wrong JSON types, in DynamoDB's current words
		// (docs/dynamodb-behaviour.md §1.1: dynalite's assertType table,
		// run against DynamoDB, and answers quoted from DynamoDB in issues).
		{"TableName as true", "DescribeTable", `{"TableName":true}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"TRUE_VALUE cannot be converted to String"}`},
		{"TableName as decimal", "DescribeTable", `{"TableName":34.56}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"DECIMAL_VALUE cannot be converted to String"}`},
		{"TableName as list", "DescribeTable", `{"TableName":[]}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"Unrecognized collection type class java.lang.String"}`},
		{"Limit as false", "ListTables", `{"Limit":false}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"FALSE_VALUE cannot be converted to Integer"}`},
		{"ConsistentRead as string", "GetItem", `{"ConsistentRead":"true"}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"Unexpected token received from parser"}`},
		{"KeySchema as string", "CreateTable", `{"KeySchema":"x"}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"Unexpected field type"}`},
		{"KeySchema element as number", "CreateTable", `{"KeySchema":[5]}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"Unexpected field type"}`},
		{"Item as string", "PutItem", `{"Item":"x"}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"Unexpected field type"}`},
		{"Item as list", "PutItem", `{"Item":[]}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"}`},
		{"Item value as string", "PutItem", `{"Item":{"a":"x"}}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"Unexpected value type in payload"}`},
		{"names as list", "Scan", `{"ExpressionAttributeNames":[]}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"Unrecognized collection type java.util.Map<java.lang.String, java.lang.String>"}`},
		{"RequestItems as list", "BatchGetItem", `{"RequestItems":[]}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.KeysAndAttributes>"}`},
		{"KeysAndAttributes as list", "BatchGetItem", `{"RequestItems":{"t":[]}}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"Unrecognized collection type class com.amazonaws.dynamodb.v20120810.KeysAndAttributes"}`},
		{"N as number", "PutItem", `{"TableName":"abc","Item":{"a":{"N":1}}}`, nil, 400, `{"__type":"com.amazon.coral.service#SerializationException","Message":"NUMBER_VALUE cannot be converted to String"}`},
		{"missing table", "GetItem", `{"TableName":"nope","Key":{"a":{"S":"x"}}}`, nil, 400, `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"}`},
		{"describe missing table", "DescribeTable", `{"TableName":"nope"}`, nil, 400, `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found: Table: nope not found"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, h, body := call(t, ts, tc.op, tc.body, tc.hdr...)
			if status != tc.status || string(body) != tc.want {
				t.Errorf("got %d %s\nwant %d %s", status, body, tc.status, tc.want)
			}
			if h.Get("Content-Type") != "application/x-amz-json-1.0" || !json.Valid(body) {
				t.Errorf("error body is not application/x-amz-json-1.0 JSON: %q %s", h.Get("Content-Type"), body)
			}
		})
	}
}

func TestServe_NonPost_Is404(t *testing.T) {
	ts := newServer(t)
	req, _ := http.NewRequest("PUT", ts.URL+"/", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("PUT / answered %d", resp.StatusCode)
	}
}

func TestServe_BodyOver16MB_Is413(t *testing.T) {
	ts := newServer(t)
	big := `{"TableName":"` + strings.Repeat("a", server.MaxRequestBytes) + `"}`
	status, _, _ := call(t, ts, "DescribeTable", big)
	if status != 413 {
		t.Fatalf("status %d, want 413", status)
	}
}

func TestServe_CORSPreflight(t *testing.T) {
	ts := newServer(t)
	req, _ := http.NewRequest("OPTIONS", ts.URL+"/", nil)
	req.Header.Set("Origin", "http://localhost:8001")
	req.Header.Set("Access-Control-Request-Headers", "x-amz-target,authorization")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
		resp.Header.Get("Access-Control-Allow-Headers") != "x-amz-target,authorization" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
}

// TestServe_ArnUsesCredentialRegion: ARNs carry the credential scope's
// region.
func TestServe_ArnUsesCredentialRegion(t *testing.T) {
	ts := newServer(t)
	out := mustOK(t, ts, "CreateTable", `{"TableName":"arns","KeySchema":[{"AttributeName":"k","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"k","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`)
	arn := out["TableDescription"].(map[string]any)["TableArn"]
	if arn != "arn:aws:dynamodb:eu-west-2:000000000000:table/arns" {
		t.Fatalf("TableArn %v", arn)
	}
}

// FuzzServe: arbitrary bodies for every operation never produce a 5xx or
// a body that is not JSON.
func FuzzServe(f *testing.F) {
	ts := newServer(f)
	mustOK(f, ts, "CreateTable", `{"TableName":"fuzz","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}}`)
	arn := mustOK(f, ts, "DescribeTable", `{"TableName":"fuzz"}`)["Table"].(map[string]any)["LatestStreamArn"].(string)
	shard := mustOK(f, ts, "DynamoDBStreams_20120810.DescribeStream", `{"StreamArn":"`+arn+`"}`)["StreamDescription"].(map[string]any)["Shards"].([]any)[0].(map[string]any)["ShardId"].(string)
	iter := mustOK(f, ts, "DynamoDBStreams_20120810.GetShardIterator", `{"StreamArn":"`+arn+`","ShardId":"`+shard+`","ShardIteratorType":"TRIM_HORIZON"}`)["ShardIterator"].(string)
	mustOK(f, ts, "CreateTable", `{"TableName":"fuzzix","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"h","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"gsi","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"h","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["x"]}}],"LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"h","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`)
	ops := []string{"PutItem", "GetItem", "DeleteItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem", "CreateTable", "DescribeTable", "ListTables", "DeleteTable", "UpdateItem", "UpdateTable", "TransactWriteItems", "TransactGetItems", "UpdateTimeToLive", "DescribeTimeToLive",
		"DynamoDBStreams_20120810.ListStreams", "DynamoDBStreams_20120810.DescribeStream", "DynamoDBStreams_20120810.GetShardIterator", "DynamoDBStreams_20120810.GetRecords",
		"UpdateContributorInsights", "DescribeContributorInsights", "ListContributorInsights",
		"TagResource", "UntagResource", "ListTagsOfResource",
		"DescribeLimits", "DescribeEndpoints", "DescribeContinuousBackups", "UpdateContinuousBackups", "DescribeKinesisStreamingDestination", "DescribeTableReplicaAutoScaling"}
	f.Add(uint8(0), []byte(`{"TableName":"fuzz","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"m":{"M":{"x":{"L":[{"N":"1.5"}]}}}}}`))
	f.Add(uint8(3), []byte(`{"TableName":"fuzz","KeyConditionExpression":"pk = :p AND sk BETWEEN :a AND :b","FilterExpression":"attribute_exists(m.x[0])","ExpressionAttributeValues":{":p":{"S":"a"},":a":{"N":"0"},":b":{"N":"9"}}}`))
	f.Add(uint8(4), []byte(`{"TableName":"fuzz","Segment":1,"TotalSegments":3,"Limit":2}`))
	f.Add(uint8(6), []byte(`{"RequestItems":{"fuzz":[{"PutRequest":{"Item":{"pk":{"S":"b"},"sk":{"N":"2"}}}}]}}`))
	f.Add(uint8(0), []byte(`{"TableName":"fuzzix","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"S":"g"},"h":{"N":"2"},"x":{"SS":["a"]}},"ReturnItemCollectionMetrics":"SIZE"}`))
	f.Add(uint8(3), []byte(`{"TableName":"fuzzix","IndexName":"gsi","KeyConditionExpression":"g = :g AND h = :h AND sk > :s","FilterExpression":"x = :g","ExpressionAttributeValues":{":g":{"S":"g"},":h":{"N":"2"},":s":{"N":"0"}},"Limit":1}`))
	f.Add(uint8(3), []byte(`{"TableName":"fuzzix","IndexName":"lsi","KeyConditionExpression":"pk = :p","Select":"ALL_ATTRIBUTES","ConsistentRead":true,"ExpressionAttributeValues":{":p":{"S":"a"}},"ExclusiveStartKey":{"pk":{"S":"a"},"sk":{"N":"0"},"h":{"N":"1"}}}`))
	f.Add(uint8(12), []byte(`{"TableName":"fuzz","AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"}],"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"new","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}]}`))
	f.Add(uint8(13), []byte(`{"ClientRequestToken":"t","TransactItems":[{"Put":{"TableName":"fuzzix","Item":{"pk":{"S":"t"},"sk":{"N":"1"},"g":{"S":"g"},"h":{"N":"1"}}}},{"Update":{"TableName":"fuzz","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"UpdateExpression":"SET n = :n","ConditionExpression":"attribute_exists(pk)","ExpressionAttributeValues":{":n":{"N":"1"}}}},{"ConditionCheck":{"TableName":"fuzz","Key":{"pk":{"S":"b"},"sk":{"N":"2"}},"ConditionExpression":"attribute_not_exists(pk)","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}}]}`))
	f.Add(uint8(14), []byte(`{"TransactItems":[{"Get":{"TableName":"fuzz","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ProjectionExpression":"m.x[0]"}}],"ReturnConsumedCapacity":"INDEXES"}`))
	f.Add(uint8(15), []byte(`{"TableName":"fuzz","TimeToLiveSpecification":{"AttributeName":"n","Enabled":true}}`))
	f.Add(uint8(17), []byte(`{"TableName":"fuzz","Limit":1}`))
	f.Add(uint8(18), []byte(`{"StreamArn":"`+arn+`","Limit":1,"ShardFilter":{"Type":"CHILD_SHARDS","ShardId":"`+shard+`"}}`))
	f.Add(uint8(19), []byte(`{"StreamArn":"`+arn+`","ShardId":"`+shard+`","ShardIteratorType":"AT_SEQUENCE_NUMBER","SequenceNumber":"100000000000000000001"}`))
	f.Add(uint8(20), []byte(`{"ShardIterator":"`+iter+`","Limit":2}`))
	f.Add(uint8(21), []byte(`{"TableName":"fuzzix","IndexName":"gsi","ContributorInsightsAction":"ENABLE","ContributorInsightsMode":"THROTTLED_KEYS"}`))
	f.Add(uint8(22), []byte(`{"TableName":"arn:aws:dynamodb:us-east-1:000000000000:table/fuzz"}`))
	f.Add(uint8(23), []byte(`{"MaxResults":1,"NextToken":"ZnV6egA"}`))
	f.Add(uint8(24), []byte(`{"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/fuzz","Tags":[{"Key":"a","Value":"b"}]}`))
	f.Add(uint8(25), []byte(`{"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/fuzz","TagKeys":["a"]}`))
	f.Add(uint8(26), []byte(`{"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/fuzz/index/x"}`))
	f.Add(uint8(30), []byte(`{"TableName":"fuzz","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true,"RecoveryPeriodInDays":7}}`))
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		name := ops[int(op)%len(ops)]
		if name == "DeleteTable" && bytes.Contains(body, []byte("fuzz")) {
			return
		}
		status, _, out := call(t, ts, name, string(body))
		if status >= 500 || !json.Valid(out) {
			t.Fatalf("%s %q: %d %s", name, body, status, out)
		}
	})
}

// TestMetrics: GET /metrics counts requests by operation and answer, and
// with throttling on, consumed units and throttled requests by reason.
func TestMetrics(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ts := startServer(t, engine.Options{Now: func() time.Time { return now }, Throttle: &throttle.Options{Scale: 100}}, server.Options{Metrics: server.NewMetrics()})
	mustOK(t, ts, "CreateTable", `{"TableName":"met","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`)
	for i := 0; i < 30; i++ { // one partition: 10 units a second plus a second's burst
		call(t, ts, "PutItem", `{"TableName":"met","Item":{"pk":{"S":"hot"}}}`)
	}
	call(t, ts, "GetItem", `{"TableName":"nope","Key":{"pk":{"S":"x"}}}`)
	call(t, ts, "Bogus", `{}`)
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)
	for _, want := range []string{
		`dynago_requests_total{code="200",operation="CreateTable"} 1`,
		`dynago_requests_total{code="ResourceNotFoundException",operation="GetItem"} 1`,
		`dynago_requests_total{code="UnknownOperationException",operation="unknown"} 1`,
		`dynago_consumed_capacity_units_total{index="",kind="write",table="met"} 10`,
		`dynago_throttle_events_total{index="",reason="TableWriteKeyRangeThroughputExceeded",table="met"} 20`,
		`dynago_request_duration_seconds_count{operation="PutItem"} 30`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}
