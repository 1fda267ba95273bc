package design_test

import (
	"os"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design"
)

// TestParse_PatternStatement: a read pattern written as a PartiQL SELECT
// (issue 23) is the same pattern as its key-condition form: index, key
// condition and order come from the statement.
func TestParse_PatternStatement(t *testing.T) {
	raw, err := os.ReadFile("../../examples/ecommerce.design.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base, diags := design.Parse("ecommerce.design.yaml", raw)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	byID := map[string]*design.Pattern{}
	for _, p := range base.Patterns {
		byID[p.ID] = p
	}
	for id, stmt := range map[string]string{
		"1": `SELECT * FROM "ecommerce" WHERE PK = 'USER#<UserName>' AND SK = 'USER#<UserName>'`,
		"4": `SELECT * FROM ecommerce WHERE PK = 'CATEGORY#<CategoryName>' AND begins_with(SK, 'PRODUCT#')`,
		"8": `SELECT * FROM "ecommerce"."GSI2" WHERE "Type" = 'ORDER' AND SK BETWEEN 'ORDER#<FromOrderId>' AND 'ORDER#<ToOrderId>'`,
		"6": `SELECT * FROM "ecommerce" WHERE PK = 'USER#<UserName>' AND begins_with(SK, 'ORDER#') ORDER BY SK DESC`,
	} {
		want := byID[id]
		if want == nil {
			t.Fatalf("no pattern %s in the example", id)
		}
		// The example's pattern with its index, key and order replaced
		// by the statement.
		src := string(raw)
		start := strings.Index(src, "  - id: "+id+"\n")
		end := strings.Index(src[start+1:], "  - id: ") + start + 1
		block := src[start:end]
		var kept []string
		for _, line := range strings.Split(block, "\n") {
			trim := strings.TrimSpace(line)
			if strings.HasPrefix(trim, "index:") || strings.HasPrefix(trim, "key:") || strings.HasPrefix(trim, "order:") {
				continue
			}
			kept = append(kept, line)
		}
		kept = append(kept[:2], append([]string{"    statement: " + quoteYAML(stmt)}, kept[2:]...)...)
		d, diags := design.Parse("stmt.design.yaml", []byte(src[:start]+strings.Join(kept, "\n")+src[end:]))
		if len(diags) > 0 {
			t.Fatalf("pattern %s: %v", id, diags)
		}
		var got *design.Pattern
		for _, p := range d.Patterns {
			if p.ID == id {
				got = p
			}
		}
		wantOrder := want.Order
		if id == "6" {
			wantOrder = "descending"
		}
		if got.Index != want.Index || got.KeyCondition != want.KeyCondition || got.Order != wantOrder || len(got.Conditions) != len(want.Conditions) {
			t.Errorf("pattern %s: index %q key %q order %q; want %q %q %q", id, got.Index, got.KeyCondition, got.Order, want.Index, want.KeyCondition, wantOrder)
		}
	}
}

func quoteYAML(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
