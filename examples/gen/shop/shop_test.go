package shop_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynago/dynago/dynagotest"
	"github.com/dynago/dynago/examples/gen/shop"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/run"
)

// setup starts an in-process dynago and creates the design's table with
// the design's own CreateTable.
func setup(t *testing.T) *shop.Client {
	t.Helper()
	db := dynagotest.New(t).Client()
	d, diags, err := design.Load("../../../internal/design/check/testdata/ok.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	if _, err := run.CreateTable(context.Background(), d, db, shop.TableName); err != nil {
		t.Fatal(err)
	}
	return shop.New(db)
}

// TestGenerated_Shop runs the code dynago design gen-go wrote for
// internal/design/check/testdata/ok.design.yaml against dynago: writes, a
// GetItem, a user's item collection decoded into typed entities across
// pages (pageSize 25), the sharded status index, and the ship-order
// update, which must move the order to its new status's key.
func TestGenerated_Shop(t *testing.T) {
	ctx := context.Background()
	c := setup(t)
	if _, err := c.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(c.Table), Item: shop.User{UserId: "u1", Email: "u1@example.com"}.Item()}); err != nil {
		t.Fatal(err)
	}
	const n = 30
	for i := range n {
		o := shop.Order{UserId: "u1", OrderId: fmt.Sprintf("o%02d", i), OrderStatus: "open", PlacedAt: fmt.Sprintf("2026-11-30T10:%02d:00Z", i), OrderTotal: fmt.Sprintf("%d.5", i)}
		if err := c.PlaceOrder(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	u, err := c.GetUser(ctx, "u1")
	if err != nil || u == nil || u.Email != "u1@example.com" {
		t.Fatalf("GetUser: %+v %v", u, err)
	}
	if none, err := c.GetUser(ctx, "nobody"); err != nil || none != nil {
		t.Fatalf("GetUser of no one: %+v %v", none, err)
	}
	// Newest first, 25 a page, the profile last (PROFILE sorts after ORDER#).
	var orders []shop.Order
	users := 0
	for it, err := range c.UserOrders(ctx, "u1") {
		if err != nil {
			t.Fatal(err)
		}
		switch x := it.(type) {
		case shop.Order:
			orders = append(orders, x)
		case shop.User:
			users++
		default:
			t.Fatalf("item %T", it)
		}
	}
	if len(orders) != n || users != 1 || orders[0].OrderId != "o29" || orders[0].OrderTotal != "29.5" {
		t.Fatalf("user orders: %d orders (first %+v), %d users", len(orders), orders[0], users)
	}
	// Each order lands on one shard of STATUS#open.
	open := 0
	for shard := range 10 {
		for o, err := range c.OrdersByStatus(ctx, "open", fmt.Sprint(shard), "2026", "2027") {
			if err != nil {
				t.Fatal(err)
			}
			if shop.OrderKeyGSI1PK("open", fmt.Sprint(shard)) != "STATUS#open#"+fmt.Sprint(shard) {
				t.Fatal("key builder")
			}
			_ = o
			open++
		}
	}
	if open != n {
		t.Fatalf("%d open orders over the shards, want %d", open, n)
	}
	// Shipping rewrites GSI1PK: the order leaves STATUS#open.
	o := orders[0]
	o.OrderStatus = "shipped"
	if err := c.ShipOrder(ctx, o); err != nil {
		t.Fatal(err)
	}
	shipped, stillOpen := 0, 0
	for shard := range 10 {
		for x, err := range c.OrdersByStatus(ctx, "shipped", fmt.Sprint(shard), "2026", "2027") {
			if err != nil || x.OrderId != o.OrderId || x.OrderStatus != "shipped" {
				t.Fatalf("shipped: %+v %v", x, err)
			}
			shipped++
		}
		for range c.OrdersByStatus(ctx, "open", fmt.Sprint(shard), "2026", "2027") {
			stillOpen++
		}
	}
	if shipped != 1 || stillOpen != n-1 {
		t.Fatalf("after ShipOrder: %d shipped, %d open", shipped, stillOpen)
	}
}
