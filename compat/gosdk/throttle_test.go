package gosdk

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestThrottle_ThroughGoSDK: with --throttle --capacity-scale 100 a
// partition takes 10 write units a second, so writing one order key, or
// orders that all carry one GSI key (seed 001's STATUS#open), throttles
// within a second; aws-sdk-go-v2 (retries off, to see the first answer)
// gets a ThrottlingException with its ThrottlingReasons.
func TestThrottle_ThroughGoSDK(t *testing.T) {
	srv := StartServer(t, "--in-memory", "--throttle", "--capacity-scale", "100")
	c := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(srv.Endpoint), Region: "us-east-1",
		Credentials: srv.Client().Options().Credentials, RetryMaxAttempts: 1})
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("orders"), BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("GSI2PK"), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("GSI2"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("GSI2PK"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
	}); err != nil {
		t.Fatal(err)
	}
	firstThrottle := func(item func(i int) map[string]types.AttributeValue) *types.ThrottlingException {
		t.Helper()
		for i := 0; i < 500; i++ {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: item(i)})
			var te *types.ThrottlingException
			if errors.As(err, &te) {
				return te
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		t.Fatal("500 writes to one partition within seconds were not throttled")
		return nil
	}
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	te := firstThrottle(func(i int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s("ORDER#hot"), "n": &types.AttributeValueMemberN{Value: fmt.Sprint(i)}}
	})
	if len(te.ThrottlingReasons) != 1 || aws.ToString(te.ThrottlingReasons[0].Reason) != "TableWriteKeyRangeThroughputExceeded" ||
		!strings.HasSuffix(aws.ToString(te.ThrottlingReasons[0].Resource), ":table/orders") || !strings.Contains(te.ErrorMessage(), "check if you have a hot key") {
		t.Fatalf("hot item: %v %+v", te, te.ThrottlingReasons)
	}
	// Let the table's partitions refill: then the one GSI partition that
	// every STATUS#open order goes to runs out first.
	time.Sleep(2 * time.Second)
	te = firstThrottle(func(i int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s(fmt.Sprintf("ORDER#%d", i)), "GSI2PK": s("STATUS#open")}
	})
	if len(te.ThrottlingReasons) != 1 || aws.ToString(te.ThrottlingReasons[0].Reason) != "IndexWriteKeyRangeThroughputExceeded" ||
		!strings.HasSuffix(aws.ToString(te.ThrottlingReasons[0].Resource), ":table/orders/index/GSI2") {
		t.Fatalf("hot GSI key: %v %+v", te, te.ThrottlingReasons)
	}
	// A batch with the hot key and a cold one: the hot write comes back unprocessed.
	var unprocessed int
	for i := 0; i < 50 && unprocessed == 0; i++ {
		out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"orders": {
			{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"PK": s("ORDER#hot")}}},
			{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"PK": s(fmt.Sprintf("ORDER#cold%d", i))}}},
		}}})
		var te *types.ThrottlingException
		if errors.As(err, &te) {
			continue // both throttled at once
		}
		if err != nil {
			t.Fatal(err)
		}
		unprocessed = len(out.UnprocessedItems["orders"])
	}
	if unprocessed != 1 {
		t.Fatalf("no batch came back with the hot write unprocessed")
	}
	// The throttles and units show in /metrics.
	resp, err := http.Get(srv.Endpoint + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`dynago_throttled_requests_total{index="",reason="TableWriteKeyRangeThroughputExceeded",table="orders"}`,
		`dynago_throttled_requests_total{index="GSI2",reason="IndexWriteKeyRangeThroughputExceeded",table="orders"}`,
		`dynago_consumed_capacity_units_total{index="GSI2",kind="write",table="orders"}`,
		`dynago_requests_total{code="ThrottlingException",operation="PutItem"}`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
