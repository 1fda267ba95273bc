package design

import (
	"fmt"
	"testing"
)

// multiDesign is a table with one GSI (projecting ALL), a Like of about
// 2.5 KB in it, a small Post and a small Tag in the table only.
const multiDesign = `version: 1
table:
  name: multi
  partitionKey: {name: PK, type: S}
  sortKey: {name: SK, type: S}
  indexes:
    - {name: GSI1, partitionKey: {name: GSI1PK, type: S}, sortKey: {name: GSI1SK, type: S}}
entities:
  Like:
    attributes: {PostId: S, UserId: S, Note: {type: S, size: 2500}}
    keys: {PK: "POST#<PostId>", SK: "LIKE#<UserId>", GSI1PK: "USER#<UserId>", GSI1SK: "POST#<PostId>"}
  Post:
    attributes: {PostId: S, LikeCount: N}
    keys: {PK: "POST#<PostId>", SK: POST}
  Tag:
    attributes: {TagName: S}
    keys: {PK: "TAG#<TagName>", SK: TAG}
patterns:
`

// TestPatternCost_MultiItem: a transaction's writes cost twice their
// table units (index entries once), a ConditionCheck twice the write
// units of its item, a batch what its items cost one by one (each rounded
// on its own), and a count multiplies its action. The Like is 3 write
// units (about 2.5 KB) and 0.5 read units; Post and Tag one write unit.
func TestPatternCost_MultiItem(t *testing.T) {
	for _, tc := range []struct {
		name, pattern string
		read, write   float64
		writes        string
	}{
		{"transaction", `{id: p, operation: TransactWriteItems, actions: [{put: Like, condition: attribute_not_exists}, {update: Post, add: {LikeCount: 1}}, {check: Tag, condition: attribute_exists}]}`,
			0, 13, "[{ 10} {GSI1 3}]"}, // table 2×3 + 2×1 + 2×1, GSI1 the Like's 3
		{"transaction with counts", `{id: p, operation: TransactWriteItems, actions: [{put: Tag, count: 10}]}`,
			0, 20, "[{ 20}]"},
		{"batch write", `{id: p, operation: BatchWriteItem, actions: [{put: Tag, count: 3}, {delete: Like, count: 2}]}`,
			0, 15, "[{ 9} {GSI1 6}]"}, // table 3×1 + 2×3, GSI1 2×3
		{"batch get", `{id: p, operation: BatchGetItem, actions: [{get: Like, count: 4}, {get: Tag}]}`,
			2.5, 0, "[]"},
		{"consistent batch get", `{id: p, operation: BatchGetItem, consistent: true, actions: [{get: Like, count: 4}]}`,
			4, 0, "[]"},
	} {
		d, diags := Parse("multi.design.yaml", []byte(multiDesign+"  - "+tc.pattern+"\n"))
		if len(diags) > 0 {
			t.Fatalf("%s: %v", tc.name, diags)
		}
		if got := WriteUnits(d.ItemSize(d.Entity("Like"))); got != 3 {
			t.Fatalf("the Like is %g write units, want 3 (the cases assume it)", got)
		}
		pc := d.PatternCost(d.Patterns[0])
		if pc.ReadUnits != tc.read || pc.WriteUnits != tc.write || fmt.Sprint(pc.Writes) != tc.writes {
			t.Errorf("%s: %g RCU, %g WCU %v, want %g, %g %s", tc.name, pc.ReadUnits, pc.WriteUnits, pc.Writes, tc.read, tc.write, tc.writes)
		}
	}
}

// TestWrites_Actions: each put, update and delete of a multi-item write is
// a one-item write of its own for the rules and the analyzer, at the
// request's rate times its count; a ConditionCheck writes nothing.
func TestWrites_Actions(t *testing.T) {
	d, diags := Parse("multi.design.yaml", []byte(multiDesign+`  - {id: p, operation: TransactWriteItems, rate: {average: 1, peak: 10}, actions: [{put: Like}, {check: Tag, condition: attribute_exists}, {update: Post, set: [LikeCount], count: 2}]}
  - {id: q, kind: write, operation: DeleteItem, entity: Tag}
`))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	var got []string
	for _, w := range d.Writes() {
		got = append(got, fmt.Sprintf("%s %s %s %v %v %g", w.ID, w.Operation, w.Entity, w.Updates, w.Transaction, w.Rate.Peak))
	}
	want := "[p action 1 PutItem Like [] true 10 p action 3 UpdateItem Post [LikeCount] true 20 q DeleteItem Tag [] false 0]"
	if fmt.Sprint(got) != want {
		t.Errorf("Writes:\n got %v\nwant %s", got, want)
	}
}
