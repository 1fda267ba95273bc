package gosdk

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// StreamsClient returns an aws-sdk-go-v2 DynamoDB Streams client for the
// server (same endpoint as DynamoDB, as dynago serves both).
func (s *Server) StreamsClient() *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("dynago", "dynago", ""),
		HTTPClient:   sdkHTTPClient,
	})
}

// canonDB and canonStream print an item with sorted names, so that
// items from the two SDK type families compare as strings.
func canonDB(item map[string]types.AttributeValue) string {
	names := make([]string, 0, len(item))
	for n := range item {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteByte('{')
	for _, n := range names {
		fmt.Fprintf(&b, "%q:%s,", n, canonDBValue(item[n]))
	}
	return b.String() + "}"
}

func canonDBValue(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "S" + strconv.Quote(v.Value)
	case *types.AttributeValueMemberN:
		return "N" + v.Value
	case *types.AttributeValueMemberBOOL:
		return "BOOL" + strconv.FormatBool(v.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		return "SS" + fmt.Sprint(v.Value)
	case *types.AttributeValueMemberNS:
		return "NS" + fmt.Sprint(v.Value)
	case *types.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = canonDBValue(e)
		}
		return "L[" + strings.Join(parts, ",") + "]"
	case *types.AttributeValueMemberM:
		return "M" + canonDB(v.Value)
	}
	return fmt.Sprintf("?%T", v)
}

func canonStream(item map[string]stypes.AttributeValue) string {
	names := make([]string, 0, len(item))
	for n := range item {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteByte('{')
	for _, n := range names {
		fmt.Fprintf(&b, "%q:%s,", n, canonStreamValue(item[n]))
	}
	return b.String() + "}"
}

func canonStreamValue(v stypes.AttributeValue) string {
	switch v := v.(type) {
	case *stypes.AttributeValueMemberS:
		return "S" + strconv.Quote(v.Value)
	case *stypes.AttributeValueMemberN:
		return "N" + v.Value
	case *stypes.AttributeValueMemberBOOL:
		return "BOOL" + strconv.FormatBool(v.Value)
	case *stypes.AttributeValueMemberNULL:
		return "NULL"
	case *stypes.AttributeValueMemberSS:
		return "SS" + fmt.Sprint(v.Value)
	case *stypes.AttributeValueMemberNS:
		return "NS" + fmt.Sprint(v.Value)
	case *stypes.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = canonStreamValue(e)
		}
		return "L[" + strings.Join(parts, ",") + "]"
	case *stypes.AttributeValueMemberM:
		return "M" + canonStream(v.Value)
	}
	return fmt.Sprintf("?%T", v)
}

// readStreamGo reads a whole stream the way a DynamoDB Streams consumer
// does: DescribeStream (paged), then each shard from TRIM_HORIZON, a
// child only after its parent, GetRecords until a closed shard has no
// NextShardIterator. Open shards are read until they return nothing.
func readStreamGo(t *testing.T, sc *dynamodbstreams.Client, arn string) (recs []stypes.Record, shards []stypes.Shard) {
	t.Helper()
	var start *string
	for {
		out, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: start, Limit: aws.Int32(3)})
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, out.StreamDescription.Shards...)
		if start = out.StreamDescription.LastEvaluatedShardId; start == nil {
			break
		}
	}
	listed, done := map[string]bool{}, map[string]bool{}
	for _, s := range shards {
		listed[aws.ToString(s.ShardId)] = true
	}
	for len(done) < len(shards) {
		progress := false
		for _, s := range shards {
			id, parent := aws.ToString(s.ShardId), aws.ToString(s.ParentShardId)
			if done[id] || (parent != "" && listed[parent] && !done[parent]) {
				continue
			}
			it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
				StreamArn: aws.String(arn), ShardId: s.ShardId, ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
			if err != nil {
				t.Fatal(err)
			}
			iter := it.ShardIterator
			for iter != nil {
				out, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter, Limit: aws.Int32(250)})
				if err != nil {
					t.Fatal(err)
				}
				recs = append(recs, out.Records...)
				iter = out.NextShardIterator
				if len(out.Records) == 0 && s.SequenceNumberRange.EndingSequenceNumber == nil {
					break // the end of an open shard, for now
				}
			}
			done[id], progress = true, true
		}
		if !progress {
			t.Fatal("shard lineage has a cycle")
		}
	}
	return recs, shards
}

