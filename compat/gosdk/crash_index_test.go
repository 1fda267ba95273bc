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

// TestCrash_IndexedTableAgreesAfterKill writes to a table with a GSI and
// an LSI from several clients, kills the dynago process with SIGKILL in
// the middle, restarts it on the same data directory, and checks that the
// table and both indexes agree item for item (issue 4: index entries
// commit with their item, crash included).
func TestCrash_IndexedTableAgreesAfterKill(t *testing.T) {
	dir := t.TempDir()
	srv := StartServer(t, "--data-dir", dir)
	c := srv.Client()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("crash"),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange},
		},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("GSI1PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("GSI1SK"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("LSK"), AttributeType: types.ScalarAttributeTypeN},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String("GSI1"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("GSI1PK"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("GSI1SK"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName:  aws.String("LSI1"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("LSK"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var writes atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 5))
			for {
				key := map[string]types.AttributeValue{
					"PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("P#%d", r.IntN(8))},
					"SK": &types.AttributeValueMemberS{Value: fmt.Sprintf("S#%d", r.IntN(50))},
				}
				var err error
				switch r.IntN(3) {
				case 0:
					item := map[string]types.AttributeValue{"PK": key["PK"], "SK": key["SK"],
						"GSI1PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("G#%d", r.IntN(3))},
						"GSI1SK": &types.AttributeValueMemberN{Value: fmt.Sprint(r.IntN(100))},
						"LSK":    &types.AttributeValueMemberN{Value: fmt.Sprint(r.IntN(100))}}
					_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("crash"), Item: item})
				case 1:
					_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("crash"), Key: key,
						UpdateExpression:          aws.String("SET GSI1PK = :g REMOVE LSK"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: fmt.Sprintf("G#%d", r.IntN(3))}}})
				case 2:
					_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("crash"), Key: key})
				}
				if err != nil {
					return // the server is gone
				}
				writes.Add(1)
			}
		}(uint64(w))
	}
	for writes.Load() < 1500 {
		time.Sleep(5 * time.Millisecond)
	}
	srv.Kill()
	wg.Wait()

	srv = StartServer(t, "--data-dir", dir)
	c = srv.Client()
	var tableGSI, tableLSI []string
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String("crash"), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			id := it["PK"].(*types.AttributeValueMemberS).Value + "/" + it["SK"].(*types.AttributeValueMemberS).Value
			if g, ok := it["GSI1PK"].(*types.AttributeValueMemberS); ok {
				if n, ok := it["GSI1SK"].(*types.AttributeValueMemberN); ok {
					tableGSI = append(tableGSI, id+"|"+g.Value+"|"+n.Value)
				}
			}
			if l, ok := it["LSK"].(*types.AttributeValueMemberN); ok {
				tableLSI = append(tableLSI, id+"|"+l.Value)
			}
		}
	}
	var indexGSI, indexLSI []string
	for _, index := range []string{"GSI1", "LSI1"} {
		p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String("crash"), IndexName: aws.String(index), Limit: aws.Int32(40)})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				id := it["PK"].(*types.AttributeValueMemberS).Value + "/" + it["SK"].(*types.AttributeValueMemberS).Value
				if index == "GSI1" {
					indexGSI = append(indexGSI, id+"|"+it["GSI1PK"].(*types.AttributeValueMemberS).Value+"|"+it["GSI1SK"].(*types.AttributeValueMemberN).Value)
				} else {
					indexLSI = append(indexLSI, id+"|"+it["LSK"].(*types.AttributeValueMemberN).Value)
				}
			}
		}
	}
	for _, pair := range [][2][]string{{tableGSI, indexGSI}, {tableLSI, indexLSI}} {
		sort.Strings(pair[0])
		sort.Strings(pair[1])
	}
	if !equalStrings(tableGSI, indexGSI) {
		t.Errorf("GSI1 has %d entries, the table calls for %d", len(indexGSI), len(tableGSI))
	}
	if !equalStrings(tableLSI, indexLSI) {
		t.Errorf("LSI1 has %d entries, the table calls for %d", len(indexLSI), len(tableLSI))
	}
	if len(tableGSI) == 0 || len(tableLSI) == 0 {
		t.Fatal("nothing was written before the kill")
	}
	t.Logf("%d writes before SIGKILL; %d GSI and %d LSI entries agree", writes.Load(), len(indexGSI), len(indexLSI))
}
