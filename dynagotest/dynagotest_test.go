package dynagotest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"

	"github.com/dynago/dynago/dynagotest"
)

var ctx = context.Background()

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// createTable creates table with the string key id (and a GSI "by-g" on
// the string attribute g when gsi is set), on demand, and a stream when
// stream is set.
func createTable(t *testing.T, db *dynamodb.Client, table string, gsi, stream bool) *types.TableDescription {
	t.Helper()
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}
	if gsi {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS})
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("by-g"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
	}
	if stream {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	}
	out, err := db.CreateTable(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	return out.TableDescription
}

func put(t *testing.T, db *dynamodb.Client, table string, item map[string]types.AttributeValue) {
	t.Helper()
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		t.Fatal(err)
	}
}

func errorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// waitFor polls cond every 5 ms for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 5 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestNew_Isolated: each server has its own store, and servers in
// parallel do not see each other's tables; Endpoint is the loopback URL
// and answers the health check.
func TestNew_Isolated(t *testing.T) {
	a, b := dynagotest.New(t), dynagotest.New(t)
	if !strings.HasPrefix(a.Endpoint(), "http://127.0.0.1:") || a.Endpoint() == b.Endpoint() {
		t.Fatalf("endpoints %q %q", a.Endpoint(), b.Endpoint())
	}
	resp, err := http.Get(a.Endpoint() + "/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /: %v %v", resp, err)
	}
	resp.Body.Close()
	createTable(t, a.Client(), "tbl", false, false)
	put(t, a.Client(), "tbl", map[string]types.AttributeValue{"id": s("1")})
	if c1, c2 := a.Client(), a.Client(); c1 != c2 {
		t.Error("Client returned two clients")
	}
	if _, err := b.Client().DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")}); errorCode(err) != "ResourceNotFoundException" {
		t.Fatalf("the other server's table: %v", err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			srv, err := dynagotest.Start()
			if err != nil {
				t.Error(err)
				return
			}
			defer srv.Close()
			if out, err := srv.Client().ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil || len(out.TableNames) != 0 {
				t.Errorf("a new server's tables: %v %v", out, err)
			}
		})
	}
	wg.Wait()
}

// TestClose_Twice: Close may be called more than once (and again by the
// Cleanup of New); a closed server refuses connections.
func TestClose_Twice(t *testing.T) {
	srv := dynagotest.New(t)
	db := srv.Client()
	if _, err := db.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	srv.Close()
	if _, err := db.ListTables(ctx, &dynamodb.ListTablesInput{}, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }); err == nil {
		t.Fatal("a closed server answered")
	}
}

// TestStart_InvalidOptions: each invalid option is named in Start's error.
func TestStart_InvalidOptions(t *testing.T) {
	for _, tc := range []struct {
		opt  dynagotest.Option
		want string
	}{
		{dynagotest.WithThrottling(0.5), "WithThrottling"},
		{dynagotest.WithGSILag(-time.Second), "WithGSILag"},
		{dynagotest.WithCreateDelay(-time.Second), "WithCreateDelay"},
		{dynagotest.WithTTLSweep(-time.Second), "WithTTLSweep"},
		{dynagotest.WithStreamRollover(0), "WithStreamRollover"},
		{dynagotest.WithDesignStrict(), "WithDesignStrict needs WithDesign"},
		{dynagotest.WithDesign("testdata/missing.design.yaml"), "missing.design.yaml"},
	} {
		srv, err := dynagotest.Start(tc.opt, nil)
		if err == nil {
			srv.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want an error naming %s", err, tc.want)
		}
	}
}

