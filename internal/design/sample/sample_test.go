package sample_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design/designtest"
	"github.com/dynago/dynago/internal/design/sample"
)

// TestGenerate_Distinct: in every example, each entity's items have
// their own identity (design.Identity: an Order its orderId, a Like its
// user and post), every item is kept (no two share a table key), and no
// two numeric or time attributes of one item are equal.
func TestGenerate_Distinct(t *testing.T) {
	files, _ := filepath.Glob("../../../examples/*.design.yaml")
	files = append(files, "../run/testdata/byid.design.yaml")
	for _, path := range files {
		d := designtest.Load(t, path)
		items := sample.Generate(d, 6)
		ids := map[string]bool{}
		count := map[string]int{}
		for _, it := range items {
			count[it.Entity.Name]++
			var id []string
			for _, v := range d.Identity(it.Entity) {
				id = append(id, it.Vals[v])
			}
			key := it.Entity.Name + "\x00" + strings.Join(id, "\x00")
			if ids[key] && !strings.Contains(path, "byid") {
				t.Errorf("%s: two %s items have identity %v", path, it.Entity.Name, id)
			}
			ids[key] = true
			seen := map[string]string{}
			for _, a := range it.Entity.Attributes {
				v, ok := it.Attrs[a.Name]
				if !ok || (a.Type != "N" && a.Type != "timestamp" && a.Type != "epoch") {
					continue
				}
				if other, dup := seen[v.Text]; dup {
					t.Errorf("%s: a %s item has %s = %s = %s", path, it.Entity.Name, other, a.Name, v.Text)
				}
				seen[v.Text] = a.Name
			}
		}
		for _, e := range d.Entities {
			if count[e.Name] != 6 {
				t.Errorf("%s: %d %s items, want 6", path, count[e.Name], e.Name)
			}
		}
	}
}

// TestGenerate_Collections: children land in their parents' item
// collections as the workload's counts say (seed 001: 50 orders a
// customer, three items an order), three a parent when it does not say,
// a second owned variable spread over its owners (a user's likes are of
// three posts, each user's one further on);
// an attribute's cardinality is honoured; and an entity the workload
// counts fewer of than asked gets that many items.
func TestGenerate_Collections(t *testing.T) {
	d := designtest.Load(t, "../../../examples/orders.design.yaml")
	per := func(items []sample.Item, entity, attr string) map[string]int {
		m := map[string]int{}
		for _, it := range items {
			if it.Entity.Name == entity {
				m[it.Vals[attr]]++
			}
		}
		return m
	}
	items := sample.Generate(d, 6)
	if got := per(items, "Order", "customerId"); len(got) != 1 || got["customerId-1"] != 6 {
		t.Errorf("orders per customer: %v, want the six under customerId-1", got)
	}
	if got := per(items, "OrderItem", "orderId"); len(got) != 2 || got["orderId-1"] != 3 || got["orderId-2"] != 3 {
		t.Errorf("items per order: %v, want three for orderId-1 and orderId-2", got)
	}
	d = designtest.Load(t, "../../../examples/social.design.yaml")
	items = sample.Generate(d, 30)
	if got := per(items, "Like", "PostId"); len(got) != 12 {
		t.Errorf("liked posts: %d (%v), want 12: each of ten users' three likes one post further on", len(got), got)
	}
	if got := per(items, "Like", "UserId"); len(got) != 10 || got["UserId-1"] != 3 {
		t.Errorf("likers: %v, want three likes for each of ten users", got)
	}
	d = designtest.Load(t, "../run/testdata/byid.design.yaml")
	d.Workload.Items = map[string]float64{"Branch": 2}
	items = sample.Generate(d, 9)
	if got := per(items, "Invoice", "invoiceNo"); len(got) != 3 {
		t.Errorf("invoice numbers: %v, want the 3 of its cardinality", got)
	}
	if got := per(items, "Invoice", "branchId"); len(got) != 2 {
		t.Errorf("invoices per branch: %v, want the two branches'", got)
	}
	if got := per(items, "Branch", "branchId"); len(got) != 2 {
		t.Errorf("branches: %v, want the workload's 2", got)
	}
}
