package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
)

// randomWrite performs one random write to table ix: puts with and
// without index attributes (sometimes of the wrong type, which must fail
// and change nothing), updates that move items between index keys,
// deletes and batches.
func randomWrite(e *Engine, r *rand.Rand) error {
	pk := fmt.Sprintf("p%d", r.IntN(4))
	sk := r.IntN(30)
	attrs := func() string {
		s := ""
		if r.IntN(4) > 0 {
			s += fmt.Sprintf(`,"g":{"S":"g%d"}`, r.IntN(3))
		}
		if r.IntN(4) > 0 {
			s += fmt.Sprintf(`,"n":{"N":"%d"}`, r.IntN(5))
		}
		if r.IntN(2) > 0 {
			s += fmt.Sprintf(`,"h":{"S":"h%d"}`, r.IntN(2))
		}
		if r.IntN(20) == 0 {
			s += `,"n":{"S":"wrong type"}`
		}
		return s + fmt.Sprintf(`,"v":{"N":"%d"},"w":{"S":"%s"}`, r.IntN(100), bytes.Repeat([]byte("w"), r.IntN(200)))
	}
	var err error
	switch r.IntN(6) {
	case 0, 1:
		_, err = run(e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"ixt","Item":{"pk":{"S":"%s"},"sk":{"N":"%d"}%s}}`, pk, sk, attrs()))
	case 2:
		_, err = run(e, (*Engine).UpdateItem, fmt.Sprintf(`{"TableName":"ixt","Key":{"pk":{"S":"%s"},"sk":{"N":"%d"}},"UpdateExpression":"SET n = :n, g = :g REMOVE h","ExpressionAttributeValues":{":n":{"N":"%d"},":g":{"S":"g%d"}}}`, pk, sk, r.IntN(5), r.IntN(3)))
	case 3:
		_, err = run(e, (*Engine).UpdateItem, fmt.Sprintf(`{"TableName":"ixt","Key":{"pk":{"S":"%s"},"sk":{"N":"%d"}},"UpdateExpression":"REMOVE g SET h = :h","ExpressionAttributeValues":{":h":{"S":"h%d"}}}`, pk, sk, r.IntN(2)))
	case 4:
		_, err = run(e, (*Engine).DeleteItem, fmt.Sprintf(`{"TableName":"ixt","Key":{"pk":{"S":"%s"},"sk":{"N":"%d"}}}`, pk, sk))
	case 5:
		_, err = run(e, (*Engine).BatchWriteItem, fmt.Sprintf(`{"RequestItems":{"ixt":[{"PutRequest":{"Item":{"pk":{"S":"%s"},"sk":{"N":"%d"}%s}}},{"DeleteRequest":{"Key":{"pk":{"S":"%s"},"sk":{"N":"%d"}}}}]}}`,
			pk, sk, attrs(), pk, (sk+1)%30))
	}
	if e, ok := ddberr.As(err); ok && e.Code == ddberr.ValidationException {
		return nil // a write with a wrong-typed index key: rejected
	}
	return err
}

// TestIndexes_AgreeWithTable_RandomWrites: after any mix of puts,
// updates, deletes and batches from several goroutines, every index holds
// exactly the entries the table's items call for.
func TestIndexes_AgreeWithTable_RandomWrites(t *testing.T) {
	e, st := openEngine(t, Options{}, "")
	mustRun(t, e, (*Engine).CreateTable, indexedTable)
	startRandomWrites(t, e, 4, 500, 1)()
	checkIndexes(t, e, st, "ixt")
}

// startRandomWrites starts workers goroutines making each randomWrites
// (seeded by worker number and stream) and returns a function that waits
// for them.
func startRandomWrites(t *testing.T, e *Engine, workers, each int, stream uint64) (wait func()) {
	return startWorkers(workers, stream, func(r *rand.Rand) {
		for i := 0; i < each; i++ {
			if err := randomWrite(e, r); err != nil {
				t.Error(err)
				return
			}
		}
	})
}

// randomlyWritten opens an engine with table ixt (indexedTable) and makes
// n randomWrites to it, from the random source PCG(seed, seed).
func randomlyWritten(t *testing.T, n int, seed uint64) *Engine {
	t.Helper()
	e, _ := openEngine(t, Options{}, "")
	mustRun(t, e, (*Engine).CreateTable, indexedTable)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := 0; i < n; i++ {
		if err := randomWrite(e, r); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// TestQuery_IndexOrderMatchesModel: a Query on each GSI returns the items
// with the given index partition key, in index sort key order, ties
// broken by table key, exactly as computed from the table's items.
func TestQuery_IndexOrderMatchesModel(t *testing.T) {
	e := randomlyWritten(t, 400, 7)
	scan := mustRun(t, e, (*Engine).Scan, `{"TableName":"ixt"}`)
	items := decodeBody(t, scan.AppendJSON(nil))
	for g := 0; g < 3; g++ {
		var want []string
		for n := 0; n < 5; n++ {
			var group []attr.Item
			for _, it := range items {
				if it["g"].Text() == fmt.Sprintf("g%d", g) && it["n"].Kind() == attr.N && it["n"].Text() == fmt.Sprint(n) {
					group = append(group, it)
				}
			}
			sortByTableKey(group)
			for _, it := range group {
				want = append(want, it["pk"].Text()+"/"+it["sk"].Text())
			}
		}
		var got []string
		start := ""
		for {
			out := mustRun(t, e, (*Engine).Query, fmt.Sprintf(`{"TableName":"ixt","IndexName":"g_all","KeyConditionExpression":"g = :g","ExpressionAttributeValues":{":g":{"S":"g%d"}},"Limit":7%s}`, g, start))
			for _, it := range decodeBody(t, out.AppendJSON(nil)) {
				got = append(got, it["pk"].Text()+"/"+it["sk"].Text())
			}
			if out.LastEvaluatedKey == nil {
				break
			}
			start = `,"ExclusiveStartKey":` + string(attr.AppendItem(nil, out.LastEvaluatedKey))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("g%d:\n got %v\nwant %v", g, got, want)
		}
	}
}

func sortByTableKey(items []attr.Item) {
	less := func(a, b attr.Item) bool {
		if a["pk"].Text() != b["pk"].Text() {
			return a["pk"].Text() < b["pk"].Text()
		}
		var x, y int
		fmt.Sscan(a["sk"].Text(), &x)
		fmt.Sscan(b["sk"].Text(), &y)
		return x < y
	}
	for i := 1; i < len(items); i++ {
		for j := i; j > 0 && less(items[j], items[j-1]); j-- {
			items[j], items[j-1] = items[j-1], items[j]
		}
	}
}

func decodeBody(t testing.TB, body []byte) []attr.Item {
	t.Helper()
	// {"Items":[...],...}: decode with the attr reader via a wrapper map.
	var out []attr.Item
	i := bytes.Index(body, []byte(`"Items":[`))
	if i < 0 {
		t.Fatalf("no Items in %s", body)
	}
	rest := body[i+len(`"Items":[`):]
	for len(rest) > 0 && rest[0] != ']' {
		end := matchBrace(rest)
		item, err := attr.DecodeItem(rest[:end])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, item)
		rest = rest[end:]
		if len(rest) > 0 && rest[0] == ',' {
			rest = rest[1:]
		}
	}
	return out
}

// matchBrace returns the length of the JSON object at the start of b.
func matchBrace(b []byte) int {
	depth, inStr := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case !inStr && c == '{':
			depth++
		case !inStr && c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(b)
}

// TestUpdateTable_BackfillUnderConcurrentWrites: a GSI created online
// while writers keep writing ends ACTIVE holding exactly the entries the
// table's items call for.
func TestUpdateTable_BackfillUnderConcurrentWrites(t *testing.T) {
	e, st := openEngine(t, Options{}, "")
	mustRun(t, e, (*Engine).CreateTable, `{"TableName":"ixt","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST"}`)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		mustRun(t, e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"ixt","Item":{"pk":{"S":"p%d"},"sk":{"N":"%d"},"g":{"S":"g%d"},"n":{"N":"%d"}}}`, i%50, i, r.IntN(10), r.IntN(100)))
	}
	stop := make(chan struct{})
	var writes atomic.Int64
	wait := startWorkers(3, 9, func(r *rand.Rand) {
		for !stopped(stop) {
			i := r.IntN(3500)
			var err error
			switch r.IntN(3) {
			case 0:
				_, err = run(e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"ixt","Item":{"pk":{"S":"p%d"},"sk":{"N":"%d"},"g":{"S":"g%d"},"n":{"N":"%d"}}}`, i%50, i, r.IntN(10), r.IntN(100)))
			case 1:
				_, err = run(e, (*Engine).UpdateItem, fmt.Sprintf(`{"TableName":"ixt","Key":{"pk":{"S":"p%d"},"sk":{"N":"%d"}},"UpdateExpression":"SET n = :n","ExpressionAttributeValues":{":n":{"N":"%d"}}}`, i%50, i, r.IntN(100)))
			case 2:
				_, err = run(e, (*Engine).DeleteItem, fmt.Sprintf(`{"TableName":"ixt","Key":{"pk":{"S":"p%d"},"sk":{"N":"%d"}}}`, i%50, i))
			}
			if err != nil {
				t.Error(err)
				return
			}
			writes.Add(1)
		}
	})
	mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"ixt","AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"n","AttributeType":"N"}],
	 "GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"by_g","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"n","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["x"]}}}]}`)
	deadline := time.Now().Add(time.Minute)
	for {
		d := mustRun(t, e, (*Engine).DescribeTable, `{"TableName":"ixt"}`)
		if d.Table.GlobalSecondaryIndexes[0].IndexStatus == catalog.IndexActive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("index still CREATING after a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wait()
	if writes.Load() == 0 {
		t.Fatal("no concurrent writes happened")
	}
	checkIndexes(t, e, st, "ixt")
}

// TestGSILag: with GSILag, a GSI shows a write only once the lag has
// passed (the clock is the test's), while the table and LSIs show it at
// once; queued changes apply in order and leave the index exact.
func TestGSILag(t *testing.T) {
	clock := newFakeClock()
	e, st := openEngine(t, Options{Now: clock.Now, GSILag: time.Hour}, "")
	mustRun(t, e, (*Engine).CreateTable, indexedTable)
	count := func(index, cond, vals string) int {
		out := mustRun(t, e, (*Engine).Query, `{"TableName":"ixt","IndexName":"`+index+`","KeyConditionExpression":"`+cond+`","ExpressionAttributeValues":`+vals+`,"Select":"COUNT"}`)
		return out.Count
	}
	mustRun(t, e, (*Engine).PutItem, `{"TableName":"ixt","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"S":"x"},"n":{"N":"1"}}}`)
	mustRun(t, e, (*Engine).UpdateItem, `{"TableName":"ixt","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"UpdateExpression":"SET g = :g","ExpressionAttributeValues":{":g":{"S":"y"}}}`)
	if n := count("g_all", "g = :g", `{":g":{"S":"x"}}`); n != 0 {
		t.Fatalf("GSI shows the write before the lag: %d", n)
	}
	if n := count("l_n", "pk = :p", `{":p":{"S":"a"}}`); n != 1 {
		t.Fatalf("LSI must be synchronous: %d", n)
	}
	clock.Advance(2 * time.Hour)
	deadline := time.Now().Add(10 * time.Second)
	for count("g_all", "g = :g", `{":g":{"S":"y"}}`) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("queued GSI change not applied after the lag")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := count("g_all", "g = :g", `{":g":{"S":"x"}}`); n != 0 {
		t.Fatalf("the first version's entry survived: %d", n)
	}
	checkIndexes(t, e, st, "ixt")
}

// TestItemCollectionSizeLimit: on a table with an LSI, a write that would
// grow an item collection past the limit fails with
// ItemCollectionSizeLimitExceededException and changes nothing; other
// collections, and writes that shrink one, are unaffected.
func TestItemCollectionSizeLimit(t *testing.T) {
	e, st := openEngine(t, Options{ItemCollectionSizeLimit: 4000}, "")
	mustRun(t, e, (*Engine).CreateTable, indexedTable)
	pad := string(bytes.Repeat([]byte("x"), 900))
	put := func(pk string, sk int) error {
		_, err := run(e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"ixt","Item":{"pk":{"S":"%s"},"sk":{"N":"%d"},"n":{"N":"1"},"pad":{"S":"%s"}}}`, pk, sk, pad))
		return err
	}
	var err error
	n := 0
	for ; n < 10; n++ {
		if err = put("a", n); err != nil {
			break
		}
	}
	var de *ddberr.Error
	if !errors.As(err, &de) || de.Code != ddberr.ItemCollectionSizeLimitExceededException {
		t.Fatalf("after %d items: %v, want ItemCollectionSizeLimitExceededException", n, err)
	}
	if err := put("b", 0); err != nil {
		t.Fatalf("another collection: %v", err)
	}
	mustRun(t, e, (*Engine).DeleteItem, `{"TableName":"ixt","Key":{"pk":{"S":"a"},"sk":{"N":"0"}}}`)
	if err := put("a", n); err != nil {
		t.Fatalf("after a delete made room: %v", err)
	}
	checkIndexes(t, e, st, "ixt")
}

// TestScan_IndexSegmentsCoverEachEntryOnce: a parallel Scan of a GSI
// (TotalSegments 3, small pages) returns every index entry exactly once.
func TestScan_IndexSegmentsCoverEachEntryOnce(t *testing.T) {
	e := randomlyWritten(t, 300, 3)
	whole := mustRun(t, e, (*Engine).Scan, `{"TableName":"ixt","IndexName":"g_keys","Select":"COUNT"}`)
	if whole.LastEvaluatedKey != nil || whole.Count == 0 {
		t.Fatalf("whole-index scan: count %d, LastEvaluatedKey %v", whole.Count, whole.LastEvaluatedKey)
	}
	seen := map[string]int{}
	for seg := 0; seg < 3; seg++ {
		start := ""
		for {
			out := mustRun(t, e, (*Engine).Scan, fmt.Sprintf(`{"TableName":"ixt","IndexName":"g_keys","Segment":%d,"TotalSegments":3,"Limit":5%s}`, seg, start))
			for _, it := range decodeBody(t, out.AppendJSON(nil)) {
				seen[it["pk"].Text()+"/"+it["sk"].Text()]++
			}
			if out.LastEvaluatedKey == nil {
				break
			}
			start = `,"ExclusiveStartKey":` + string(attr.AppendItem(nil, out.LastEvaluatedKey))
		}
	}
	if len(seen) != whole.Count {
		t.Fatalf("segments returned %d distinct entries, the index has %d", len(seen), whole.Count)
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("%s returned %d times", k, n)
		}
	}
}
