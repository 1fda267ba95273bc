package design_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/designtest"
)

// TestTraffic_Classify: requests on the seed 004 design's table are named
// by the most specific pattern they follow, or by their shape when no
// pattern declares them; writes by their entity; items whose keys no
// template builds are counted.
func TestTraffic_Classify(t *testing.T) {
	d := designtest.Load(t, "../../examples/ecommerce.design.yaml")
	tr, err := design.NewTraffic([]*design.Design{d})
	if err != nil {
		t.Fatal(err)
	}
	eq := func(attr, v string) design.AccessCond {
		return design.AccessCond{Attr: attr, Op: "=", Values: []string{v}}
	}
	for _, tc := range []struct {
		name    string
		a       design.Access
		pattern string
		path    string
	}{
		{"GetItem by key", design.Access{Operation: "GetItem", Conds: []design.AccessCond{eq("PK", "USER#alice"), eq("SK", "USER#alice")}}, "1", ""},
		{"all users", design.Access{Operation: "Query", Index: "GSI2", Conds: []design.AccessCond{eq("Type", "USER")}}, "2", ""},
		{"product by name: the narrower pattern", design.Access{Operation: "Query", Index: "GSI2", Conds: []design.AccessCond{eq("Type", "PRODUCT"), eq("SK", "PRODUCT#Widget")}}, "5", ""},
		{"products in a category", design.Access{Operation: "Query", Conds: []design.AccessCond{eq("PK", "CATEGORY#toys"), {Attr: "SK", Op: "begins_with", Values: []string{"PRODUCT#"}}}}, "4", ""},
		{"a narrower begins_with", design.Access{Operation: "Query", Conds: []design.AccessCond{eq("PK", "CATEGORY#toys"), {Attr: "SK", Op: "begins_with", Values: []string{"PRODUCT#Wid"}}}}, "4", ""},
		{"orders in an ID range", design.Access{Operation: "Query", Index: "GSI2", Conds: []design.AccessCond{eq("Type", "ORDER"), {Attr: "SK", Op: "between", Values: []string{"ORDER#1", "ORDER#5"}}}}, "8", ""},
		{"a whole user collection: undeclared", design.Access{Operation: "Query", Conds: []design.AccessCond{eq("PK", "USER#alice")}}, "", "Query table: PK = USER#<UserName>"},
		// A value no template builds keeps its literal parts (docs/design-workbench.md:
		// an undeclared path is named by its shape, not its values).
		{"an unknown key shape", design.Access{Operation: "Query", Conds: []design.AccessCond{eq("PK", "JUNK#1")}}, "", "Query table: PK = JUNK#<…>"},
		{"an unknown key shape, another value", design.Access{Operation: "Query", Conds: []design.AccessCond{eq("PK", "JUNK#2")}}, "", "Query table: PK = JUNK#<…>"},
		{"an unknown key of several parts", design.Access{Operation: "Query", Index: "GSI1", Conds: []design.AccessCond{eq("GSI1PK", "STATUS#open#shard-3#ORDER_ITEM#7")}}, "", "Query GSI1: GSI1PK = STATUS#<…>#<…>#ORDER_ITEM#<…>"},
		{"an unknown key without a literal part", design.Access{Operation: "Query", Conds: []design.AccessCond{eq("PK", "alice")}}, "", "Query table: PK = ?"},
		{"a begins_with on the wrong prefix", design.Access{Operation: "Query", Conds: []design.AccessCond{eq("PK", "USER#alice"), {Attr: "SK", Op: "begins_with", Values: []string{"CART#"}}}}, "", "Query table: PK = USER#<UserName> AND SK begins_with CART#"},
		{"a Scan", design.Access{Operation: "Scan"}, "", "Scan table"},
		{"a Scan of an index", design.Access{Operation: "Scan", Index: "GSI1"}, "", "Scan GSI1"},
		{"a write of an entity", design.Access{Operation: "PutItem", Key: map[string]string{"PK": "USER#alice", "SK": "ORDER#9", "Status": "open"}}, "", "PutItem Order"},
		{"a write of no entity", design.Access{Operation: "PutItem", Key: map[string]string{"PK": "JUNK#1", "SK": "X"}}, "", "PutItem (no entity)"},
		{"a delete of no entity: not a written item", design.Access{Operation: "DeleteItem", Key: map[string]string{"PK": "JUNK#2", "SK": "X"}}, "", "DeleteItem (no entity)"},
	} {
		tc.a.Table = "ecommerce"
		pattern, path, ok := tr.Classify(tc.a)
		if pattern != tc.pattern || ok != (tc.pattern != "") || (tc.path != "" && path != tc.path) {
			t.Errorf("%s: got pattern %q path %q declared %v, want pattern %q path %q", tc.name, pattern, path, ok, tc.pattern, tc.path)
		}
		tr.Record(tc.a)
	}
	if _, _, ok := tr.Classify(design.Access{Table: "other", Operation: "Scan"}); ok || tr.Has("other") {
		t.Error("a table without a design was classified")
	}
	// A filter that keeps one item in ten.
	tr.Record(design.Access{Table: "ecommerce", Operation: "Query", Index: "GSI2", Conds: []design.AccessCond{eq("Type", "REVIEW")}, Count: 1, Scanned: 10})
	rep := tr.Report()
	if len(rep) != 1 || rep[0].Unmatched != 1 || rep[0].UnmatchedExample[0] != "PK=JUNK#1, SK=X" {
		t.Fatalf("report: %+v", rep)
	}
	var b bytes.Buffer
	if err := design.WriteTrafficText(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  pattern 12       1 requests  Query GSI2: Type = REVIEW, items 1 of 10 read (FILTER-HEAVY: 10.0× read amplification)\n",
		"  UNDECLARED SCAN  1 requests  Scan table\n",
		"  1 item put or updated matches no entity's key templates, e.g. PK=JUNK#1, SK=X\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := design.NewTraffic([]*design.Design{d, d}); err == nil {
		t.Error("two designs of one table accepted")
	}
}

