package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/throttle"
)

// PartiQL statements are run as the operations they stand for (developer
// guide, "PartiQL – a SQL-compatible query language for Amazon DynamoDB":
// a statement is carried out as the corresponding GetItem, Query, Scan,
// PutItem, UpdateItem or DeleteItem, and billed as one;
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.html),
// so everything those operations do follows from a statement too: these
// tests hold streams, TTL, throttling and Contributor Insights to that.

// execute runs one ExecuteStatement request body.
func execute(t testing.TB, e *Engine, statement string) error {
	t.Helper()
	_, err := run(e, (*Engine).ExecuteStatement, `{"Statement":`+fmt.Sprintf("%q", statement)+`}`)
	return err
}

// TestPartiQL_StreamAndTTL: INSERT, UPDATE and DELETE statements, and the
// writes of an ExecuteTransaction, give the stream records their
// operations give (INSERT, MODIFY, REMOVE with both images); an UPDATE
// that changes nothing gives none; an item INSERTed already expired is
// deleted by TTL with the service's REMOVE record.
func TestPartiQL_StreamAndTTL(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now, StreamShards: 1}, "")
	mustRun(t, e, (*Engine).CreateTable, `{"TableName":"tab","KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],
		"AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST",
		"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}}`)
	mustRun(t, e, (*Engine).UpdateTimeToLive, `{"TableName":"tab","TimeToLiveSpecification":{"AttributeName":"exp","Enabled":true}}`)
	for _, st := range []string{
		`INSERT INTO "tab" VALUE {'id': 'a', 'n': 1}`,
		`UPDATE "tab" SET n = 2 WHERE id = 'a'`,
		`UPDATE "tab" SET n = 2 WHERE id = 'a'`, // no change: no record
		`DELETE FROM "tab" WHERE id = 'a'`,
		`DELETE FROM "tab" WHERE id = 'ghost'`, // nothing deleted: no record
		fmt.Sprintf(`INSERT INTO "tab" VALUE {'id': 'old', 'exp': %d}`, clock.Now().Unix()-10),
	} {
		if err := execute(t, e, st); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
	mustRun(t, e, (*Engine).ExecuteTransaction, `{"TransactStatements":[{"Statement":"INSERT INTO \"tab\" VALUE {'id': 'tx'}"},{"Statement":"UPDATE \"tab\" SET n = 5 WHERE id = 'old'"}]}`)
	if n, err := e.sweepTTL(context.Background()); err != nil || n != 1 {
		t.Fatalf("sweepTTL = %d, %v; want the expired item deleted", n, err)
	}
	arn := latestArn(t, e, "tab")
	var got []string
	for _, r := range readShard(t, e, arn, shardsOf(t, e, arn)[0].ShardID, 100) {
		s := r.EventName + " " + string(r.Dynamodb.Keys)
		if r.Dynamodb.NewImage != nil {
			s += " new=" + string(r.Dynamodb.NewImage)
		}
		if r.Dynamodb.OldImage != nil {
			s += " old=" + string(r.Dynamodb.OldImage)
		}
		if r.UserIdentity != nil {
			s += " by=" + r.UserIdentity.PrincipalId
		}
		got = append(got, s)
	}
	exp := fmt.Sprint(clock.Now().Unix() - 10)
	want := []string{
		`INSERT {"id":{"S":"a"}} new={"id":{"S":"a"},"n":{"N":"1"}}`,
		`MODIFY {"id":{"S":"a"}} new={"id":{"S":"a"},"n":{"N":"2"}} old={"id":{"S":"a"},"n":{"N":"1"}}`,
		`REMOVE {"id":{"S":"a"}} old={"id":{"S":"a"},"n":{"N":"2"}}`,
		`INSERT {"id":{"S":"old"}} new={"exp":{"N":"` + exp + `"},"id":{"S":"old"}}`,
		`INSERT {"id":{"S":"tx"}} new={"id":{"S":"tx"}}`,
		`MODIFY {"id":{"S":"old"}} new={"exp":{"N":"` + exp + `"},"id":{"S":"old"},"n":{"N":"5"}} old={"exp":{"N":"` + exp + `"},"id":{"S":"old"}}`,
		`REMOVE {"id":{"S":"old"}} old={"exp":{"N":"` + exp + `"},"id":{"S":"old"},"n":{"N":"5"}} by=dynamodb.amazonaws.com`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("records:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPartiQL_Throttled: with a capacity scale of 100 a partition takes
// 10 write units a second; UPDATE statements on one item at 20 a second
// are held to that with the key-range reason, as PutItem is
// (TestThrottle_HotKeyOnOneItem), and SELECTs of it to 30 read units.
func TestPartiQL_Throttled(t *testing.T) {
	e, clock := throttledEngine(t, throttle.Options{Scale: 100}, accountsTable)
	mustRun(t, e, (*Engine).PutItem, `{"TableName":"accounts","Item":{"pk":{"S":"hot"},"n":{"N":"0"}}}`)
	clock.Advance(2 * time.Second)
	ok := 0
	for i := range 200 { // 20 a second for 10 s
		err := execute(t, e, fmt.Sprintf(`UPDATE "accounts" SET n = %d WHERE pk = 'hot'`, i))
		switch code, reason := reasonOf(err); {
		case err == nil:
			ok++
		case code != ddberr.ThrottlingException || reason != "TableWriteKeyRangeThroughputExceeded":
			t.Fatalf("update %d: %v", i, err)
		}
		clock.Advance(50 * time.Millisecond)
	}
	if ok < 100 || ok > 111 {
		t.Fatalf("%d of 200 updates went through, want about 100 (10 a second plus a second's burst)", ok)
	}
	clock.Advance(2 * time.Second)
	reads := 0
	for range 200 { // 100 a second for 2 s, 0.5 units each
		err := execute(t, e, `SELECT * FROM "accounts" WHERE pk = 'hot'`)
		if err == nil {
			reads++
		} else if _, reason := reasonOf(err); reason != "TableReadKeyRangeThroughputExceeded" {
			t.Fatalf("select: %v", err)
		}
		clock.Advance(10 * time.Millisecond)
	}
	if reads < 120 || reads > 182 {
		t.Fatalf("%d of 200 selects over 2 s, want about 60 a second plus a second's burst", reads)
	}
}

// TestPartiQL_ContributorInsights: statements count in Contributor
// Insights as the writes and reads they run as: ten INSERTs into one
// partition, one SELECT of another (a consistent read of one unit) and a
// SELECT that scans (half a unit).
func TestPartiQL_ContributorInsights(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now}, "")
	mustRun(t, e, (*Engine).CreateTable, ciTable)
	mustRun(t, e, (*Engine).UpdateContributorInsights, `{"TableName":"cit","ContributorInsightsAction":"ENABLE"}`)
	for i := range 10 {
		if err := execute(t, e, fmt.Sprintf(`INSERT INTO "cit" VALUE {'pk': 'a', 'sk': '%d'}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := execute(t, e, `INSERT INTO "cit" VALUE {'pk': 'b', 'sk': '1'}`); err != nil {
		t.Fatal(err)
	}
	mustRun(t, e, (*Engine).ExecuteStatement, `{"Statement":"SELECT * FROM \"cit\" WHERE pk = 'b'","ConsistentRead":true}`)
	if err := execute(t, e, `SELECT * FROM "cit" WHERE sk = '1'`); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	r := report(t, e, "cit")
	tb, span := r.KeySpaces[0], r.WindowSeconds
	pks := tb.MostAccessedPartitionKeys
	if len(pks) != 2 || string(pks[0].Key) != `{"pk":{"S":"a"}}` || pks[0].WriteUnits*span < 9.99 || pks[0].WriteUnits*span > 10.01 ||
		string(pks[1].Key) != `{"pk":{"S":"b"}}` || pks[1].ReadUnits*span < 0.99 {
		t.Fatalf("partition keys over %v s: %+v", span, pks)
	}
	if want := 1.5 / span; tb.ReadUnits < want*0.999 || tb.ReadUnits > want*1.001 || tb.WriteUnits*span < 10.99 || tb.WriteUnits*span > 11.01 {
		t.Fatalf("table units: %.4f read, %.4f write a second", tb.ReadUnits, tb.WriteUnits)
	}
}
