package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/dynago/dynago/dynagotest"
)

// TestGenreCounts runs the example against an in-process dynago
// (dynagotest) whose stream shards roll over every 100 ms, so the
// consumer follows shard lineage; the derived counts must equal the
// recount each time: on a new server; again on the same one (both tables
// exist, and the stream holds the first run's records, which must not be
// counted twice); and on a table made as the README's example makes
// Movies (no stream, one movie already in it), named with -table and
// -counts (issue 26: the example failed after the README's example
// because it created Movies itself).
func TestGenreCounts(t *testing.T) {
	const movies = "../../../shared/data/moviedata.json"
	if _, err := os.Stat(movies); err != nil {
		t.Skipf("movies dataset not available: %v", err)
	}
	srv := dynagotest.New(t, dynagotest.WithStreamRollover(100*time.Millisecond))
	ctx := context.Background()
	db := srv.Client()
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("Films"), BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("year"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("title"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("year"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("title"), AttributeType: types.ScalarAttributeTypeS}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Films"), Item: map[string]types.AttributeValue{
		"year": &types.AttributeValueMemberN{Value: "2013"}, "title": &types.AttributeValueMemberS{Value: "Rush"},
		"info": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"rating": &types.AttributeValueMemberN{Value: "8.3"}}},
	}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		names tables
	}{
		{"new server", tables{"Movies", "GenreCounts"}},
		{"the same tables again", tables{"Movies", "GenreCounts"}},
		{"the README's table, by flags", tables{"Films", "FilmGenres"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			if err := run(ctx, srv.Endpoint(), movies, tc.names, &out); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			if !strings.Contains(out.String(), "derived counts match the recount") || !strings.Contains(out.String(), "Documentary") {
				t.Fatalf("report:\n%s", out.String())
			}
		})
	}
}
