// Command genre-counts is an example DynamoDB Streams consumer that
// maintains derived data: a per-genre movie count, kept in its own table,
// updated from the Movies table's change stream, and checked against a
// recount of the table.
//
// It uses only aws-sdk-go-v2, so it runs unchanged against DynamoDB or
// dynago:
//
//	dynago serve --in-memory &
//	go run ./examples/genre-counts -endpoint http://127.0.0.1:8000 \
//	    -movies ../shared/data/moviedata.json [-table Movies] [-counts GenreCounts]
//
// The movies table (-table; year N, title S) is used as it is when it
// exists, for example after the README's example or dynago load, and
// created otherwise; its stream is turned on (NEW_AND_OLD_IMAGES) if it is
// off. The counts table (-counts; genre S) is derived data: the example
// deletes and re-creates it on every run. It counts the genres of the
// movies already there with a Scan, notes where each open stream shard is
// (LATEST), then loads the movies, changes some movies' genres and deletes
// others, and reads the stream as a consumer must: the shards open at the
// start from where they were, every newer shard from TRIM_HORIZON, a child
// shard only after its parent (so each movie's changes arrive in order),
// applying each record's difference between OldImage and NewImage genres
// as ADD updates to the counts. Finally it recounts the genres with a Scan
// and exits non-zero if the derived counts disagree.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

func main() {
	endpoint := flag.String("endpoint", "http://127.0.0.1:8000", "DynamoDB endpoint")
	movies := flag.String("movies", "../shared/data/moviedata.json", "the developer guide's moviedata.json")
	var names tables
	flag.StringVar(&names.movies, "table", "Movies", "the movies table: used as it is if it exists (its stream turned on), created otherwise")
	flag.StringVar(&names.counts, "counts", "GenreCounts", "the derived counts table: deleted and re-created on every run")
	flag.Parse()
	if err := run(context.Background(), *endpoint, *movies, names, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "genre-counts:", err)
		os.Exit(1)
	}
}

// clients returns DynamoDB and DynamoDB Streams clients for endpoint.
func clients(endpoint string) (*dynamodb.Client, *dynamodbstreams.Client) {
	creds := credentials.NewStaticCredentialsProvider("example", "example", "")
	return dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(endpoint), Region: "us-east-1", Credentials: creds}),
		dynamodbstreams.New(dynamodbstreams.Options{BaseEndpoint: aws.String(endpoint), Region: "us-east-1", Credentials: creds})
}

// tables are the example's two table names.
type tables struct{ movies, counts string }

// run is the whole example; it writes a report to out.
func run(ctx context.Context, endpoint, moviesPath string, names tables, out io.Writer) error {
	db, streams := clients(endpoint)
	items, err := readMovies(moviesPath)
	if err != nil {
		return err
	}
	arn, err := prepareTables(ctx, db, names)
	if err != nil {
		return err
	}
	// Where the stream is now, and the counts of what is already there:
	// the records read later are the changes since.
	from, err := positions(ctx, streams, arn)
	if err != nil {
		return err
	}
	before, err := recountGenres(ctx, db, names.movies)
	if err != nil {
		return err
	}
	if err := seedCounts(ctx, db, names.counts, before); err != nil {
		return err
	}
	if err := load(ctx, db, names.movies, items); err != nil {
		return err
	}
	// Some changes for the stream to carry: every 10th movie becomes a
	// Documentary as well, every 25th is deleted.
	for i, it := range items {
		key := map[string]types.AttributeValue{"year": it["year"], "title": it["title"]}
		switch {
		case i%25 == 0:
			_, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(names.movies), Key: key})
		case i%10 == 0:
			_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(names.movies), Key: key,
				UpdateExpression:          aws.String("SET info.genres = list_append(if_not_exists(info.genres, :none), :doc)"),
				ConditionExpression:       aws.String("attribute_exists(info)"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":none": &types.AttributeValueMemberL{}, ":doc": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "Documentary"}}}}})
			var ccf *types.ConditionalCheckFailedException
			if errors.As(err, &ccf) {
				err = nil // a movie without info
			}
		}
		if err != nil {
			return err
		}
	}
	n, err := consume(ctx, streams, arn, from, func(r stypes.Record) error { return apply(ctx, db, names.counts, r) })
	if err != nil {
		return err
	}
	derived, err := scanCounts(ctx, db, names.counts)
	if err != nil {
		return err
	}
	recount, err := recountGenres(ctx, db, names.movies)
	if err != nil {
		return err
	}
	genres := make([]string, 0, len(recount))
	for g := range recount {
		genres = append(genres, g)
	}
	sort.Slice(genres, func(i, j int) bool { // most movies first, then by name
		if recount[genres[i]] != recount[genres[j]] {
			return recount[genres[i]] > recount[genres[j]]
		}
		return genres[i] < genres[j]
	})
	fmt.Fprintf(out, "%d stream records applied; genre counts (derived / recount):\n", n)
	bad := 0
	for _, g := range genres {
		mark := ""
		if derived[g] != recount[g] {
			mark, bad = "  MISMATCH", bad+1
		}
		fmt.Fprintf(out, "  %-12s %5d / %5d%s\n", g, derived[g], recount[g], mark)
	}
	for g, n := range derived {
		if _, ok := recount[g]; !ok && n != 0 {
			fmt.Fprintf(out, "  %-12s %5d / %5d  MISMATCH\n", g, n, 0)
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d genre counts disagree with the recount", bad)
	}
	fmt.Fprintln(out, "derived counts match the recount")
	return nil
}