// TestStreams_MoviesThroughGoSDK loads the 4,610 movies into a table with
// a NEW_AND_OLD_IMAGES stream (enabled by UpdateTable), updates some
// (some of them to the value they already have), deletes some and lets
// TTL expire others, while the server rolls shards over every second.
// Reading the whole stream through aws-sdk-go-v2's dynamodbstreams
// client, following shard lineage, gives every change exactly once, in
// per-item order, with the right images; replaying it gives the table.
// Sources: developer guide "Change data capture for DynamoDB Streams",
// API_streams_GetRecords, API_streams_StreamRecord.
func TestStreams_MoviesThroughGoSDK(t *testing.T) {
	movies := loadMovies(t)
	srv := StartServer(t, "--in-memory", "--ttl-sweep", "200ms", "--stream-rollover", "1s")
	c, sc := srv.Client(), srv.StreamsClient()
	createMovies(t, c)
	up, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("Movies"),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(up.TableDescription.LatestStreamArn)
	if !strings.HasPrefix(arn, "arn:aws:dynamodb:us-east-1:000000000000:table/Movies/stream/") {
		t.Fatalf("LatestStreamArn %q", arn)
	}
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("Movies"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	loadAll(t, c, movies)
	key := func(m movie) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"year": &types.AttributeValueMemberN{Value: m.Year.String()}, "title": &types.AttributeValueMemberS{Value: m.Title}}
	}
	modifies, removes, expiries := 0, 0, 0
	for i, m := range movies {
		switch i % 20 {
		case 1, 2: // a change: MODIFY
			if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Movies"), Key: key(m),
				UpdateExpression:          aws.String("SET watched = if_not_exists(watched, :z) + :one"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":z": &types.AttributeValueMemberN{Value: "0"}, ":one": &types.AttributeValueMemberN{Value: "1"}}}); err != nil {
				t.Fatal(err)
			}
			modifies++
		case 3: // the same values again: no record
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Movies"), Item: m.item(t)}); err != nil {
				t.Fatal(err)
			}
		case 4: // REMOVE
			if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Movies"), Key: key(m)}); err != nil {
				t.Fatal(err)
			}
			removes++
		case 5: // MODIFY, then a REMOVE by TTL
			if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("Movies"), Key: key(m),
				UpdateExpression:          aws.String("SET expires = :e"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":e": &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Unix()-60, 10)}}}); err != nil {
				t.Fatal(err)
			}
			modifies++
			expiries++
		}
	}
	// Wait for the TTL sweep, and for a few more rollovers.
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Movies"), Select: types.SelectCount,
			FilterExpression: aws.String("attribute_exists(expires)")})
		if err != nil {
			t.Fatal(err)
		}
		if out.Count == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d expired movies not deleted within 30 s", out.Count)
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond)

	recs, shards := readStreamGo(t, sc, arn)
	parents := 0
	for _, s := range shards {
		if s.ParentShardId != nil {
			parents++
		}
	}
	if parents == 0 {
		t.Fatalf("%d shards and none has a parent: no rollover happened", len(shards))
	}
	state := map[string]string{}
	counts := map[stypes.OperationType]int{}
	byTTL := 0
	var lastSeq = map[string]string{} // per shard order is checked by the SDK's consumer; here per item
	for i, r := range recs {
		d := r.Dynamodb
		k := canonStream(d.Keys)
		counts[r.EventName]++
		if aws.ToString(r.EventSource) != "aws:dynamodb" || aws.ToString(r.EventVersion) != "1.1" || aws.ToString(r.AwsRegion) != "us-east-1" ||
			d.StreamViewType != stypes.StreamViewTypeNewAndOldImages || d.ApproximateCreationDateTime == nil || aws.ToInt64(d.SizeBytes) <= 0 {
			t.Fatalf("record %d envelope: %+v %+v", i, r, d)
		}
		seq := aws.ToString(d.SequenceNumber)
		if prev, ok := lastSeq[k]; ok && (len(seq) != len(prev) || seq <= prev) {
			t.Fatalf("record %d of %s: sequence number %s after %s", i, k, seq, prev)
		}
		lastSeq[k] = seq
		old, had := state[k]
		switch r.EventName {
		case stypes.OperationTypeInsert:
			if had || d.OldImage != nil {
				t.Fatalf("record %d: INSERT of existing %s", i, k)
			}
		default:
			if !had || canonStream(d.OldImage) != old {
				t.Fatalf("record %d: %s of %s: OldImage %s, item was %s", i, r.EventName, k, canonStream(d.OldImage), old)
			}
		}
		if r.EventName == stypes.OperationTypeRemove {
			if d.NewImage != nil {
				t.Fatalf("record %d: REMOVE with a NewImage", i)
			}
			if r.UserIdentity != nil {
				if aws.ToString(r.UserIdentity.Type) != "Service" || aws.ToString(r.UserIdentity.PrincipalId) != "dynamodb.amazonaws.com" {
					t.Fatalf("record %d: userIdentity %+v", i, r.UserIdentity)
				}
				byTTL++
			}
			delete(state, k)
			continue
		}
		if r.UserIdentity != nil {
			t.Fatalf("record %d: %s by %+v", i, r.EventName, r.UserIdentity)
		}
		n := canonStream(d.NewImage)
		if n == old {
			t.Fatalf("record %d: %s of %s changes nothing", i, r.EventName, k)
		}
		state[k] = n
	}
	if counts[stypes.OperationTypeInsert] != len(movies) || counts[stypes.OperationTypeModify] != modifies ||
		counts[stypes.OperationTypeRemove] != removes+expiries || byTTL != expiries {
		t.Fatalf("records %v (by TTL %d), want %d INSERT, %d MODIFY, %d REMOVE (%d by TTL)", counts, byTTL, len(movies), modifies, removes+expiries, expiries)
	}
	// Replaying the stream gives the table.
	table := map[string]string{}
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String("Movies")})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			table[canonDB(map[string]types.AttributeValue{"year": it["year"], "title": it["title"]})] = canonDB(it)
		}
	}
	if len(table) != len(state) {
		t.Fatalf("replay gives %d movies, the table has %d", len(state), len(table))
	}
	for k, v := range table {
		if state[k] != v {
			t.Fatalf("%s: replay %s, table %s", k, state[k], v)
		}
	}
	t.Logf("%d records in %d shards (%d with a parent)", len(recs), len(shards), parents)
}

