package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/server"
)

func createPkSk(t *testing.T, call func(op, body string) map[string]any, name string) {
	t.Helper()
	call("CreateTable", `{"TableName":"`+name+`","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST"}`)
}

// TestQuery_PagesStopAtOneMegabyte: a page reads at most 1 MB of items
// (before filters) and says where to resume; the pages together return
// every item once. Source: developer guide, "Paginating table query
// results".
func TestQuery_PagesStopAtOneMegabyte(t *testing.T) {
	ts := newServer(t)
	ok := func(op, body string) map[string]any { return mustOK(t, ts, op, body) }
	createPkSk(t, ok, "big")
	pad := strings.Repeat("x", 10_000)
	const n = 300 // about 3 MB
	for i := 0; i < n; i++ {
		ok("PutItem", fmt.Sprintf(`{"TableName":"big","Item":{"pk":{"S":"p"},"sk":{"N":"%d"},"pad":{"S":"%s"}}}`, i, pad))
	}
	for _, op := range []string{"Query", "Scan"} {
		seen := map[string]bool{}
		pages := 0
		var start string
		for {
			body := `{"TableName":"big","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}}` + start + `}`
			if op == "Scan" {
				body = `{"TableName":"big"` + start + `}`
			}
			out := ok(op, body)
			pages++
			items := out["Items"].([]any)
			if len(items) > 105 {
				t.Fatalf("%s page %d has %d items of 10 KB (over 1 MB)", op, pages, len(items))
			}
			for _, it := range items {
				sk := it.(map[string]any)["sk"].(map[string]any)["N"].(string)
				if seen[sk] {
					t.Fatalf("%s: sk %s twice", op, sk)
				}
				seen[sk] = true
			}
			lek, more := out["LastEvaluatedKey"]
			if !more {
				break
			}
			b, _ := json.Marshal(lek)
			start = `,"ExclusiveStartKey":` + string(b)
		}
		if len(seen) != n || pages < 3 {
			t.Fatalf("%s: %d items in %d pages, want %d in at least 3", op, len(seen), pages, n)
		}
	}
}

// TestScan_ManySegments_CoverEveryItemOnce: with 1,000 segments (most of
// them empty) every item is in exactly one segment.
func TestScan_ManySegments_CoverEveryItemOnce(t *testing.T) {
	ts := newServer(t)
	ok := func(op, body string) map[string]any { return mustOK(t, ts, op, body) }
	ok("CreateTable", `{"TableName":"segs","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST"}`)
	const n = 500
	for i := 0; i < n; i += 25 {
		var reqs []string
		for j := i; j < i+25; j++ {
			reqs = append(reqs, fmt.Sprintf(`{"PutRequest":{"Item":{"pk":{"N":"%d"}}}}`, j))
		}
		ok("BatchWriteItem", `{"RequestItems":{"segs":[`+strings.Join(reqs, ",")+`]}}`)
	}
	for _, total := range []int{1, 2, 7, 1000} {
		count := map[string]int{}
		for seg := 0; seg < total; seg++ {
			out := ok("Scan", fmt.Sprintf(`{"TableName":"segs","Segment":%d,"TotalSegments":%d}`, seg, total))
			for _, it := range out["Items"].([]any) {
				count[it.(map[string]any)["pk"].(map[string]any)["N"].(string)]++
			}
		}
		if len(count) != n {
			t.Fatalf("TotalSegments %d: %d distinct items, want %d", total, len(count), n)
		}
		for k, c := range count {
			if c != 1 {
				t.Fatalf("TotalSegments %d: item %s seen %d times", total, k, c)
			}
		}
	}
}

