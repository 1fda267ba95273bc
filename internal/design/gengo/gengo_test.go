package gengo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/designtest"
)

// TestGolden_GenGo: the Go packages dynago design gen-go writes for the
// seed designs (and check/testdata/ok.design.yaml, whose update rewrites a
// sharded GSI key) are the ones committed in examples/gen, which compile
// and whose tests run them against dynago. go test
// ./internal/design/gengo -run GenGo -update rewrites them.
func TestGolden_GenGo(t *testing.T) {
	for _, tc := range []struct{ file, pkg string }{
		{"../../../examples/ecommerce.design.yaml", "ecommerce"},
		{"../../../examples/orders.design.yaml", "orders"},
		{"../../../examples/social.design.yaml", "social"},
		{"../check/testdata/ok.design.yaml", "shop"},
		{"testdata/counters.design.yaml", "counters"},
		{"testdata/accounts.design.yaml", "accounts"},
	} {
		d, diags, err := design.Load(tc.file)
		if err != nil || len(diags) > 0 {
			t.Fatal(err, diags)
		}
		d.File = filepath.Base(tc.file)
		src, err := Generate(d, tc.pkg)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("..", "..", "..", "examples", "gen", tc.pkg, tc.pkg+".go")
		if *designtest.Update {
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, src, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(src, want) {
			t.Errorf("%s differs from what gen-go writes for %s (go test ./internal/design/gengo -run GenGo -update): %v", path, tc.file, err)
		}
	}
	for _, tc := range []struct{ table, want string }{{"ecommerce", "ecommerce"}, {"My-Table.v2", "mytablev2"}, {"9lives", "lives"}, {"---", "design"}} {
		if got := PackageName(tc.table); got != tc.want || !ValidPackageName(got) {
			t.Errorf("PackageName(%q) = %q, want %q", tc.table, got, tc.want)
		}
	}
}

// TestGenGo_NameClashes: designs whose names would collide in the
// generated package are refused with the names to change.
func TestGenGo_NameClashes(t *testing.T) {
	for _, tc := range []struct {
		change func(d *design.Design)
		want   string
	}{
		{func(d *design.Design) { d.Entities[0].Name = "Item" }, "entity Item would be the Go type Item, which clashes with the Item interface"},
		{func(d *design.Design) { d.Entities[1].Name = "user" }, "entities User and user would both be the Go type User"},
		{func(d *design.Design) { d.Entities[0].Attributes[1].Name = "userId" }, "attributes UserId and userId would both be the field UserId"},
		{func(d *design.Design) { d.Entities[0].Attributes[1].Name = "item" }, "would be the field Item, which clashes with the method Item()"},
		{func(d *design.Design) { d.Patterns[0].ID = "DB" }, "pattern DB would be the method DB, which clashes with the Client field DB"},
		{func(d *design.Design) { d.Patterns[0].ID = "user_orders" }, "pattern user-orders would be the method UserOrders, which clashes with pattern user_orders"},
	} {
		d := designtest.Load(t, "../check/testdata/ok.design.yaml")
		tc.change(d)
		if _, err := Generate(d, "shop"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}