// TestWithDesignStrict: an undeclared Scan is refused, a declared read
// is not, and both are in the traffic report.
func TestWithDesignStrict(t *testing.T) {
	srv := dynagotest.New(t, dynagotest.WithDesign("testdata/users.design.yaml"), dynagotest.WithDesignStrict())
	db := srv.Client()
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("users"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange}},
		BillingMode: types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("users"),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :s)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s("USER#u1"), ":s": s("SESSION#")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("users")}); errorCode(err) != "AccessDeniedException" {
		t.Fatalf("undeclared Scan: %v", err)
	}
	resp, err := http.Get(srv.Endpoint() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`dynago_design_requests_total{declared="true",pattern="user-sessions",table="users"} 1`, `declared="false"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestWithThrottling: at a scale of 1000 a partition takes one write unit
// a second, so the second write in a row is throttled.
func TestWithThrottling(t *testing.T) {
	srv := dynagotest.New(t, dynagotest.WithThrottling(1000))
	db := srv.Client()
	createTable(t, db, "hot", false, false)
	var err error
	for i := 0; i < 20 && err == nil; i++ {
		_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("hot"), Item: map[string]types.AttributeValue{"id": s("k")}},
			func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	}
	if code := errorCode(err); code != "ThrottlingException" && code != "ProvisionedThroughputExceededException" {
		t.Fatalf("20 writes to one key at a scale of 1000: %v", err)
	}
}

// TestWithClock_CreateDelayAndGSILag: with a clock of the test's own, a
// table stays CREATING until the clock passes the create delay, and a
// GSI shows a write only once the clock passes the lag.
func TestWithClock_CreateDelayAndGSILag(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	srv := dynagotest.New(t, dynagotest.WithClock(clock), dynagotest.WithCreateDelay(time.Minute), dynagotest.WithGSILag(time.Hour))
	db := srv.Client()
	if d := createTable(t, db, "tbl", true, false); d.TableStatus != types.TableStatusCreating || !d.CreationDateTime.Equal(clock()) {
		t.Fatalf("new table: %s at %v", d.TableStatus, d.CreationDateTime)
	}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: map[string]types.AttributeValue{"id": s("1")}}); errorCode(err) != "ResourceNotFoundException" {
		t.Fatalf("a write to a CREATING table: %v", err)
	}
	now.Add(int64(time.Minute))
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil || out.Table.TableStatus != types.TableStatusActive {
		t.Fatalf("a minute later: %v %v", out, err)
	}
	put(t, db, "tbl", map[string]types.AttributeValue{"id": s("1"), "g": s("x")})
	query := func() int32 {
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("by-g"),
			KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": s("x")}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Count
	}
	time.Sleep(100 * time.Millisecond) // propagation runs, but the clock stands still
	if n := query(); n != 0 {
		t.Fatalf("the GSI shows the write before its lag: %d", n)
	}
	now.Add(int64(time.Hour))
	waitFor(t, "the GSI showing the write an hour later", func() bool { return query() == 1 })
}

// TestWithStreamRollover: the stream read through a client built on
// Config; shards roll over every 50 ms, each child naming its parent, and
// the records carry the server's clock.
func TestWithStreamRollover(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	// The clock moves on 10 ms in every 10 ms of the test, from 2030.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
				now.Add(int64(10 * time.Millisecond))
			}
		}
	}()
	defer func() { close(stop); <-done }()
	srv := dynagotest.New(t, dynagotest.WithClock(clock), dynagotest.WithStreamRollover(50*time.Millisecond))
	db := srv.Client()
	arn := createTable(t, db, "tbl", false, true).LatestStreamArn
	streams := dynamodbstreams.NewFromConfig(srv.Config())
	var shards []stypes.Shard
	waitFor(t, "a shard with a parent", func() bool {
		put(t, db, "tbl", map[string]types.AttributeValue{"id": s("1")})
		out, err := streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: arn})
		if err != nil {
			t.Fatal(err)
		}
		shards = out.StreamDescription.Shards
		for _, sh := range shards {
			if sh.ParentShardId != nil {
				return true
			}
		}
		return false
	})
	it, err := streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: shards[0].ShardId,
		ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs.Records {
		if at := *r.Dynamodb.ApproximateCreationDateTime; at.Year() != 2030 {
			t.Errorf("a record made at %v, not by the server's clock", at)
		}
	}
}

// BenchmarkNew: what a server costs a test, from New to Close (the
// client is built on the first Client call, which this does not make).
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		dynagotest.New(b).Close()
	}
}

// BenchmarkNewFirstRequest: New, the client and a first request
// (ListTables), then Close.
func BenchmarkNewFirstRequest(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		srv := dynagotest.New(b)
		if _, err := srv.Client().ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
			b.Fatal(err)
		}
		srv.Close()
	}
}

// TestClose_LeavesNoGoroutines: a closed server's goroutines (the
// store's, the engine's background work, the listener, the client's
// connections) all end.
func TestClose_LeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 10 {
		srv, err := dynagotest.Start(dynagotest.WithTTLSweep(time.Millisecond), dynagotest.WithGSILag(time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Client().ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
			t.Fatal(err)
		}
		srv.Close()
	}
	waitFor(t, "the goroutines ending", func() bool { return runtime.NumGoroutine() <= before })
}