// readMovies reads moviedata.json as DynamoDB items (numbers keep their
// literal text).
func readMovies(path string) ([]map[string]types.AttributeValue, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var movies []map[string]any
	if err := dec.Decode(&movies); err != nil {
		return nil, err
	}
	items := make([]map[string]types.AttributeValue, len(movies))
	for i, m := range movies {
		items[i] = toAV(m).(*types.AttributeValueMemberM).Value
	}
	return items, nil
}

func toAV(v any) types.AttributeValue {
	switch v := v.(type) {
	case string:
		return &types.AttributeValueMemberS{Value: v}
	case json.Number:
		return &types.AttributeValueMemberN{Value: v.String()}
	case bool:
		return &types.AttributeValueMemberBOOL{Value: v}
	case []any:
		l := make([]types.AttributeValue, len(v))
		for i, e := range v {
			l[i] = toAV(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case map[string]any:
		m := make(map[string]types.AttributeValue, len(v))
		for k, e := range v {
			m[k] = toAV(e)
		}
		return &types.AttributeValueMemberM{Value: m}
	}
	return &types.AttributeValueMemberNULL{Value: true}
}

// prepareTables makes sure the movies table exists with a
// NEW_AND_OLD_IMAGES stream (creating it, or turning its stream on), and
// re-creates the counts table empty; it returns the stream's ARN.
func prepareTables(ctx context.Context, db *dynamodb.Client, names tables) (string, error) {
	stream := &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(names.movies)})
	var notFound *types.ResourceNotFoundException
	switch {
	case errors.As(err, &notFound):
		_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(names.movies), BillingMode: types.BillingModePayPerRequest,
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("year"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("title"), KeyType: types.KeyTypeRange}},
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("year"), AttributeType: types.ScalarAttributeTypeN},
				{AttributeName: aws.String("title"), AttributeType: types.ScalarAttributeTypeS}},
			StreamSpecification: stream,
		})
	case err != nil:
	case d.Table.StreamSpecification == nil || !aws.ToBool(d.Table.StreamSpecification.StreamEnabled):
		_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(names.movies), StreamSpecification: stream})
	case d.Table.StreamSpecification.StreamViewType != types.StreamViewTypeNewAndOldImages:
		err = fmt.Errorf("table %s has a %s stream; the example needs NEW_AND_OLD_IMAGES (or give -table another table)", names.movies, d.Table.StreamSpecification.StreamViewType)
	}
	if err != nil {
		return "", err
	}
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(names.counts)}); err != nil && !errors.As(err, &notFound) {
		return "", err
	}
	if err := dynamodb.NewTableNotExistsWaiter(db).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(names.counts)}, 5*time.Minute); err != nil {
		return "", err
	}
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(names.counts), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("genre"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("genre"), AttributeType: types.ScalarAttributeTypeS}},
	}); err != nil {
		return "", err
	}
	w := dynamodb.NewTableExistsWaiter(db)
	for _, name := range []string{names.movies, names.counts} {
		if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 5*time.Minute); err != nil {
			return "", err
		}
	}
	d, err = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(names.movies)})
	if err != nil {
		return "", err
	}
	return aws.ToString(d.Table.LatestStreamArn), nil
}

// seedCounts writes counts into the counts table.
func seedCounts(ctx context.Context, db *dynamodb.Client, table string, counts map[string]int) error {
	for g, n := range counts {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"genre": &types.AttributeValueMemberS{Value: g}, "count": &types.AttributeValueMemberN{Value: strconv.Itoa(n)}}}); err != nil {
			return err
		}
	}
	return nil
}

// load writes the movies into table with BatchWriteItem, 25 at a time.
func load(ctx context.Context, db *dynamodb.Client, table string, items []map[string]types.AttributeValue) error {
	for i := 0; i < len(items); i += 25 {
		var reqs []types.WriteRequest
		for _, it := range items[i:min(i+25, len(items))] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		pending := map[string][]types.WriteRequest{table: reqs}
		for len(pending) > 0 {
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				return err
			}
			pending = out.UnprocessedItems
		}
	}
	return nil
}

// listShards returns every shard of the stream.
func listShards(ctx context.Context, streams *dynamodbstreams.Client, arn string) ([]stypes.Shard, error) {
	var shards []stypes.Shard
	var start *string
	for {
		d, err := streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn), ExclusiveStartShardId: start})
		if err != nil {
			return nil, err
		}
		shards = append(shards, d.StreamDescription.Shards...)
		if start = d.StreamDescription.LastEvaluatedShardId; start == nil {
			return shards, nil
		}
	}
}