// TestPutItem_ConcurrentCreateIfAbsent: of many concurrent
// attribute_not_exists puts of one key exactly one succeeds, and of
// concurrent version-checked updates no increment is lost.
func TestPutItem_ConcurrentCreateIfAbsent(t *testing.T) {
	ts := newServer(t)
	ok := func(op, body string) map[string]any { return mustOK(t, ts, op, body) }
	createPkSk(t, ok, "race")
	const workers = 16
	var wg sync.WaitGroup
	results := make(chan int, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			status, _, _ := call(t, ts, "PutItem", fmt.Sprintf(`{"TableName":"race","Item":{"pk":{"S":"username#asha"},"sk":{"N":"0"},"owner":{"N":"%d"}},"ConditionExpression":"attribute_not_exists(pk)"}`, w))
			results <- status
		}(w)
	}
	wg.Wait()
	close(results)
	wins := 0
	for s := range results {
		if s == 200 {
			wins++
		} else if s != 400 {
			t.Fatalf("status %d", s)
		}
	}
	if wins != 1 {
		t.Fatalf("%d concurrent create-if-absent puts succeeded, want 1", wins)
	}

	// Optimistic locking: read the version, write version+1 on condition,
	// retry on ConditionalCheckFailed. Every increment lands once.
	ok("PutItem", `{"TableName":"race","Item":{"pk":{"S":"counter"},"sk":{"N":"0"},"v":{"N":"0"}}}`)
	const each = 10
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				for {
					_, _, b := call(t, ts, "GetItem", `{"TableName":"race","Key":{"pk":{"S":"counter"},"sk":{"N":"0"}},"ConsistentRead":true}`)
					var got struct{ Item map[string]map[string]string }
					json.Unmarshal(b, &got)
					v := got.Item["v"]["N"]
					var n int
					fmt.Sscan(v, &n)
					status, _, _ := call(t, ts, "PutItem", fmt.Sprintf(`{"TableName":"race","Item":{"pk":{"S":"counter"},"sk":{"N":"0"},"v":{"N":"%d"}},"ConditionExpression":"v = :old","ExpressionAttributeValues":{":old":{"N":"%s"}}}`, n+1, v))
					if status == 200 {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	out := ok("GetItem", `{"TableName":"race","Key":{"pk":{"S":"counter"},"sk":{"N":"0"}}}`)
	if v := out["Item"].(map[string]any)["v"].(map[string]any)["N"]; v != fmt.Sprint(4*each) {
		t.Fatalf("counter = %v, want %d", v, 4*each)
	}
}

// TestDescribeTable_ItemCountAndSize: the counts are live and sizes follow
// the developer guide's rules.
func TestDescribeTable_ItemCountAndSize(t *testing.T) {
	ts := newServer(t)
	ok := func(op, body string) map[string]any { return mustOK(t, ts, op, body) }
	createPkSk(t, ok, "stats")
	ok("PutItem", `{"TableName":"stats","Item":{"pk":{"S":"ab"},"sk":{"N":"1"},"name":{"S":"xyz"}}}`)
	ok("PutItem", `{"TableName":"stats","Item":{"pk":{"S":"c"},"sk":{"N":"22"}}}`)
	d := ok("DescribeTable", `{"TableName":"stats"}`)["Table"].(map[string]any)
	// Sizes by the developer guide's rules: name lengths + values.
	want := (2 + 2 + 2 + 2 + 4 + 3) + (2 + 1 + 2 + 2)
	if d["ItemCount"] != float64(2) || d["TableSizeBytes"] != float64(want) {
		t.Fatalf("ItemCount %v TableSizeBytes %v, want 2 and %d", d["ItemCount"], d["TableSizeBytes"], want)
	}
}

// TestCreateTable_CreateDelay: with a create delay, DescribeTable says
// CREATING until the delay has passed, data-plane calls answer
// ResourceNotFoundException meanwhile, and DeleteTable is refused.
func TestCreateTable_CreateDelay(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ts := startServer(t, engine.Options{Now: clock, CreateDelay: 5 * time.Second}, server.Options{})
	ok := func(op, body string) map[string]any { return mustOK(t, ts, op, body) }
	createPkSk(t, ok, "slow")
	status := func() any {
		return ok("DescribeTable", `{"TableName":"slow"}`)["Table"].(map[string]any)["TableStatus"]
	}
	if got := status(); got != "CREATING" {
		t.Fatalf("status %v, want CREATING", got)
	}
	if code, _, b := call(t, ts, "GetItem", `{"TableName":"slow","Key":{"pk":{"S":"a"},"sk":{"N":"1"}}}`); code != 400 || !strings.Contains(string(b), "ResourceNotFoundException") {
		t.Fatalf("GetItem while CREATING: %d %s", code, b)
	}
	if code, _, b := call(t, ts, "DeleteTable", `{"TableName":"slow"}`); code != 400 || !strings.Contains(string(b), "Attempt to change a resource which is still in use: Table is being created: slow") {
		t.Fatalf("DeleteTable while CREATING: %d %s", code, b)
	}
	// A GSI is CREATING while its table is, and ACTIVE with it.
	ok("CreateTable", `{"TableName":"slowgsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"gix","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}]}`)
	gsiStatus := func() any {
		d := ok("DescribeTable", `{"TableName":"slowgsi"}`)["Table"].(map[string]any)
		return d["GlobalSecondaryIndexes"].([]any)[0].(map[string]any)["IndexStatus"]
	}
	if got := gsiStatus(); got != "CREATING" {
		t.Fatalf("GSI status %v while its table is CREATING", got)
	}
	mu.Lock()
	now = now.Add(5 * time.Second)
	mu.Unlock()
	if got := status(); got != "ACTIVE" {
		t.Fatalf("status %v after the delay, want ACTIVE", got)
	}
	if got := gsiStatus(); got != "ACTIVE" {
		t.Fatalf("GSI status %v after the delay, want ACTIVE", got)
	}
	ok("PutItem", `{"TableName":"slow","Item":{"pk":{"S":"a"},"sk":{"N":"1"}}}`)
}

// TestBatchGetItem_SixteenMegabytes reproduces the API reference's
// example: 100 items of 300 KB (307,200 bytes) return 52 items and 48
// UnprocessedKeys, the 53rd item being the one that would pass 16 MB.
// Source: API_BatchGetItem.html.
func TestBatchGetItem_SixteenMegabytes(t *testing.T) {
	ts := newServer(t)
	ok := func(op, body string) map[string]any { return mustOK(t, ts, op, body) }
	createPkSk(t, ok, "bg16")
	// Item size: "pk" + "k00" + "sk" + 1 byte of number + "data" + data.
	data := strings.Repeat("x", 307_200-(2+3+2+2+4))
	var keys []string
	for i := 0; i < 100; i++ {
		ok("PutItem", fmt.Sprintf(`{"TableName":"bg16","Item":{"pk":{"S":"k%02d"},"sk":{"N":"1"},"data":{"S":"%s"}}}`, i, data))
		keys = append(keys, fmt.Sprintf(`{"pk":{"S":"k%02d"},"sk":{"N":"1"}}`, i))
	}
	out := ok("BatchGetItem", `{"RequestItems":{"bg16":{"Keys":[`+strings.Join(keys, ",")+`]}},"ReturnConsumedCapacity":"TOTAL"}`)
	got := len(out["Responses"].(map[string]any)["bg16"].([]any))
	unprocessed := len(out["UnprocessedKeys"].(map[string]any)["bg16"].(map[string]any)["Keys"].([]any))
	if got != 52 || unprocessed != 48 {
		t.Fatalf("returned %d items and %d unprocessed keys, want 52 and 48", got, unprocessed)
	}
}
