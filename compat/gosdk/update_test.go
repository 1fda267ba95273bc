package gosdk

import (
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestUpdate_Concurrency is issue 3's concurrency run against a real
// process on disk: 16 goroutines × 100 "ADD counter :one" on one item give
// exactly 1,600; of 16 concurrent create-if-absent puts of one key exactly
// one succeeds; optimistic locking (seed 001) loses no increment.
func TestUpdate_Concurrency(t *testing.T) {
	srv := StartServer(t, "--data-dir", t.TempDir())
	c := srv.Client()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("app"),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	key := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "X"}}
	}
	one := &types.AttributeValueMemberN{Value: "1"}

	var wg sync.WaitGroup
	errs := make(chan error, 16*100)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: aws.String("app"), Key: key("COUNTER#likes"),
					UpdateExpression:          aws.String("ADD #c :one"),
					ExpressionAttributeNames:  map[string]string{"#c": "counter"},
					ExpressionAttributeValues: map[string]types.AttributeValue{":one": one},
				})
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("app"), Key: key("COUNTER#likes"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Item["counter"].(*types.AttributeValueMemberN).Value; got != "1600" {
		t.Fatalf("counter = %s after 16×100 ADDs, want 1600", got)
	}

	var wins, fails int
	var mu sync.Mutex
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			item := key("USERNAME#asha")
			item["owner"] = &types.AttributeValueMemberN{Value: strconv.Itoa(w)}
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("app"), Item: item, ConditionExpression: aws.String("attribute_not_exists(PK)")})
			var ccf *types.ConditionalCheckFailedException
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case errors.As(err, &ccf):
				fails++
			default:
				t.Error(err)
			}
		}(w)
	}
	wg.Wait()
	if wins != 1 || fails != 15 {
		t.Fatalf("%d succeeded and %d failed their condition, want 1 and 15", wins, fails)
	}

	// Optimistic locking, seed 001: read version v, write on "version = :v".
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("app"), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "USER#42"}, "SK": &types.AttributeValueMemberS{Value: "X"}, "version": &types.AttributeValueMemberN{Value: "0"}}})
	if err != nil {
		t.Fatal(err)
	}
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; {
				got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("app"), Key: key("USER#42"), ConsistentRead: aws.Bool(true)})
				if err != nil {
					t.Error(err)
					return
				}
				v := got.Item["version"]
				_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: aws.String("app"), Key: key("USER#42"),
					UpdateExpression:          aws.String("SET version = version + :one"),
					ConditionExpression:       aws.String("version = :v"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":one": one, ":v": v},
				})
				var ccf *types.ConditionalCheckFailedException
				if errors.As(err, &ccf) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				i++
			}
		}()
	}
	wg.Wait()
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("app"), Key: key("USER#42"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if v := got.Item["version"].(*types.AttributeValueMemberN).Value; v != "80" {
		t.Fatalf("version = %s after 8×10 locked increments, want 80", v)
	}
}