// positions notes where the stream is now: for each shard that exists,
// a LATEST iterator if it is open (its next records are changes from now
// on) and nil if it is closed (it holds only older records).
func positions(ctx context.Context, streams *dynamodbstreams.Client, arn string) (map[string]*string, error) {
	shards, err := listShards(ctx, streams, arn)
	if err != nil {
		return nil, err
	}
	from := map[string]*string{}
	for _, s := range shards {
		from[aws.ToString(s.ShardId)] = nil
		if s.SequenceNumberRange.EndingSequenceNumber != nil {
			continue
		}
		it, err := streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: s.ShardId,
			ShardIteratorType: stypes.ShardIteratorTypeLatest})
		if err != nil {
			return nil, err
		}
		from[aws.ToString(s.ShardId)] = it.ShardIterator
	}
	return from, nil
}

// consume reads the stream's records since from (positions' answer),
// parents before children, and hands each to apply; it returns the number
// of records applied. A shard in from is read from its noted iterator (or
// not at all, if it was closed); a newer shard from TRIM_HORIZON. A
// long-running consumer would keep polling the open shards; this one stops
// when they have nothing more.
func consume(ctx context.Context, streams *dynamodbstreams.Client, arn string, from map[string]*string, apply func(stypes.Record) error) (int, error) {
	shards, err := listShards(ctx, streams, arn)
	if err != nil {
		return 0, err
	}
	listed := map[string]bool{}
	for _, s := range shards {
		listed[aws.ToString(s.ShardId)] = true
	}
	done, applied := map[string]bool{}, 0
	for len(done) < len(shards) {
		progress := false
		for _, s := range shards {
			id, parent := aws.ToString(s.ShardId), aws.ToString(s.ParentShardId)
			if done[id] || (parent != "" && listed[parent] && !done[parent]) {
				continue
			}
			iter, known := from[id]
			if !known {
				it, err := streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: s.ShardId,
					ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
				if err != nil {
					return applied, err
				}
				iter = it.ShardIterator
			}
			for iter != nil {
				out, err := streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
				if err != nil {
					return applied, err
				}
				for _, r := range out.Records {
					if err := apply(r); err != nil {
						return applied, err
					}
					applied++
				}
				iter = out.NextShardIterator
				if len(out.Records) == 0 && s.SequenceNumberRange.EndingSequenceNumber == nil {
					break // an open shard with nothing more for now
				}
			}
			done[id], progress = true, true
		}
		if !progress {
			return applied, errors.New("shard lineage has a cycle")
		}
	}
	return applied, nil
}

// apply adds one record's genre changes to the counts table.
func apply(ctx context.Context, db *dynamodb.Client, table string, r stypes.Record) error {
	delta := map[string]int{}
	for _, g := range genresOf(r.Dynamodb.OldImage) {
		delta[g]--
	}
	for _, g := range genresOf(r.Dynamodb.NewImage) {
		delta[g]++
	}
	for g, d := range delta {
		if d == 0 {
			continue
		}
		if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table),
			Key:                       map[string]types.AttributeValue{"genre": &types.AttributeValueMemberS{Value: g}},
			UpdateExpression:          aws.String("ADD #n :d"),
			ExpressionAttributeNames:  map[string]string{"#n": "count"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":d": &types.AttributeValueMemberN{Value: strconv.Itoa(d)}},
		}); err != nil {
			return err
		}
	}
	return nil
}

// genresOf returns the distinct genres of a stream image.
func genresOf(image map[string]stypes.AttributeValue) []string {
	info, ok := image["info"].(*stypes.AttributeValueMemberM)
	if !ok {
		return nil
	}
	list, ok := info.Value["genres"].(*stypes.AttributeValueMemberL)
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, v := range list.Value {
		if s, ok := v.(*stypes.AttributeValueMemberS); ok && !seen[s.Value] {
			seen[s.Value] = true
			out = append(out, s.Value)
		}
	}
	return out
}

// scanCounts reads the counts table.
func scanCounts(ctx context.Context, db *dynamodb.Client, table string) (map[string]int, error) {
	counts := map[string]int{}
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			n, _ := strconv.Atoi(it["count"].(*types.AttributeValueMemberN).Value)
			counts[it["genre"].(*types.AttributeValueMemberS).Value] = n
		}
	}
	return counts, nil
}

// recountGenres counts the genres of the movies now in table.
func recountGenres(ctx context.Context, db *dynamodb.Client, table string) (map[string]int, error) {
	counts := map[string]int{}
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table), ProjectionExpression: aws.String("info.genres"), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			info, ok := it["info"].(*types.AttributeValueMemberM)
			if !ok {
				continue
			}
			list, _ := info.Value["genres"].(*types.AttributeValueMemberL)
			if list == nil {
				continue
			}
			seen := map[string]bool{}
			for _, v := range list.Value {
				if s, ok := v.(*types.AttributeValueMemberS); ok && !seen[s.Value] {
					seen[s.Value] = true
					counts[s.Value]++
				}
			}
		}
	}
	return counts, nil
}
