package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
)

// wireRecord is a stream record as GetRecords sends it.
type wireRecord struct {
	EventID      string `json:"eventID"`
	EventName    string `json:"eventName"`
	EventVersion string `json:"eventVersion"`
	EventSource  string `json:"eventSource"`
	AwsRegion    string `json:"awsRegion"`
	Dynamodb     struct {
		ApproximateCreationDateTime int64
		Keys, NewImage, OldImage    json.RawMessage
		SequenceNumber              string
		SizeBytes                   int64
		StreamViewType              string
	} `json:"dynamodb"`
	UserIdentity *struct{ PrincipalId, Type string } `json:"userIdentity"`
}

// latestArn returns the LatestStreamArn of a table.
func latestArn(t testing.TB, e *Engine, table string) string {
	t.Helper()
	out := mustRun(t, e, (*Engine).DescribeTable, `{"TableName":"`+table+`"}`)
	if out.Table.LatestStreamArn == "" {
		t.Fatalf("%s has no LatestStreamArn", table)
	}
	return out.Table.LatestStreamArn
}

// shardsOf returns every shard of a stream, paging with Limit 2 through
// DescribeStream.
func shardsOf(t testing.TB, e *Engine, arn string) []api.ShardDescription {
	t.Helper()
	var all []api.ShardDescription
	start := ""
	for {
		body := `{"StreamArn":"` + arn + `","Limit":2`
		if start != "" {
			body += `,"ExclusiveStartShardId":"` + start + `"`
		}
		out := mustRun(t, e, (*Engine).DescribeStream, body+"}")
		all = append(all, out.Stream.Shards...)
		if start = out.Stream.LastEvaluatedShardID; start == "" {
			return all
		}
	}
}

// readShard reads one shard from TRIM_HORIZON until GetRecords has no
// next iterator (closed shard) or returns nothing (open shard).
func readShard(t testing.TB, e *Engine, arn, shard string, limit int) []wireRecord {
	t.Helper()
	it := mustRun(t, e, (*Engine).GetShardIterator, `{"StreamArn":"`+arn+`","ShardId":"`+shard+`","ShardIteratorType":"TRIM_HORIZON"}`).ShardIterator
	var recs []wireRecord
	for {
		out := mustRun(t, e, (*Engine).GetRecords, fmt.Sprintf(`{"ShardIterator":%q,"Limit":%d}`, it, limit))
		for _, r := range out.Records {
			var w wireRecord
			if err := json.Unmarshal(r, &w); err != nil {
				t.Fatalf("record %s: %v", r, err)
			}
			recs = append(recs, w)
		}
		if out.NextShardIterator == "" || len(out.Records) == 0 {
			return recs
		}
		it = out.NextShardIterator
	}
}

// readStream reads a whole stream following shard lineage: a shard only
// after its parent (when the parent is still listed).
func readWholeStream(t testing.TB, e *Engine, arn string) []wireRecord {
	t.Helper()
	shards := shardsOf(t, e, arn)
	listed := map[string]bool{}
	for _, s := range shards {
		listed[s.ShardID] = true
	}
	done := map[string]bool{}
	var recs []wireRecord
	for len(done) < len(shards) {
		progress := false
		for _, s := range shards {
			if done[s.ShardID] || (s.ParentShardID != "" && listed[s.ParentShardID] && !done[s.ParentShardID]) {
				continue
			}
			recs = append(recs, readShard(t, e, arn, s.ShardID, 7)...)
			done[s.ShardID], progress = true, true
		}
		if !progress {
			t.Fatal("shard lineage has a cycle")
		}
	}
	return recs
}

// checkReplay replays records (read in lineage order) over the items
// before them and checks that each record's OldImage is exactly the item
// as the previous records left it (so every change appears once, in
// order), that no record is a no-op, and that the replay ends at the
// table's contents.
func checkReplay(t testing.TB, recs []wireRecord, before, table map[string]string) {
	t.Helper()
	state := map[string]string{}
	for k, v := range before {
		state[k] = v
	}
	seqs := map[string]bool{}
	for i, r := range recs {
		key := canonJSON(t, r.Dynamodb.Keys)
		if seqs[r.Dynamodb.SequenceNumber] {
			t.Fatalf("record %d: sequence number %s twice", i, r.Dynamodb.SequenceNumber)
		}
		seqs[r.Dynamodb.SequenceNumber] = true
		old, had := state[key]
		switch r.EventName {
		case "INSERT":
			if had {
				t.Fatalf("record %d: INSERT of %s, which exists as %s", i, key, old)
			}
		case "MODIFY", "REMOVE":
			if !had || canonJSON(t, r.Dynamodb.OldImage) != old {
				t.Fatalf("record %d: %s of %s with OldImage %s, but the item was %q (present %v)", i, r.EventName, key, r.Dynamodb.OldImage, old, had)
			}
		default:
			t.Fatalf("record %d: eventName %q", i, r.EventName)
		}
		if r.EventName == "REMOVE" {
			delete(state, key)
			continue
		}
		n := canonJSON(t, r.Dynamodb.NewImage)
		if n == old {
			t.Fatalf("record %d: %s of %s changes nothing", i, r.EventName, key)
		}
		state[key] = n
	}
	if len(state) != len(table) {
		t.Fatalf("replay gives %d items, table has %d", len(state), len(table))
	}
	for k, v := range table {
		if state[k] != v {
			t.Fatalf("item %s: replay gives %q, table has %q", k, state[k], v)
		}
	}
}

