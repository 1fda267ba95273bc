package gosdk

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestMovies_OnlineGSI adds a GSI to the loaded Movies table with
// UpdateTable while writers keep setting, changing and removing its key
// attribute (and deleting and re-adding movies), waits for IndexStatus
// ACTIVE as a client would, stops the writers and checks that the index
// holds exactly the movies that have the key attribute, with their
// current values.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.OnlineOps.html
func TestMovies_OnlineGSI(t *testing.T) {
	movies := loadMovies(t)
	srv := StartServer(t, "--data-dir", t.TempDir())
	c := srv.Client()
	createMovies(t, c)
	loadAll(t, c, movies)

	genres := []string{"drama", "comedy", "action", "horror", "documentary"}
	key := func(m movie) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			"year":  &types.AttributeValueMemberN{Value: m.Year.String()},
			"title": &types.AttributeValueMemberS{Value: m.Title},
		}
	}
	stop := make(chan struct{})
	var writes atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 42))
			for {
				select {
				case <-stop:
					return
				default:
				}
				m := movies[r.IntN(len(movies))]
				var err error
				switch r.IntN(4) {
				case 0, 1:
					_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
						TableName: aws.String("Movies"), Key: key(m),
						UpdateExpression: aws.String("SET genre = :g, votes = :v"),
						ExpressionAttributeValues: map[string]types.AttributeValue{
							":g": &types.AttributeValueMemberS{Value: genres[r.IntN(len(genres))]},
							":v": &types.AttributeValueMemberN{Value: fmt.Sprint(r.IntN(1000))},
						},
					})
				case 2:
					_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
						TableName: aws.String("Movies"), Key: key(m), UpdateExpression: aws.String("REMOVE genre"),
					})
				case 3:
					if _, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Movies"), Key: key(m)}); err == nil {
						_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Movies"), Item: m.item(t)})
					}
				}
				if err != nil {
					t.Error(err)
					return
				}
				writes.Add(1)
			}
		}(uint64(w))
	}
	time.Sleep(200 * time.Millisecond) // let some genres exist before the index does
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName: aws.String("Movies"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("genre"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("votes"), AttributeType: types.ScalarAttributeTypeN},
		},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: aws.String("by_genre"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("genre"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("votes"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Movies")})
		if err != nil {
			t.Fatal(err)
		}
		if out.Table.GlobalSecondaryIndexes[0].IndexStatus == types.IndexStatusActive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("by_genre still not ACTIVE after 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // writes after ACTIVE are indexed too
	close(stop)
	wg.Wait()
	t.Logf("%d concurrent writes", writes.Load())

	// The expected index, from a consistent Scan of the table.
	want := map[string][]string{}
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String("Movies"), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			g, ok := it["genre"].(*types.AttributeValueMemberS)
			if !ok {
				continue
			}
			want[g.Value] = append(want[g.Value], entryString(it))
		}
	}
	total := 0
	for _, g := range genres {
		var got []string
		for _, it := range queryAll(t, c, &dynamodb.QueryInput{
			TableName: aws.String("Movies"), IndexName: aws.String("by_genre"), Limit: aws.Int32(100),
			KeyConditionExpression:    aws.String("genre = :g"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: g}},
		}) {
			if len(it) != 4 {
				t.Fatalf("KEYS_ONLY entry has %d attributes: %v", len(it), it)
			}
			got = append(got, entryString(it))
		}
		sort.Strings(want[g])
		sort.Strings(got)
		if !equalStrings(got, want[g]) {
			t.Errorf("genre %s: index has %d entries, table has %d items with it", g, len(got), len(want[g]))
		}
		total += len(got)
	}
	if total == 0 {
		t.Fatal("the index is empty")
	}
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Movies")})
	if err != nil {
		t.Fatal(err)
	}
	if n := aws.ToInt64(out.Table.GlobalSecondaryIndexes[0].ItemCount); n != int64(total) {
		t.Errorf("ItemCount %d, want %d", n, total)
	}
}

// entryString renders a movie's index-relevant attributes.
func entryString(it map[string]types.AttributeValue) string {
	return it["year"].(*types.AttributeValueMemberN).Value + "|" + it["title"].(*types.AttributeValueMemberS).Value + "|" +
		it["genre"].(*types.AttributeValueMemberS).Value + "|" + it["votes"].(*types.AttributeValueMemberN).Value
}
