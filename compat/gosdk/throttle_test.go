package gosdk

import (
	"bytes"
	"encoding/json"
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

	"github.com/dynago/dynago/internal/engine"
)

// TestThrottle_ThroughGoSDK: with --throttle --capacity-scale 100 a
// partition takes 10 write units a second, so writing one order key, or
// orders that all carry one GSI key (seed 001's STATUS#open), throttles
// within a second; aws-sdk-go-v2 (retries off, to see the first answer)
// gets a ThrottlingException with its ThrottlingReasons.
func TestThrottle_ThroughGoSDK(t *testing.T) {
	srv := StartServer(t, "--in-memory", "--throttle", "--capacity-scale", "100")
	c := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(srv.Endpoint), Region: "us-east-1",
		Credentials: srv.Client().Options().Credentials, RetryMaxAttempts: 1, HTTPClient: sdkHTTPClient})
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
		`dynago_throttle_events_total{index="",reason="TableWriteKeyRangeThroughputExceeded",table="orders"}`,
		`dynago_throttle_events_total{index="GSI2",reason="IndexWriteKeyRangeThroughputExceeded",table="orders"}`,
		`dynago_consumed_capacity_units_total{index="GSI2",kind="write",table="orders"}`,
		`dynago_requests_total{code="ThrottlingException",operation="PutItem"}`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestSeed001_HotGSIAndInsights is the capacity issue's real input, run
// through aws-sdk-go-v2 at a scale of 100: seed 001's order table takes
// open orders at 50 a second (5,000 in production). Every open order on
// GSI1PK = STATUS#open puts one GSI partition past its 10 write units a
// second (1,000 in production): base-table writes are rejected with
// ProvisionedThroughputExceededException and the index's reason, and the
// insights report names STATUS#open as the GSI's most accessed and most
// throttled partition key. The write-sharded design passes the same load
// untouched. The tables are provisioned as in bench/README.md's recipe
// (6,000 RCU and WCU, GSI 10,000 each: 8 and 14 partitions, one per
// 3,000 RCU plus one per 1,000 WCU). The seed's arithmetic
// says at least 5 shards of 1,000 WCU; shards land on partitions by
// hash, so the design uses far more shards than partitions (100), which
// keeps the busiest GSI partition under its limit.
func TestSeed001_HotGSIAndInsights(t *testing.T) {
	srv := StartServer(t, "--in-memory", "--throttle", "--capacity-scale", "100")
	c := dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(srv.Endpoint), Region: "us-east-1",
		Credentials: srv.Client().Options().Credentials, RetryMaxAttempts: 1, HTTPClient: sdkHTTPClient})
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	key := func(names ...string) []types.KeySchemaElement {
		ks := []types.KeySchemaElement{{AttributeName: aws.String(names[0]), KeyType: types.KeyTypeHash}}
		return append(ks, types.KeySchemaElement{AttributeName: aws.String(names[1]), KeyType: types.KeyTypeRange})
	}
	for _, name := range []string{"orders_hot", "orders_sharded"} {
		var defs []types.AttributeDefinition
		for _, a := range []string{"PK", "SK", "GSI1PK", "GSI1SK"} {
			defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
		}
		if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), KeySchema: key("PK", "SK"), AttributeDefinitions: defs,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(6000), WriteCapacityUnits: aws.Int64(6000)},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("GSI1"), KeySchema: key("GSI1PK", "GSI1SK"),
				Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
				ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(10000), WriteCapacityUnits: aws.Int64(10000)}}},
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.UpdateContributorInsights(ctx, &dynamodb.UpdateContributorInsightsInput{TableName: aws.String(name),
			IndexName: aws.String("GSI1"), ContributorInsightsAction: types.ContributorInsightsActionEnable}); err != nil {
			t.Fatal(err)
		}
	}
	// load writes 150 open orders at 50 a second and returns the errors.
	load := func(table string, gsiPK func(i int) string) (errs []error) {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := 0; i < 150; i++ {
			<-tick.C
			id := fmt.Sprintf("ORDER#%05d", i)
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
				"PK": s(id), "SK": s(id), "GSI1PK": s(gsiPK(i)), "GSI1SK": s(time.Now().UTC().Format(time.RFC3339Nano))}})
			if err != nil {
				errs = append(errs, err)
			}
		}
		return errs
	}
	errs := load("orders_hot", func(int) string { return "STATUS#open" })
	// The GSI partition takes 10 a second plus a second's burst: about 40 of 150.
	if len(errs) < 90 {
		t.Fatalf("unsharded: %d of 150 writes throttled, want about 110", len(errs))
	}
	for _, err := range errs {
		var pe *types.ProvisionedThroughputExceededException
		if !errors.As(err, &pe) || len(pe.ThrottlingReasons) != 1 ||
			aws.ToString(pe.ThrottlingReasons[0].Reason) != "IndexWriteKeyRangeThroughputExceeded" ||
			!strings.HasSuffix(aws.ToString(pe.ThrottlingReasons[0].Resource), ":table/orders_hot/index/GSI1") ||
			!strings.Contains(pe.ErrorMessage(), "one or more global secondary indexes") {
			t.Fatalf("unsharded write: %v", err)
		}
	}
	rep := insightsOf(t, srv.Endpoint, "orders_hot")
	gsi := rep.KeySpaces[1]
	if gsi.Index != "GSI1" || len(gsi.MostThrottledPartitionKeys) == 0 || compact(gsi.MostThrottledPartitionKeys[0].Key) != `{"GSI1PK":{"S":"STATUS#open"}}` ||
		gsi.MostThrottledPartitionKeys[0].Throttled != len(errs) || compact(gsi.MostAccessedPartitionKeys[0].Key) != `{"GSI1PK":{"S":"STATUS#open"}}` {
		t.Fatalf("insights on the unsharded GSI: %+v", gsi)
	}
	hot := 0
	for _, p := range gsi.Partitions {
		if p.WriteThrottled > 0 {
			hot++
		}
	}
	if len(gsi.Partitions) != 14 || hot != 1 {
		t.Fatalf("GSI partitions: %d, %d throttled; want 14, 1", len(gsi.Partitions), hot)
	}
	if errs := load("orders_sharded", func(i int) string { return fmt.Sprintf("STATUS#open#%d", i%100) }); len(errs) != 0 {
		t.Fatalf("sharded: %d writes failed, first %v", len(errs), errs[0])
	}
	if gsi := insightsOf(t, srv.Endpoint, "orders_sharded").KeySpaces[1]; len(gsi.MostThrottledPartitionKeys) != 0 ||
		!strings.HasPrefix(compact(gsi.MostAccessedPartitionKeys[0].Key), `{"GSI1PK":{"S":"STATUS#open#`) {
		t.Fatalf("insights on the sharded GSI: %+v", gsi)
	}
}

// insightsOf fetches the server's insights report for table.
func insightsOf(t *testing.T, endpoint, table string) *engine.InsightsReport {
	t.Helper()
	resp, err := http.Get(endpoint + "/insights?table=" + table)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rep engine.InsightsReport
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil || len(rep.KeySpaces) != 2 {
		t.Fatalf("insights report: %v %+v", err, rep)
	}
	return &rep
}

// compact returns JSON without insignificant space.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
