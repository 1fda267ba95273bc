package design_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/analyze"
	"github.com/dynago/dynago/internal/design/check"
	"github.com/dynago/dynago/internal/pricing"
)

// FuzzParseTemplate: any text parses or is refused with an error, and a
// template that parses renders back to its text when every variable's
// value is the variable written <name:format>.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{"USER#<UserName>", "STATUS#<Status>#<CreatedAt>#<OrderId>", "ORDER#<n:08d>", "<name:lower>", "ALL_POSTS", "<a><b>", "x<", ">"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tpl, err := design.ParseTemplate(s)
		if err != nil {
			return
		}
		if tpl.Text != s || len(tpl.Parts) == 0 {
			t.Fatalf("ParseTemplate(%q) = %+v", s, tpl)
		}
		vals := map[string]string{}
		for _, p := range tpl.Parts {
			if p.Var != "" {
				vals[p.Var] = "v"
			}
		}
		if _, err := tpl.Render(vals); err != nil {
			t.Fatalf("Render of %q: %v", s, err)
		}
		_ = tpl.Shape()
		_ = tpl.MayStartWith(tpl)
	})
}

// FuzzParseKeyCondition: any text parses or is refused, never panics; a
// condition that parses has an attribute, a known operator and its
// operands.
func FuzzParseKeyCondition(f *testing.F) {
	for _, s := range []string{"PK = USER#<UserName> AND SK begins_with ORDER#", "GSI1PK = ORDER AND GSI1SK between STATUS#<s>#<a> and STATUS#<s>#<b>", "A", "A =", "A between x", "A = x AND", "a = b and c <= d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		conds, err := design.ParseKeyCondition(s)
		if err != nil {
			return
		}
		for _, c := range conds {
			want := 1
			if c.Op == "between" {
				want = 2
			}
			if c.Attr == "" || len(c.Values) != want {
				t.Fatalf("ParseKeyCondition(%q) = %+v", s, conds)
			}
			_ = c.String()
		}
	})
}

// FuzzParse: any bytes give a design and diagnostics, never a panic, and
// the rules run on whatever parsed cleanly.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("check/testdata/*.design.yaml")
	more, _ := filepath.Glob("analyze/testdata/*.design.yaml")
	for _, path := range append(files, more...) {
		if raw, err := os.ReadFile(path); err == nil {
			f.Add(raw)
		}
	}
	f.Add([]byte("table: [1, 2]\nentities: 3\npatterns: {a: b}\n"))
	// Patterns written as PartiQL statements.
	f.Add([]byte(`table: {name: app, partitionKey: {name: PK, type: S}, sortKey: {name: SK, type: S}}
entities:
  User: {attributes: {UserId: S}, keys: {PK: USER#<UserId>, SK: PROFILE}}
patterns:
  - {id: a, partiql: "SELECT * FROM \"app\" WHERE PK = 'USER#<UserId>' AND begins_with(SK, 'P') ORDER BY SK DESC", returns: [User]}
  - {id: b, partiql: "UPDATE \"app\" SET n = 1 WHERE PK = 'USER#<UserId>' AND SK = 'PROFILE'", entity: User}
  - {id: c, partiql: "SELECT * FROM \"app\" WHERE PK IN ['a', 'b'] OR x = ?", returns: [User]}
`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, diags := design.Parse("fuzz.design.yaml", raw)
		if d == nil {
			t.Fatal("nil design")
		}
		if len(diags) == 0 {
			check.Check(d, check.Rules)
			a := analyze.Analyze(d, pricing.Default())
			for _, write := range []func(io.Writer) error{a.WriteText, a.WriteJSON, a.WriteSVG} {
				if err := write(io.Discard); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