// TestStreams_ErrorsThroughGoSDK: the Streams API's errors arrive as the
// SDK's typed errors.
func TestStreams_ErrorsThroughGoSDK(t *testing.T) {
	srv := StartServer(t, "--in-memory")
	sc := srv.StreamsClient()
	_, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/none/stream/2026-01-01T00:00:00.000")})
	var rnf *stypes.ResourceNotFoundException
	if !errors.As(err, &rnf) || !strings.Contains(rnf.ErrorMessage(), "Stream: arn:aws:dynamodb:us-east-1:000000000000:table/none/stream/2026-01-01T00:00:00.000 not found") {
		t.Fatalf("DescribeStream of a missing stream: %v", err)
	}
	_, err = sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/none/stream/x|1|AAAA")})
	if err == nil || !strings.Contains(err.Error(), "ValidationException") || !strings.Contains(err.Error(), "Invalid ShardIterator") {
		t.Fatalf("GetRecords with a bad iterator: %v", err)
	}
	out, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{})
	if err != nil || len(out.Streams) != 0 {
		t.Fatalf("ListStreams: %+v %v", out, err)
	}
}

// TestCase_TTLExpiryHashRangeTable is ../shared/cases
// "ttl-expiry-hash-range-table" (localstack/localstack#10660: TTL deletion
// failed on tables with a range key) as an aws-sdk-go-v2 test: on a
// hash+range table with a stream, an expired item is deleted by the
// sweep, a future or non-Number TTL is not, and the deletion is a REMOVE
// record by the service.
func TestCase_TTLExpiryHashRangeTable(t *testing.T) {
	srv := StartServer(t, "--in-memory", "--ttl-sweep", "200ms")
	c, sc := srv.Client(), srv.StreamsClient()
	out, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("pb_ttlexp"), BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS}},
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("pb_ttlexp"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	items := map[string]types.AttributeValue{
		"expired":      &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Unix()-60, 10)},
		"future":       &types.AttributeValueMemberN{Value: "4102444800"},
		"not-a-number": &types.AttributeValueMemberS{Value: "1"},
	}
	for sk, v := range items {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("pb_ttlexp"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "p"}, "sk": &types.AttributeValueMemberS{Value: sk}, "expires": v}}); err != nil {
			t.Fatal(err)
		}
	}
	present := func(sk string) bool {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("pb_ttlexp"), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "p"}, "sk": &types.AttributeValueMemberS{Value: sk}}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item != nil
	}
	deadline := time.Now().Add(20 * time.Second)
	for present("expired") {
		if time.Now().After(deadline) {
			t.Fatal("the expired item was not deleted within 20 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !present("future") || !present("not-a-number") {
		t.Fatal("an item that has not expired was deleted")
	}
	recs, _ := readStreamGo(t, sc, aws.ToString(out.TableDescription.LatestStreamArn))
	var removes []string
	for _, r := range recs {
		if r.EventName == stypes.OperationTypeRemove {
			sk := r.Dynamodb.Keys["sk"].(*stypes.AttributeValueMemberS).Value
			if r.UserIdentity == nil || aws.ToString(r.UserIdentity.Type) != "Service" || aws.ToString(r.UserIdentity.PrincipalId) != "dynamodb.amazonaws.com" {
				t.Fatalf("REMOVE of %s without the service's userIdentity: %+v", sk, r.UserIdentity)
			}
			removes = append(removes, sk)
		}
	}
	if len(recs) != 4 || len(removes) != 1 || removes[0] != "expired" {
		t.Fatalf("%d records, REMOVEs %v; want 3 INSERTs and the REMOVE of expired", len(recs), removes)
	}
}
