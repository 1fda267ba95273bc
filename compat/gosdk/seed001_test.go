package gosdk

// Seed 001 (../shared/seeds/001_*.txt), "DynamoDB: Keys, GSIs and
// Single-Table Design": its single-table example, as the seed gives it,
//
//	PK              SK                          type      attributes
//	CUSTOMER#42     PROFILE                     customer  name, email
//	CUSTOMER#42     ORDER#2026-09-14#9001       order     total, status, GSI1PK=ORDER#9001
//	CUSTOMER#42     ORDER#2026-09-02#8812       order     total, status, GSI1PK=ORDER#8812
//	ORDER#9001      ITEM#1                      item      sku, qty, price
//	ORDER#9001      ITEM#2                      item      sku, qty, price
//
// and its access patterns:
//  1. customer profile + recent orders: Query PK=CUSTOMER#42, ScanIndexForward=false
//  2. order with items: Query PK=ORDER#9001
//  3. order by id (no customer known): Query GSI1 where GSI1PK=ORDER#9001
//  4. orders by status for ops: GSI2PK=STATUS#open#shard-N, GSI2SK=createdAt
//     (write-sharded; sparse: only open orders carry GSI2PK)
//
// The seed names only GSI1PK for GSI1, so GSI1 has a partition key only.
// Pattern 4 gives GSI2's keys; which orders are open and their shards are
// this test's choice (shard = order id mod 4). Expected answers follow
// DynamoDB's Query rules: sort-key order (UTF-8 bytes), ScanIndexForward=false
// reverses it; an index holds only items with all of its key attributes.

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestSeed001SingleTable(t *testing.T) {
	srv := StartServer(t, "--in-memory")
	c := srv.Client()
	const table = "app"
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	key := func(h, r string) []types.KeySchemaElement {
		ks := []types.KeySchemaElement{{AttributeName: aws.String(h), KeyType: types.KeyTypeHash}}
		if r != "" {
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(r), KeyType: types.KeyTypeRange})
		}
		return ks
	}
	def := func(name string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeTypeS}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		KeySchema:            key("PK", "SK"),
		AttributeDefinitions: []types.AttributeDefinition{def("PK"), def("SK"), def("GSI1PK"), def("GSI2PK"), def("GSI2SK")},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("GSI1"), KeySchema: key("GSI1PK", ""), Projection: all},
			{IndexName: aws.String("GSI2"), KeySchema: key("GSI2PK", "GSI2SK"), Projection: all},
		},
		BillingMode: types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	if err := dynamodb.NewTableExistsWaiter(c).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, 30*time.Second); err != nil {
		t.Fatal(err)
	}

	// The seed's five rows.
	profile := map[string]types.AttributeValue{"PK": s("CUSTOMER#42"), "SK": s("PROFILE"), "type": s("customer"),
		"name": s("Asha"), "email": s("asha@example.com")}
	order9001 := map[string]types.AttributeValue{"PK": s("CUSTOMER#42"), "SK": s("ORDER#2026-09-14#9001"), "type": s("order"),
		"total": n("129.5"), "status": s("open"), "GSI1PK": s("ORDER#9001"),
		"GSI2PK": s("STATUS#open#shard-1"), "GSI2SK": s("2026-09-14T10:00:00Z")}
	order8812 := map[string]types.AttributeValue{"PK": s("CUSTOMER#42"), "SK": s("ORDER#2026-09-02#8812"), "type": s("order"),
		"total": n("20"), "status": s("shipped"), "GSI1PK": s("ORDER#8812")}
	item1 := map[string]types.AttributeValue{"PK": s("ORDER#9001"), "SK": s("ITEM#1"), "type": s("item"),
		"sku": s("SKU-RED-M"), "qty": n("2"), "price": n("39.75")}
	item2 := map[string]types.AttributeValue{"PK": s("ORDER#9001"), "SK": s("ITEM#2"), "type": s("item"),
		"sku": s("SKU-BLUE-L"), "qty": n("1"), "price": n("50")}
	rows := []map[string]types.AttributeValue{profile, order9001, order8812, item1, item2}

	// Other customers and open orders for pattern 4: open orders carry
	// GSI2PK = STATUS#open#shard-<id mod 4> and GSI2SK = their creation time.
	type openOrder struct{ id, created string }
	var open []openOrder
	open = append(open, openOrder{"9001", "2026-09-14T10:00:00Z"})
	base := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 40; i++ {
		id := 9100 + i*7
		created := base.Add(time.Duration(i*37%40) * 3 * time.Hour).Format(time.RFC3339)
		status := []string{"open", "shipped", "open", "cancelled"}[i%4]
		o := map[string]types.AttributeValue{
			"PK": s(fmt.Sprintf("CUSTOMER#%d", 50+i%6)), "SK": s(fmt.Sprintf("ORDER#%s#%d", created[:10], id)),
			"type": s("order"), "total": n(fmt.Sprint(i + 1)), "status": s(status), "GSI1PK": s(fmt.Sprintf("ORDER#%d", id)),
		}
		if status == "open" {
			o["GSI2PK"] = s(fmt.Sprintf("STATUS#open#shard-%d", id%4))
			o["GSI2SK"] = s(created)
			open = append(open, openOrder{fmt.Sprint(id), created})
		}
		rows = append(rows, o)
	}
	var reqs []types.WriteRequest
	for _, r := range rows {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: r}})
	}
	for i := 0; i < len(reqs); i += 25 {
		req := map[string][]types.WriteRequest{table: reqs[i:min(i+25, len(reqs))]}
		for len(req) > 0 {
			out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: req})
			if err != nil {
				t.Fatal(err)
			}
			req = out.UnprocessedItems
		}
	}

	query := func(t *testing.T, in *dynamodb.QueryInput) []map[string]types.AttributeValue {
		t.Helper()
		in.TableName = aws.String(table)
		var items []map[string]types.AttributeValue
		for page := 0; ; page++ {
			if page > 100 {
				t.Fatal("query does not end")
			}
			out, err := c.Query(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			items = append(items, out.Items...)
			if out.LastEvaluatedKey == nil {
				return items
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	// eventually retries a GSI check for a few seconds: GSIs are eventually consistent.
	eventually := func(t *testing.T, check func() string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			msg := check()
			if msg == "" {
				return
			}
			if time.Now().After(deadline) {
				t.Error(msg)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	same := func(got, want []map[string]types.AttributeValue) string {
		if len(got) != len(want) {
			return fmt.Sprintf("got %d items, want %d:\n%s", len(got), len(want), renderAll(got))
		}
		for i := range got {
			if s4Render(got[i]) != s4Render(want[i]) {
				return fmt.Sprintf("item %d:\n got  %s\n want %s", i, s4Render(got[i]), s4Render(want[i]))
			}
		}
		return ""
	}
	vals := func(kv ...string) map[string]types.AttributeValue {
		m := map[string]types.AttributeValue{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = s(kv[i+1])
		}
		return m
	}

	t.Run("1 customer profile + recent orders", func(t *testing.T) {
		// Descending sort keys: PROFILE > ORDER#2026-09-14#9001 > ORDER#2026-09-02#8812.
		got := query(t, &dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :pk"),
			ExpressionAttributeValues: vals(":pk", "CUSTOMER#42"), ScanIndexForward: aws.Bool(false)})
		if msg := same(got, []map[string]types.AttributeValue{profile, order9001, order8812}); msg != "" {
			t.Error(msg)
		}
		// Page by page (Limit 1) it is the same answer.
		got = query(t, &dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :pk"),
			ExpressionAttributeValues: vals(":pk", "CUSTOMER#42"), ScanIndexForward: aws.Bool(false), Limit: aws.Int32(1)})
		if msg := same(got, []map[string]types.AttributeValue{profile, order9001, order8812}); msg != "" {
			t.Error(msg)
		}
		// Only the orders, newest first.
		got = query(t, &dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :o)"),
			ExpressionAttributeValues: vals(":pk", "CUSTOMER#42", ":o", "ORDER#"), ScanIndexForward: aws.Bool(false)})
		if msg := same(got, []map[string]types.AttributeValue{order9001, order8812}); msg != "" {
			t.Error(msg)
		}
	})

	t.Run("2 order with items", func(t *testing.T) {
		got := query(t, &dynamodb.QueryInput{KeyConditionExpression: aws.String("PK = :pk"),
			ExpressionAttributeValues: vals(":pk", "ORDER#9001"), ConsistentRead: aws.Bool(true)})
		if msg := same(got, []map[string]types.AttributeValue{item1, item2}); msg != "" {
			t.Error(msg)
		}
	})

	t.Run("3 order by id via GSI1", func(t *testing.T) {
		for _, tc := range []struct {
			id   string
			want []map[string]types.AttributeValue
		}{
			{"ORDER#9001", []map[string]types.AttributeValue{order9001}},
			{"ORDER#8812", []map[string]types.AttributeValue{order8812}},
			{"ORDER#9100", []map[string]types.AttributeValue{rows[5]}},
			{"ORDER#1", nil},
		} {
			eventually(t, func() string {
				got := query(t, &dynamodb.QueryInput{IndexName: aws.String("GSI1"), KeyConditionExpression: aws.String("GSI1PK = :id"),
					ExpressionAttributeValues: vals(":id", tc.id)})
				if msg := same(got, tc.want); msg != "" {
					return tc.id + ": " + msg
				}
				return ""
			})
		}
		// The ORDER#9001 partition itself (the items) is not in GSI1: they have no GSI1PK.
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("GSI1"),
			KeyConditionExpression:    aws.String("GSI1PK = :id"),
			ExpressionAttributeValues: vals(":id", "ORDER#9001"), Select: types.SelectCount})
		if err != nil {
			t.Fatal(err)
		}
		if out.Count != 1 || len(out.Items) != 0 {
			t.Errorf("GSI1PK = ORDER#9001, Select COUNT: Count %d, %d items; want Count 1, no items", out.Count, len(out.Items))
		}
	})

	t.Run("4 open orders by creation time across write shards (GSI2)", func(t *testing.T) {
		// Query every shard, merge by GSI2SK: all open orders, oldest first.
		eventually(t, func() string {
			var got []map[string]types.AttributeValue
			for shard := 0; shard < 4; shard++ {
				part := query(t, &dynamodb.QueryInput{IndexName: aws.String("GSI2"),
					KeyConditionExpression:    aws.String("GSI2PK = :p AND GSI2SK BETWEEN :from AND :to"),
					ExpressionAttributeValues: vals(":p", fmt.Sprintf("STATUS#open#shard-%d", shard), ":from", "2026-09-01", ":to", "2026-12-31"),
					Limit:                     aws.Int32(3)})
				for i := 1; i < len(part); i++ {
					if s4Str(part[i-1], "GSI2SK") > s4Str(part[i], "GSI2SK") {
						return fmt.Sprintf("shard %d out of GSI2SK order at %d", shard, i)
					}
				}
				for _, it := range part {
					if want := fmt.Sprintf("STATUS#open#shard-%d", shard); s4Str(it, "GSI2PK") != want || s4Str(it, "status") != "open" {
						return fmt.Sprintf("shard %d returned %s", shard, s4Render(it))
					}
				}
				got = append(got, part...)
			}
			sort.SliceStable(got, func(i, j int) bool { return s4Str(got[i], "GSI2SK") < s4Str(got[j], "GSI2SK") })
			want := append([]openOrder{}, open...)
			sort.SliceStable(want, func(i, j int) bool { return want[i].created < want[j].created })
			if len(got) != len(want) {
				return fmt.Sprintf("got %d open orders, want %d", len(got), len(want))
			}
			for i := range want {
				if g := s4Str(got[i], "GSI1PK"); g != "ORDER#"+want[i].id || s4Str(got[i], "GSI2SK") != want[i].created {
					return fmt.Sprintf("open order %d: got %s, want order %s created %s", i, g, want[i].id, want[i].created)
				}
			}
			return ""
		})
		// Closing an order removes its GSI2 keys: it leaves the sparse index.
		if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table),
			Key:                       map[string]types.AttributeValue{"PK": s("CUSTOMER#42"), "SK": s("ORDER#2026-09-14#9001")},
			UpdateExpression:          aws.String("SET #st = :shipped REMOVE GSI2PK, GSI2SK"),
			ExpressionAttributeNames:  map[string]string{"#st": "status"},
			ExpressionAttributeValues: vals(":shipped", "shipped")}); err != nil {
			t.Fatal(err)
		}
		eventually(t, func() string {
			got := query(t, &dynamodb.QueryInput{IndexName: aws.String("GSI2"), KeyConditionExpression: aws.String("GSI2PK = :p"),
				ExpressionAttributeValues: vals(":p", "STATUS#open#shard-1")})
			for _, it := range got {
				if s4Str(it, "GSI1PK") == "ORDER#9001" {
					return "order 9001 is still in GSI2 after REMOVE GSI2PK, GSI2SK"
				}
			}
			return ""
		})
		// It is still found by id through GSI1, with the new status.
		eventually(t, func() string {
			got := query(t, &dynamodb.QueryInput{IndexName: aws.String("GSI1"), KeyConditionExpression: aws.String("GSI1PK = :id"),
				ExpressionAttributeValues: vals(":id", "ORDER#9001")})
			if len(got) != 1 || s4Str(got[0], "status") != "shipped" || got[0]["GSI2PK"] != nil {
				return "GSI1 ORDER#9001 after the update: " + renderAll(got)
			}
			return ""
		})
	})
}

func renderAll(items []map[string]types.AttributeValue) string {
	out := ""
	for _, it := range items {
		out += "  " + s4Render(it) + "\n"
	}
	return out
}