// canonJSON re-encodes an item's JSON with sorted names, as stored.
func canonJSON(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	item, err := attr.DecodeItem(raw)
	if err != nil {
		t.Fatalf("image %s: %v", raw, err)
	}
	return string(attr.AppendItem(nil, item))
}

// TestStream_ReplayMatchesTable writes randomly from four goroutines
// (puts, updates moving index keys, deletes, batches, rejected writes)
// while the clock moves and shards roll over, then reads the whole stream
// following lineage: replaying it gives the table, each change once, in
// per-item order.
func TestStream_ReplayMatchesTable(t *testing.T) {
	clock := newFakeClock()
	e, st := openEngine(t, Options{Now: clock.Now, StreamShards: 3, StreamRollover: time.Minute}, "")
	mustRun(t, e, (*Engine).CreateTable, streamedTable)
	arn := latestArn(t, e, "ixt")
	wait := startRandomWrites(t, e, 4, 300, 7)
	for i := 0; i < 6; i++ {
		time.Sleep(5 * time.Millisecond)
		clock.Advance(40 * time.Second)
		if err := e.streamUpkeep(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	wait()
	shards := shardsOf(t, e, arn)
	if len(shards) <= 3 {
		t.Fatalf("%d shards after rollovers, want more than 3", len(shards))
	}
	recs := readWholeStream(t, e, arn)
	if len(recs) < 100 {
		t.Fatalf("only %d records", len(recs))
	}
	checkReplay(t, recs, nil, tableImages(t, e, st, "ixt"))
	checkIndexes(t, e, st, "ixt")
}

// TestStream_RecordShapes checks each view type's images and SizeBytes,
// that a write changing nothing writes no record, transactions' records
// and TTL deletions' userIdentity.
func TestStream_RecordShapes(t *testing.T) {
	clock := newFakeClock()
	for _, view := range []string{"KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"} {
		t.Run(view, func(t *testing.T) {
			e, _ := openEngine(t, Options{Now: clock.Now, StreamShards: 1}, "")
			mustRun(t, e, (*Engine).CreateTable, `{"TableName":"tab","KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],
				"AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST",
				"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"`+view+`"}}`)
			mustRun(t, e, (*Engine).UpdateTimeToLive, `{"TableName":"tab","TimeToLiveSpecification":{"AttributeName":"exp","Enabled":true}}`)
			put := func(item string) { mustRun(t, e, (*Engine).PutItem, `{"TableName":"tab","Item":`+item+`}`) }
			put(`{"id":{"S":"Fred"}}`)                                                                                               // INSERT
			put(`{"id":{"S":"Fred"}}`)                                                                                               // no change: no record
			put(`{"id":{"S":"Fred"},"ss":{"SS":["a","b"]}}`)                                                                         // MODIFY
			put(`{"id":{"S":"Fred"},"ss":{"SS":["b","a"]}}`)                                                                         // the same set: no record (stored in DynamoDB's member order, attr.SortMembers)
			mustRun(t, e, (*Engine).UpdateItem, `{"TableName":"tab","Key":{"id":{"S":"Fred"}},"UpdateExpression":"REMOVE nothing"}`) // no change
			mustRun(t, e, (*Engine).DeleteItem, `{"TableName":"tab","Key":{"id":{"S":"Ghost"}}}`)                                    // absent: no record
			mustRun(t, e, (*Engine).TransactWriteItems, `{"TransactItems":[
				{"Put":{"TableName":"tab","Item":{"id":{"S":"T1"},"exp":{"N":"`+itoa64(clock.Now().Unix()-10)+`"}}}},
				{"Delete":{"TableName":"tab","Key":{"id":{"S":"Fred"}}}},
				{"ConditionCheck":{"TableName":"tab","Key":{"id":{"S":"T2"}},"ConditionExpression":"attribute_not_exists(id)"}}]}`)
			if n, err := e.sweepTTL(context.Background()); err != nil || n != 1 {
				t.Fatalf("sweepTTL = %d, %v; want 1 deletion", n, err)
			}
			arn := latestArn(t, e, "tab")
			shards := shardsOf(t, e, arn)
			if len(shards) != 1 {
				t.Fatalf("%d shards, want 1", len(shards))
			}
			recs := readShard(t, e, arn, shards[0].ShardID, 1000)
			var got []string
			for _, r := range recs {
				s := fmt.Sprintf("%s %s size=%d", r.EventName, r.Dynamodb.Keys, r.Dynamodb.SizeBytes)
				if r.Dynamodb.NewImage != nil {
					s += " new=" + string(r.Dynamodb.NewImage)
				}
				if r.Dynamodb.OldImage != nil {
					s += " old=" + string(r.Dynamodb.OldImage)
				}
				if r.UserIdentity != nil {
					s += " by=" + r.UserIdentity.Type + "/" + r.UserIdentity.PrincipalId
				}
				got = append(got, s)
				if r.EventVersion != "1.1" || r.EventSource != "aws:dynamodb" || r.AwsRegion != "us-east-1" ||
					r.Dynamodb.StreamViewType != view || len(r.EventID) != 32 || !validSequenceNumber(r.Dynamodb.SequenceNumber) ||
					r.Dynamodb.ApproximateCreationDateTime != clock.Now().Unix() {
					t.Errorf("record envelope %+v", r)
				}
			}
			newImg, oldImg := view == "NEW_IMAGE" || view == "NEW_AND_OLD_IMAGES", view == "OLD_IMAGE" || view == "NEW_AND_OLD_IMAGES"
			pick := func(cond bool, s string) string {
				if cond {
					return s
				}
				return ""
			}
			fred, fredSS := `{"id":{"S":"Fred"}}`, `{"id":{"S":"Fred"},"ss":{"SS":["a","b"]}}`
			t1 := `{"exp":{"N":"` + itoa64(clock.Now().Unix()-10) + `"},"id":{"S":"T1"}}`
			t1Size := must(attr.DecodeItem([]byte(t1))).Size()
			// SizeBytes: the keys plus each image sent (DynamoDB item sizes).
			want := []string{
				fmt.Sprintf(`INSERT {"id":{"S":"Fred"}} size=%d`, 6+pick2(newImg, 6)) + pick(newImg, " new="+fred),
				fmt.Sprintf(`MODIFY {"id":{"S":"Fred"}} size=%d`, 6+pick2(newImg, 10)+pick2(oldImg, 6)) + pick(newImg, " new="+fredSS) + pick(oldImg, " old="+fred),
				fmt.Sprintf(`INSERT {"id":{"S":"T1"}} size=%d`, 4+pick2(newImg, t1Size)) + pick(newImg, " new="+t1),
				// The rewrite with the set in another order wrote no record
				// but is the item now.
				fmt.Sprintf(`REMOVE {"id":{"S":"Fred"}} size=%d`, 6+pick2(oldImg, 10)) + pick(oldImg, ` old={"id":{"S":"Fred"},"ss":{"SS":["a","b"]}}`),
				fmt.Sprintf(`REMOVE {"id":{"S":"T1"}} size=%d`, 4+pick2(oldImg, t1Size)) + pick(oldImg, " old="+t1) + " by=Service/dynamodb.amazonaws.com",
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func pick2(cond bool, n int) int {
	if cond {
		return n
	}
	return 0
}

// wantCode fails unless err is a DynamoDB error with code and a message
// containing msg.
func wantCode(t testing.TB, err error, code ddberr.Code, msg string) {
	t.Helper()
	de, ok := ddberr.As(err)
	if !ok || de.Code != code || !strings.Contains(de.Message, msg) {
		t.Fatalf("got %v, want %s containing %q", err, code, msg)
	}
}

// TestStream_Lifecycle walks a table's stream settings with an injected
// clock: StreamSpecification and LatestStreamArn in DescribeTable,
// ENABLING → ENABLED → DISABLING → DISABLED, the errors for enabling
// twice and disabling when disabled, a new stream on re-enabling, old
// streams listed until the retention period ends, and a deleted table's
// stream still readable.
func TestStream_Lifecycle(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now, CreateDelay: 5 * time.Second, StreamShards: 2}, "")
	mustRun(t, e, (*Engine).CreateTable, accountsTable)
	clock.Advance(5 * time.Second)
	desc := func() *api.TableDescription {
		return mustRun(t, e, (*Engine).DescribeTable, `{"TableName":"accounts"}`).Table
	}
	if d := desc(); d.StreamViewType != "" || d.LatestStreamArn != "" {
		t.Fatalf("new table has stream %q %q", d.StreamViewType, d.LatestStreamArn)
	}
	update := func(spec string) error {
		_, err := run(e, (*Engine).UpdateTable, `{"TableName":"accounts","StreamSpecification":`+spec+`}`)
		return err
	}
	wantCode(t, update(`{"StreamEnabled":false}`), ddberr.ValidationException, "Table has no stream to disable: TableName: accounts")
	wantCode(t, update(`{"StreamEnabled":true}`), ddberr.ValidationException, "If stream is being enabled then UpdateViewType is required")
	wantCode(t, update(`{"StreamEnabled":false,"StreamViewType":"KEYS_ONLY"}`), ddberr.ValidationException, "If stream is being disabled, then UpdateViewType must not be specified")
	wantCode(t, update(`{"StreamEnabled":true,"StreamViewType":"new_image"}`), ddberr.ValidationException,
		"Value 'new_image' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [OLD_IMAGE, KEYS_ONLY, NEW_AND_OLD_IMAGES, NEW_IMAGE]")
	if err := update(`{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"}`); err != nil {
		t.Fatal(err)
	}
	first := desc()
	if first.StreamViewType != "KEYS_ONLY" || !strings.HasSuffix(first.LatestStreamArn, "table/accounts/stream/2026-01-01T00:00:05.000") ||
		first.LatestStreamLabel != "2026-01-01T00:00:05.000" {
		t.Fatalf("after enabling: %q %q %q", first.StreamViewType, first.LatestStreamArn, first.LatestStreamLabel)
	}
	status := func(arn string) string {
		return mustRun(t, e, (*Engine).DescribeStream, `{"StreamArn":"`+arn+`"}`).Stream.StreamStatus
	}
	if s := status(first.LatestStreamArn); s != "ENABLING" {
		t.Fatalf("status %s, want ENABLING", s)
	}
	_, err := run(e, (*Engine).DeleteTable, `{"TableName":"accounts"}`)
	wantCode(t, err, ddberr.ResourceInUseException, "Cannot delete table while stream is being enabled/disabled.")
	wantCode(t, update(`{"StreamEnabled":false}`), ddberr.ResourceInUseException,
		"A stream status change is currently in progress. Table: accounts Stream: 2026-01-01T00:00:05.000 Operation: ENABLE")
	clock.Advance(5 * time.Second)
	if s := status(first.LatestStreamArn); s != "ENABLED" {
		t.Fatalf("status %s, want ENABLED", s)
	}
	wantCode(t, update(`{"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"}`), ddberr.ValidationException, "Table already has an enabled stream: TableName: accounts")
	mustRun(t, e, (*Engine).PutItem, `{"TableName":"accounts","Item":{"pk":{"S":"a"}}}`)
	if err := update(`{"StreamEnabled":false}`); err != nil {
		t.Fatal(err)
	}
	if d := desc(); d.StreamViewType != "" || d.LatestStreamArn != first.LatestStreamArn {
		t.Fatalf("after disabling: spec %q, latest %q (want the old one kept)", d.StreamViewType, d.LatestStreamArn)
	}
	if s := status(first.LatestStreamArn); s != "DISABLING" {
		t.Fatalf("status %s, want DISABLING", s)
	}
	clock.Advance(5 * time.Second)
	if s := status(first.LatestStreamArn); s != "DISABLED" {
		t.Fatalf("status %s, want DISABLED", s)
	}
	// Every shard is closed, and still readable.
	recs := 0
	for _, sh := range shardsOf(t, e, first.LatestStreamArn) {
		if sh.Ending == "" {
			t.Fatalf("shard %s of a disabled stream is open", sh.ShardID)
		}
		recs += len(readShard(t, e, first.LatestStreamArn, sh.ShardID, 100))
	}
	if recs != 1 {
		t.Fatalf("%d records in the disabled stream, want 1", recs)
	}
	// A write now records nothing.
	mustRun(t, e, (*Engine).PutItem, `{"TableName":"accounts","Item":{"pk":{"S":"b"}}}`)
	clock.Advance(time.Second)
	if err := update(`{"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"}`); err != nil {
		t.Fatal(err)
	}
	second := desc()
	if second.LatestStreamArn == first.LatestStreamArn || second.StreamViewType != "NEW_IMAGE" {
		t.Fatalf("re-enabled stream %q %q", second.LatestStreamArn, second.StreamViewType)
	}
	list := func(body string) *api.ListStreamsOutput { return mustRun(t, e, (*Engine).ListStreams, body) }
	if l := list(`{"TableName":"accounts"}`); len(l.Streams) != 2 || l.Streams[0].StreamArn != first.LatestStreamArn ||
		l.Streams[1].StreamArn != second.LatestStreamArn || l.Streams[0].TableName != "accounts" {
		t.Fatalf("ListStreams: %+v", l)
	}
	if l := list(`{"Limit":1}`); len(l.Streams) != 1 || l.LastEvaluatedStreamArn != first.LatestStreamArn {
		t.Fatalf("ListStreams Limit 1: %+v", l)
	} else if l2 := list(`{"ExclusiveStartStreamArn":"` + l.LastEvaluatedStreamArn + `"}`); len(l2.Streams) != 1 || l2.Streams[0].StreamArn != second.LatestStreamArn || l2.LastEvaluatedStreamArn != "" {
		t.Fatalf("ListStreams page 2: %+v", l2)
	}
	if l := list(`{"TableName":"nothing"}`); len(l.Streams) != 0 {
		t.Fatalf("ListStreams of a table without streams: %+v", l)
	}
	// DeleteTable disables the stream, which stays readable.
	clock.Advance(5 * time.Second)
	mustRun(t, e, (*Engine).PutItem, `{"TableName":"accounts","Item":{"pk":{"S":"c"}}}`)
	mustRun(t, e, (*Engine).DeleteTable, `{"TableName":"accounts"}`)
	clock.Advance(5 * time.Second)
	if s := status(second.LatestStreamArn); s != "DISABLED" {
		t.Fatalf("stream of a deleted table: %s", s)
	}
	n := 0
	for _, sh := range shardsOf(t, e, second.LatestStreamArn) {
		n += len(readShard(t, e, second.LatestStreamArn, sh.ShardID, 100))
	}
	if n != 1 {
		t.Fatalf("%d records in the deleted table's stream, want 1", n)
	}
	// Past the retention period both streams are gone.
	clock.Advance(StreamRetention + time.Minute)
	if err := e.streamUpkeep(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := list(`{}`); len(l.Streams) != 0 {
		t.Fatalf("streams after the retention period: %+v", l)
	}
	_, err = run(e, (*Engine).DescribeStream, `{"StreamArn":"`+first.LatestStreamArn+`"}`)
	wantCode(t, err, ddberr.ResourceNotFoundException, "Requested resource not found: Stream: "+first.LatestStreamArn+" not found")
}

// TestStream_Iterators drives shard iterators through their states with
// an injected clock: each iterator type, reading past the end of an open
// shard, a rollover closing the shard (no next iterator at its end), the
// 15-minute expiry, trimming after 24 hours and the shard's removal.
func TestStream_Iterators(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now, StreamShards: 1, StreamRollover: time.Hour}, "")
	mustRun(t, e, (*Engine).CreateTable, strings.Replace(accountsTable, `"BillingMode"`, `"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"},"BillingMode"`, 1))
	arn := latestArn(t, e, "accounts")
	put := func(pk string) {
		mustRun(t, e, (*Engine).PutItem, `{"TableName":"accounts","Item":{"pk":{"S":"`+pk+`"}}}`)
	}
	shard := shardsOf(t, e, arn)[0].ShardID
	iter := func(typ, seq string) (string, error) {
		body := `{"StreamArn":"` + arn + `","ShardId":"` + shard + `","ShardIteratorType":"` + typ + `"`
		if seq != "" {
			body += `,"SequenceNumber":"` + seq + `"`
		}
		out, err := run(e, (*Engine).GetShardIterator, body+"}")
		if err != nil {
			return "", err
		}
		return out.ShardIterator, nil
	}
	mustIter := func(typ, seq string) string {
		t.Helper()
		it, err := iter(typ, seq)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	get := func(it string) (*api.GetRecordsOutput, error) {
		return run(e, (*Engine).GetRecords, fmt.Sprintf(`{"ShardIterator":%q}`, it))
	}
	keys := func(out *api.GetRecordsOutput) (ks []string, seqs []string) {
		for _, r := range out.Records {
			var w wireRecord
			json.Unmarshal(r, &w)
			ks = append(ks, string(w.Dynamodb.Keys))
			seqs = append(seqs, w.Dynamodb.SequenceNumber)
		}
		return ks, seqs
	}
	latest := mustIter("LATEST", "")
	put("a")
	put("b")
	out, err := get(mustIter("TRIM_HORIZON", ""))
	if err != nil {
		t.Fatal(err)
	}
	ks, seqs := keys(out)
	if len(ks) != 2 || out.NextShardIterator == "" {
		t.Fatalf("TRIM_HORIZON read %v, next %q", ks, out.NextShardIterator)
	}
	if out2, _ := get(latest); len(out2.Records) != 2 {
		t.Fatalf("LATEST taken before the writes read %d records, want 2", len(out2.Records))
	}
	if out2, _ := get(mustIter("LATEST", "")); len(out2.Records) != 0 || out2.NextShardIterator == "" {
		t.Fatalf("LATEST read %d records, next %q", len(out2.Records), out2.NextShardIterator)
	}
	if k, _ := keys(must(get(mustIter("AT_SEQUENCE_NUMBER", seqs[1])))); len(k) != 1 || k[0] != `{"pk":{"S":"b"}}` {
		t.Fatalf("AT_SEQUENCE_NUMBER %s read %v", seqs[1], k)
	}
	if k, _ := keys(must(get(mustIter("AFTER_SEQUENCE_NUMBER", seqs[0])))); len(k) != 1 || k[0] != `{"pk":{"S":"b"}}` {
		t.Fatalf("AFTER_SEQUENCE_NUMBER %s read %v", seqs[0], k)
	}
	start := shardsOf(t, e, arn)[0].Starting
	if k, _ := keys(must(get(mustIter("AT_SEQUENCE_NUMBER", start)))); len(k) != 2 {
		t.Fatalf("AT_SEQUENCE_NUMBER at StartingSequenceNumber read %v", k)
	}
	_, err = iter("AT_SEQUENCE_NUMBER", "100000000000000000000")
	wantCode(t, err, ddberr.ValidationException, "Invalid SequenceNumber")
	_, err = iter("AT_SEQUENCE_NUMBER", "999999999999999999999")
	wantCode(t, err, ddberr.ValidationException, "Invalid SequenceNumber")
	_, err = run(e, (*Engine).GetShardIterator, `{"StreamArn":"`+arn+`","ShardId":"shardId-00000000000000000000-00000000","ShardIteratorType":"LATEST"}`)
	wantCode(t, err, ddberr.ResourceNotFoundException, "Requested resource not found: Shard does not exist")
	_, err = get("garbage|1|AAAA")
	wantCode(t, err, ddberr.ValidationException, "Invalid ShardIterator")
	// Reading on from the end of an open shard: nothing, and a next
	// iterator, until the next write.
	next := out.NextShardIterator
	out, _ = get(next)
	if len(out.Records) != 0 || out.NextShardIterator == "" {
		t.Fatalf("past the end: %d records, next %q", len(out.Records), out.NextShardIterator)
	}
	put("c")
	out, _ = get(out.NextShardIterator)
	if k, _ := keys(out); len(k) != 1 || k[0] != `{"pk":{"S":"c"}}` {
		t.Fatalf("after a new write read %v", k)
	}
	next = out.NextShardIterator
	// Expiry: 15 minutes.
	clock.Advance(iteratorLifetime + time.Second)
	_, err = get(next)
	wantCode(t, err, ddberr.ExpiredIteratorException, "Iterator expired")
	// Rollover: the shard closes and a child continues.
	clock.Advance(time.Hour)
	next = mustIter("LATEST", "")
	if err := e.streamUpkeep(context.Background()); err != nil {
		t.Fatal(err)
	}
	put("d")
	shards := shardsOf(t, e, arn)
	if len(shards) != 2 || shards[0].Ending == "" || shards[1].ParentShardID != shard || shards[1].Ending != "" ||
		shards[1].Starting <= shards[0].Ending {
		t.Fatalf("after rollover: %+v", shards)
	}
	out, _ = get(next)
	if len(out.Records) != 0 || out.NextShardIterator != "" {
		t.Fatalf("end of a closed shard: %d records, next %q (want none)", len(out.Records), out.NextShardIterator)
	}
	child := readShard(t, e, arn, shards[1].ShardID, 10)
	if len(child) != 1 || string(child[0].Dynamodb.Keys) != `{"pk":{"S":"d"}}` {
		t.Fatalf("child shard: %+v", child)
	}
	children := mustRun(t, e, (*Engine).DescribeStream, `{"StreamArn":"`+arn+`","ShardFilter":{"Type":"CHILD_SHARDS","ShardId":"`+shard+`"}}`).Stream.Shards
	if len(children) != 1 || children[0].ShardID != shards[1].ShardID {
		t.Fatalf("CHILD_SHARDS of %s: %+v", shard, children)
	}
	if none := mustRun(t, e, (*Engine).DescribeStream, `{"StreamArn":"`+arn+`","ExclusiveStartShardId":"shardId-99999999999999999999-ffffffff"}`).Stream.Shards; len(none) != 0 {
		t.Fatalf("unknown ExclusiveStartShardId gave %+v", none)
	}
	// Trimming: 24 hours after "a" to "c" were written, a TRIM_HORIZON
	// iterator taken before the trim gets TrimmedDataAccessException and
	// a new one reads nothing from the old shard.
	clock.Advance(StreamRetention - time.Hour - iteratorLifetime)
	put("e")
	old := mustIter("TRIM_HORIZON", "")
	if err := e.streamUpkeep(context.Background()); err != nil {
		t.Fatal(err)
	}
	old2 := mustIter("TRIM_HORIZON", "")
	_, err = get(old)
	wantCode(t, err, ddberr.TrimmedDataAccessException, "The data you are trying to access has been trimmed")
	_, err = iter("AT_SEQUENCE_NUMBER", seqs[0])
	wantCode(t, err, ddberr.TrimmedDataAccessException, "trimmed")
	if out, err := get(old2); err != nil || len(out.Records) != 0 || out.NextShardIterator != "" {
		t.Fatalf("trimmed closed shard: %v, %+v", err, out)
	}
	if got := len(readShard(t, e, arn, shards[1].ShardID, 10)); got != 2 {
		t.Fatalf("child shard after trimming has %d records, want 2 (d, e)", got)
	}
	// The closed shard goes once its close is past the retention period
	// (it closed an hour and a quarter after the start).
	clock.Advance(time.Hour + 10*time.Minute)
	old3 := mustIter("TRIM_HORIZON", "")
	clock.Advance(6 * time.Minute)
	if err := e.streamUpkeep(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Upkeep rolled the child over too, hourly.
	if shards := shardsOf(t, e, arn); shards[0].ParentShardID != shard {
		t.Fatalf("after the parent's retention: %+v", shards)
	}
	_, err = get(old3)
	wantCode(t, err, ddberr.TrimmedDataAccessException, "trimmed")
	_, err = iter("TRIM_HORIZON", "")
	wantCode(t, err, ddberr.ResourceNotFoundException, "Shard does not exist")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// FuzzParseShardIterator: any string is an iterator or "Invalid
// ShardIterator", never a panic; encoding round-trips.
func FuzzParseShardIterator(f *testing.F) {
	it := shardIterator{arn: "arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/2026-01-01T00:00:00.000", shard: 3,
		stamp: make([]byte, storage.StampLen), inclusive: true, issued: time.UnixMilli(1700000000000)}
	f.Add(it.encode())
	f.Add("a|1|")
	f.Add("|1|AAAA")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseShardIterator(s)
		if err != nil {
			if de, ok := ddberr.As(err); !ok || de.Code != ddberr.ValidationException {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if again := got.encode(); again != s {
			if back, err := parseShardIterator(again); err != nil || back.encode() != again {
				t.Fatalf("%q re-encodes to %q, which does not round-trip", s, again)
			}
		}
	})
}

// FuzzDecodeRecord: a stored record value decodes or fails with
// errCorruptRecord, never panics.
func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte{markRecord, eventInsert, 0, 0, 0, 0, 0, 0, 0, 0, 1, 12, 2, '{', '}', 0, 0})
	f.Add([]byte{markRecord})
	f.Fuzz(func(t *testing.T, v []byte) {
		if _, err := decodeRecord(v); err != nil && err != errCorruptRecord {
			t.Fatal(err)
		}
	})
}

// FuzzParseSequenceNumber: sequence numbers round-trip through stamps.
func FuzzParseSequenceNumber(f *testing.F) {
	f.Add("100000000000000100000")
	f.Add("10047082441570438348900000") // a TiKV timestamp
	f.Add("10000000000000000000100000") // a short stamp in the long form: refused
	f.Add("11844674407370955161600000") // past 2^64: refused
	f.Add("1")
	f.Fuzz(func(t *testing.T, s string) {
		st, ok := parseSequenceNumber(s)
		if ok && sequenceNumber(st) != s {
			t.Fatalf("%q → %x → %q", s, st, sequenceNumber(st))
		}
	})
}

// TestStream_UpkeepBounds: an idle stream does not grow however often
// the rollover age passes (an empty shard stays open), and a stream
// rolling over faster than the retention period keeps at most
// Options.MaxClosedShards closed shards.
func TestStream_UpkeepBounds(t *testing.T) {
	clock := newFakeClock()
	const maxClosed = 20
	e, _ := openEngine(t, Options{Now: clock.Now, StreamShards: 1, StreamRollover: time.Second, MaxClosedShards: maxClosed}, "")
	mustRun(t, e, (*Engine).CreateTable, strings.Replace(accountsTable, `"BillingMode"`, `"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"},"BillingMode"`, 1))
	arn := latestArn(t, e, "accounts")
	for i := 0; i < 50; i++ {
		clock.Advance(time.Second)
		if err := e.streamUpkeep(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(shardsOf(t, e, arn)); n != 1 {
		t.Fatalf("an idle stream has %d shards after 50 rollover periods, want 1", n)
	}
	for i := 0; i < maxClosed+10; i++ {
		mustRun(t, e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"accounts","Item":{"pk":{"S":"k%d"}}}`, i))
		clock.Advance(time.Second)
		if err := e.streamUpkeep(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	shards := mustRun(t, e, (*Engine).DescribeStream, `{"StreamArn":"`+arn+`"}`).Stream
	tx, _ := e.store.Begin(context.Background(), storage.ReadOnly)
	st, err := e.stream(tx, "accounts", shards.StreamLabel)
	tx.Rollback()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(st.Shards); n != maxClosed+1 {
		t.Fatalf("%d shards, want %d closed and one open", n, maxClosed)
	}
	// The newest shards still chain to their parents and hold the records.
	recs := readWholeStream(t, e, arn)
	if len(recs) != maxClosed {
		t.Fatalf("%d records readable, want %d (those of the shards kept)", len(recs), maxClosed)
	}
}

// TestStream_GetRecordsOneMegabyte: a page of GetRecords stops before the
// record that would take it past 1 MB, and the next page starts with it;
// a single record larger than that is still returned alone.
func TestStream_GetRecordsOneMegabyte(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now, StreamShards: 1}, "")
	mustRun(t, e, (*Engine).CreateTable, strings.Replace(accountsTable, `"BillingMode"`, `"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"},"BillingMode"`, 1))
	arn := latestArn(t, e, "accounts")
	big := strings.Repeat("x", 399_000)
	for i := 0; i < 6; i++ { // each MODIFY carries two ~400 KB images
		mustRun(t, e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"accounts","Item":{"pk":{"S":"k"},"v":{"S":"%d%s"}}}`, i, big))
	}
	shard := shardsOf(t, e, arn)[0].ShardID
	it := mustRun(t, e, (*Engine).GetShardIterator, `{"StreamArn":"`+arn+`","ShardId":"`+shard+`","ShardIteratorType":"TRIM_HORIZON"}`).ShardIterator
	total := 0
	for pages := 0; ; pages++ {
		out := mustRun(t, e, (*Engine).GetRecords, fmt.Sprintf(`{"ShardIterator":%q}`, it))
		size := len(out.AppendJSON(nil))
		if len(out.Records) > 1 && size > maxRecordsBytes+1024 {
			t.Fatalf("page %d: %d records in %d bytes", pages, len(out.Records), size)
		}
		if len(out.Records) == 0 {
			break
		}
		total += len(out.Records)
		it = out.NextShardIterator
	}
	if total != 6 {
		t.Fatalf("read %d records, want 6", total)
	}
}

// validSequenceNumber: 21 digits on Pebble, 26 on TiKV, and what
// parseSequenceNumber reads back.
func validSequenceNumber(s string) bool {
	st, ok := parseSequenceNumber(s)
	return ok && (len(s) == 21 || len(s) == 26) && sequenceNumber(st) == s
}

// TestSequenceNumber_Forms: a stamp below 10^15 takes the 21-digit form,
// a larger one (TiKV's timestamps) the 26-digit one; both parse back, and
// numeric order follows stamp order across the two.
func TestSequenceNumber_Forms(t *testing.T) {
	stamp := func(commit uint64, pos uint16) []byte {
		return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint64(nil, commit), pos)
	}
	prev := new(big.Int)
	for _, tc := range []struct {
		commit uint64
		pos    uint16
		want   string
	}{
		{1, 0, "100000000000000100000"},
		{999_999_999_999_999, 65535, "199999999999999965535"},
		{1_000_000_000_000_000, 0, "10000100000000000000000000"},
		{470824415704383489, 7, "10047082441570438348900007"},
		{^uint64(0), 65535, "11844674407370955161565535"},
	} {
		got := sequenceNumber(stamp(tc.commit, tc.pos))
		if got != tc.want {
			t.Errorf("sequenceNumber(%d, %d) = %s, want %s", tc.commit, tc.pos, got, tc.want)
		}
		back, ok := parseSequenceNumber(got)
		if !ok || !bytes.Equal(back, stamp(tc.commit, tc.pos)) {
			t.Errorf("parseSequenceNumber(%s) = %x, %v", got, back, ok)
		}
		n, _ := new(big.Int).SetString(got, 10)
		if n.Cmp(prev) <= 0 {
			t.Errorf("%s does not sort after %s", got, prev)
		}
		prev = n
	}
}
