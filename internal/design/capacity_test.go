package design

import (
	"math"
	"testing"
)

// TestHarmonic: the busiest value's share under Zipf's law, 1/H(n, s),
// against sums worked out term by term.
func TestHarmonic(t *testing.T) {
	for _, tc := range []struct{ n, s, want float64 }{
		{1, 1, 1},
		{4, 1, 1 + 1.0/2 + 1.0/3 + 1.0/4},
		{10, 2, 1.5497677311665408},
		{1e6, 1, 14.392726722864},   // ln(1e6) + γ + 1/(2n)
		{1e6, 2, 1.6449330668482},   // π²/6 - 1/n
		{1e9, 1.5, 2.6123116228448}, // ζ(1.5) - 2/sqrt(n)
	} {
		if got := harmonic(tc.n, tc.s); math.Abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("H(%g, %g) = %.12f, want %.12f", tc.n, tc.s, got, tc.want)
		}
	}
}

// TestVarSpread: the busiest value's share from an attribute's values and
// its skew: uniform over the values, the busiest listed top value, or an
// unlisted value sharing what the listed leave (top {open: 0.1} over two
// values leaves 0.9 to the other), and Zipf over the values.
func TestVarSpread(t *testing.T) {
	d, diags, err := Load("check/testdata/ok.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	e := d.Entity("Order")
	for _, tc := range []struct {
		skew Skew
		want float64
	}{
		{Skew{}, 1.0 / 3},
		{Skew{Top: map[string]float64{"open": 0.8}}, 0.8},
		{Skew{Top: map[string]float64{"open": 0.1}}, 0.45},
		{Skew{Top: map[string]float64{"open": 0.1, "shipped": 0.1}}, 0.8},
		{Skew{Zipf: 1}, 1 / (1 + 0.5 + 1.0/3)},
	} {
		d.Workload.Skew = map[string]Skew{"OrderStatus": tc.skew}
		if n, got := d.VarSpread(e, nil, "OrderStatus"); n != 3 || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%+v: %d values, share %g, want 3 and %g", tc.skew, int(n), got, tc.want)
		}
	}
}

// TestCardinality_FromParents: an attribute without declared values
// takes as many as its parent entity has items (issue 24: 1 M customers
// and 50 M orders make 50 orders a customer), so a Query of a customer's
// orders is costed at 50 items, not one, and an order's items at three.
func TestCardinality_FromParents(t *testing.T) {
	d, diags, err := Load("../../examples/orders.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	for _, tc := range []struct {
		entity, attr string
		want         float64
	}{
		{"Order", "customerId", 1e6},    // Customer: PK = CUSTOMER#<customerId>, SK = PROFILE
		{"OrderItem", "orderId", 50e6},  // Order, named for it
		{"EmailGuard", "email", 1e6},    // its own key is built from email alone
		{"Order", "total", 0},           // no parent
		{"Order", "status", 1},          // declared values
		{"OrderItem", "itemNo", 0},      // no entity is an Item
		{"Customer", "customerId", 1e6}, // an entity is its own parent
	} {
		if got := d.Cardinality(d.Entity(tc.entity), tc.attr); got != tc.want {
			t.Errorf("Cardinality(%s, %s) = %g, want %g", tc.entity, tc.attr, got, tc.want)
		}
	}
	// A customer's orders without a page size: 50 a customer, and the
	// profile.
	p := &Pattern{ID: "customer-orders", Kind: "read", Returns: []string{"Customer", "Order"}, KeyCondition: "PK = CUSTOMER#<customerId>"}
	p.Conditions, _ = ParseKeyCondition(p.KeyCondition)
	if got := d.itemsPerRead(p, "Query"); got != 51 {
		t.Errorf("customer-orders reads %g items, want 51 (50 orders and the profile)", got)
	}
	p.Returns = []string{"Order"}
	p.KeyCondition = "GSI1PK = ORDER#<orderId>"
	p.Index = "GSI1"
	p.Conditions, _ = ParseKeyCondition(p.KeyCondition)
	if got := d.itemsPerRead(p, "Query"); got != 1 {
		t.Errorf("order-by-id reads %g items, want 1", got)
	}
}

// TestPatternCosts_ShardsAll: a read of a key sharded 10 ways that says
// shards: all is costed at a Query of each shard (ten pages of 100), one
// that says shards: one at a single Query.
func TestPatternCosts_ShardsAll(t *testing.T) {
	d, diags, err := Load("check/testdata/shardedread.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	want := map[string][2]float64{
		"open-orders-merged":    {1000, 25},
		"open-orders-one-shard": {100, 2.5},
		"open-orders":           {100, 2.5},
	}
	for _, pc := range d.PatternCosts() {
		if w, ok := want[pc.ID]; ok && (pc.Items != w[0] || pc.ReadUnits != w[1]) {
			t.Errorf("%s: %g items, %g RCU; want %g and %g", pc.ID, pc.Items, pc.ReadUnits, w[0], w[1])
		}
	}
}
