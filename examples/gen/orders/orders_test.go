package orders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/dynagotest"
	"github.com/dynago/dynago/examples/gen/orders"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/run"
)

// TestGenerated_Orders runs the code dynago design gen-go wrote for seed
// 001's design (examples/orders.design.yaml) against dynago: the write
// patterns, a customer's collection decoded by the discriminator, an
// order's items, the order by ID through GSI1, the open orders over
// GSI2's ten shards, each request one of the design's declared patterns
// (the traffic report of dynagotest.WithDesign), and Decode telling an
// EmailGuard (no discriminator) by its key prefix.
func TestGenerated_Orders(t *testing.T) {
	ctx := context.Background()
	// The design attached, strict: the generated code's requests are
	// classified against its patterns, and an undeclared Scan would fail.
	srv := dynagotest.New(t, dynagotest.WithDesign("../../orders.design.yaml"), dynagotest.WithDesignStrict())
	db := srv.Client()
	d, diags, err := design.Load("../../orders.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	if _, err := run.CreateTable(ctx, d, db, orders.TableName); err != nil {
		t.Fatal(err)
	}
	c := orders.New(db)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.CreateCustomer(ctx, orders.Customer{CustomerId: "c1", Name: "Asha", Email: "asha@example.com"}))
	must(c.ClaimEmail(ctx, orders.EmailGuard{Email: "asha@example.com"}))
	for i := range 12 {
		must(c.PlaceOrder(ctx, orders.Order{CustomerId: "c1", OrderId: fmt.Sprintf("o%d", i), Total: "10", Status: "open", CreatedAt: fmt.Sprintf("2026-09-14T10:00:%02dZ", i)}))
	}
	for i := range 3 {
		must(c.AddOrderItem(ctx, orders.OrderItem{OrderId: "o1", ItemNo: fmt.Sprint(i + 1), Sku: fmt.Sprintf("sku-%d", i), Qty: "1", Price: "5"}))
	}
	// Pattern 1: the profile and the orders, newest first.
	var kinds []string
	for it, err := range c.Pattern1(ctx, "c1") {
		must(err)
		switch x := it.(type) {
		case orders.Customer:
			kinds = append(kinds, "customer:"+x.Name)
		case orders.Order:
			kinds = append(kinds, "order:"+x.OrderId)
		}
	}
	if len(kinds) != 13 || kinds[0] != "customer:Asha" || kinds[1] != "order:o11" {
		t.Fatalf("pattern 1: %v", kinds)
	}
	items := 0
	for x, err := range c.Pattern2(ctx, "o1") {
		must(err)
		if x.OrderId != "o1" || x.Price != "5" {
			t.Fatalf("pattern 2: %+v", x)
		}
		items++
	}
	found := 0
	for x, err := range c.Pattern3(ctx, "o7") {
		must(err)
		if x.CustomerId != "c1" || x.CreatedAt != "2026-09-14T10:00:07Z" {
			t.Fatalf("pattern 3: %+v", x)
		}
		found++
	}
	open := 0
	for shard := range 10 {
		for x, err := range c.Pattern4(ctx, fmt.Sprint(shard)) {
			must(err)
			if x.Status != "open" {
				t.Fatalf("pattern 4: %+v", x)
			}
			open++
		}
	}
	if items != 3 || found != 1 || open != 12 {
		t.Fatalf("order items %d, order by id %d, open orders %d", items, found, open)
	}
	checkDeclared(t, srv.Endpoint(), orders.TableName)
	// Decode an item by its key prefix (EmailGuard has no discriminator).
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(c.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: orders.EmailGuardKeyPK("asha@example.com")},
		"SK": &types.AttributeValueMemberS{Value: orders.EmailGuardKeySK("asha@example.com")}}})
	must(err)
	it, err := orders.Decode(out.Item)
	if g, ok := it.(orders.EmailGuard); err != nil || !ok || g.Email != "asha@example.com" {
		t.Fatalf("Decode: %#v %v", it, err)
	}
	if _, err := orders.Decode(map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "JUNK"}}); err == nil {
		t.Fatal("Decode of an item of no entity")
	}
}

// checkDeclared fails t unless every request the server saw on table was
// one of its design's declared patterns and every item written matched an
// entity's key templates (GET /design/traffic).
func checkDeclared(t *testing.T, endpoint, table string) {
	t.Helper()
	resp, err := http.Get(endpoint + "/design/traffic?table=" + table)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rep struct {
		Tables []struct {
			Paths []struct {
				Pattern, Path string
				Declared      bool
				Requests      int
			}
			UnmatchedItems    int
			UnmatchedExamples []string
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil || len(rep.Tables) != 1 {
		t.Fatalf("traffic report: %v %+v", err, rep)
	}
	tt := rep.Tables[0]
	for _, p := range tt.Paths {
		if !p.Declared {
			t.Errorf("%d undeclared requests: %s", p.Requests, p.Path)
		} else if p.Requests == 0 {
			t.Errorf("pattern %s was not used", p.Pattern)
		}
	}
	if tt.UnmatchedItems > 0 {
		t.Errorf("%d items match no entity: %v", tt.UnmatchedItems, tt.UnmatchedExamples)
	}
}