// TestTraffic_MultiItem: each item of a transaction or batch counts as
// its own write, declared by the multi-item pattern with an action of that
// kind on its entity (seed 000: the Like put and the Post updated by
// like-post, a User put by create-user before create-users).
func TestTraffic_MultiItem(t *testing.T) {
	tr, err := design.NewTraffic([]*design.Design{designtest.Load(t, "../../examples/social.design.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		op      string
		key     map[string]string
		pattern string
	}{
		{"PutItem", map[string]string{"PK": "USER#u1", "SK": "LIKE#POST#p1"}, "like-post"},
		{"UpdateItem", map[string]string{"PK": "USER#u2", "SK": "POST#2026-01-01T00:00:00Z#p1"}, "like-post"},
		{"PutItem", map[string]string{"PK": "USER#u1", "SK": "PROFILE"}, "create-user"},
		{"DeleteItem", map[string]string{"PK": "USER#u1", "SK": "LIKE#POST#p1"}, ""},
	} {
		pattern, _, ok := tr.Classify(design.Access{Table: "social", Operation: tc.op, Key: tc.key})
		if pattern != tc.pattern || ok != (tc.pattern != "") {
			t.Errorf("%s %v: pattern %q (declared %v), want %q", tc.op, tc.key, pattern, ok, tc.pattern)
		}
	}
}

// TestTraffic_ClassifyVia: an item of a batch counts under the design's
// batch pattern for it, an item of a transaction under its transaction
// pattern, and a request of its own under the one-item pattern, though
// all three put a User (seed 000's design: create-users, like-post,
// create-user).
func TestTraffic_ClassifyVia(t *testing.T) {
	d := designtest.Load(t, "../../examples/social.design.yaml")
	tr, err := design.NewTraffic([]*design.Design{d})
	if err != nil {
		t.Fatal(err)
	}
	user := map[string]string{"PK": "USER#u1", "SK": "PROFILE"}
	eq := func(attr, v string) design.AccessCond {
		return design.AccessCond{Attr: attr, Op: "=", Values: []string{v}}
	}
	for _, tc := range []struct {
		a    design.Access
		want string
	}{
		{design.Access{Operation: "PutItem", Key: user}, "create-user"},
		{design.Access{Operation: "PutItem", Key: user, Via: design.BatchWriteItem}, "create-users"},
		{design.Access{Operation: "GetItem", Conds: []design.AccessCond{eq("PK", "USER#u1"), eq("SK", "PROFILE")}, Via: design.BatchGetItem}, "get-users"},
		{design.Access{Operation: "GetItem", Conds: []design.AccessCond{eq("PK", "USER#u1"), eq("SK", "PROFILE")}}, "users-1"},
		{design.Access{Operation: "PutItem", Key: map[string]string{"PK": "USER#u1", "SK": "LIKE#POST#p1"}, Via: design.TransactWriteItems}, "like-post"},
	} {
		tc.a.Table = d.Table.Name
		if got, path, _ := tr.Classify(tc.a); got != tc.want {
			t.Errorf("%s %v via %q: pattern %q (%s), want %q", tc.a.Operation, tc.a.Key, tc.a.Via, got, path, tc.want)
		}
	}
}
