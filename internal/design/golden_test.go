package design

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/pricing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/design -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestGolden_Examples: the check output and the worksheet of each seed
// design in examples/ match their golden files, and check finds no
// error in them.
func TestGolden_Examples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.design.yaml")
	if len(files) != 3 {
		t.Fatalf("want the three seed designs in examples/, found %v", files)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".design.yaml")
		d, diags, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(diags) == 0 {
			diags = Check(d, Rules)
		}
		var check bytes.Buffer
		for _, dg := range diags {
			if dg.Severity == Error {
				t.Errorf("%s: %s", name, dg)
			}
			dg.Pos.File = filepath.Base(dg.Pos.File)
			check.WriteString(dg.String() + "\n")
		}
		golden(t, name+".check.txt", check.Bytes())
		var ws bytes.Buffer
		if err := Worksheet(&ws, d); err != nil {
			t.Fatal(err)
		}
		golden(t, name+".worksheet.md", ws.Bytes())
	}
}

// TestGolden_Analyze: dynago design analyze's text, JSON and SVG for the
// three seed designs and the unsharded seed 001 (testdata/analyze) match
// their golden files; the unsharded design's STATUS#open is the one hot
// key, at 5× the 1,000 WCU limit, with 5 shards proposed.
func TestGolden_Analyze(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.design.yaml")
	more, _ := filepath.Glob("testdata/analyze/*.design.yaml")
	files = append(files, more...)
	if len(files) != 4 {
		t.Fatalf("want the three seed designs and testdata/analyze's one, found %v", files)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".design.yaml")
		d, diags, err := Load(path)
		if err != nil || len(diags) > 0 {
			t.Fatalf("%s: %v %v", path, err, diags)
		}
		d.File = filepath.Base(path)
		a := Analyze(d, pricing.Default())
		var text, js, svg bytes.Buffer
		if err := a.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if err := a.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		if err := a.WriteSVG(&svg); err != nil {
			t.Fatal(err)
		}
		golden(t, "analyze/"+name+".txt", text.Bytes())
		golden(t, "analyze/"+name+".json", js.Bytes())
		golden(t, "analyze/"+name+".svg", svg.Bytes())
		var hot []KeyLoad
		for _, k := range a.Keys {
			if k.Hot() {
				hot = append(hot, k)
			}
		}
		switch name {
		case "orders-unsharded":
			if len(hot) != 1 || hot[0].Template != "STATUS#<status>" || hot[0].Index != "GSI2" || hot[0].WriteUnits != 5000 || hot[0].Multiple != 5 || hot[0].Shards != 5 || hot[0].Variable != "status" {
				t.Errorf("unsharded seed 001: hot keys %+v", hot)
			}
		default:
			if len(hot) != 0 {
				t.Errorf("%s: hot keys %+v", name, hot)
			}
		}
	}
}

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

// TestGolden_GenGo: the Go packages dynago design gen-go writes for the
// seed designs (and testdata/ok.design.yaml, whose update rewrites a
// sharded GSI key) are the ones committed in examples/gen, which compile
// and whose tests run them against dynago. go test ./internal/design -run
// GenGo -update rewrites them.
func TestGolden_GenGo(t *testing.T) {
	for _, tc := range []struct{ file, pkg string }{
		{"../../examples/ecommerce.design.yaml", "ecommerce"},
		{"../../examples/orders.design.yaml", "orders"},
		{"../../examples/social.design.yaml", "social"},
		{"testdata/ok.design.yaml", "shop"},
		{"testdata/gengo/counters.design.yaml", "counters"},
	} {
		d, diags, err := Load(tc.file)
		if err != nil || len(diags) > 0 {
			t.Fatal(err, diags)
		}
		d.File = filepath.Base(tc.file)
		src, err := GenGo(d, tc.pkg)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("..", "..", "examples", "gen", tc.pkg, tc.pkg+".go")
		if *update {
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, src, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(src, want) {
			t.Errorf("%s differs from what gen-go writes for %s (go test ./internal/design -run GenGo -update): %v", path, tc.file, err)
		}
	}
	for _, tc := range []struct{ table, want string }{{"ecommerce", "ecommerce"}, {"My-Table.v2", "mytablev2"}, {"9lives", "lives"}, {"---", "design"}} {
		if got := PackageName(tc.table); got != tc.want || !ValidPackageName(got) {
			t.Errorf("PackageName(%q) = %q, want %q", tc.table, got, tc.want)
		}
	}
}

// TestVarSpread: the busiest value's share from an attribute's values and
// its skew: uniform over the values, the busiest listed top value, or an
// unlisted value sharing what the listed leave (top {open: 0.1} over two
// values leaves 0.9 to the other), and Zipf over the values.
func TestVarSpread(t *testing.T) {
	d := loadClean(t, "testdata/ok.design.yaml")
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
		if n, got := d.varSpread(e, nil, "OrderStatus"); n != 3 || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%+v: %d values, share %g, want 3 and %g", tc.skew, int(n), got, tc.want)
		}
	}
}

// TestGenGo_NameClashes: designs whose names would collide in the
// generated package are refused with the names to change.
func TestGenGo_NameClashes(t *testing.T) {
	for _, tc := range []struct {
		change func(d *Design)
		want   string
	}{
		{func(d *Design) { d.Entities[0].Name = "Item" }, "entity Item would be the Go type Item, which clashes with the Item interface"},
		{func(d *Design) { d.Entities[1].Name = "user" }, "entities User and user would both be the Go type User"},
		{func(d *Design) { d.Entities[0].Attributes[1].Name = "userId" }, "attributes UserId and userId would both be the field UserId"},
		{func(d *Design) { d.Entities[0].Attributes[1].Name = "item" }, "would be the field Item, which clashes with the method Item()"},
		{func(d *Design) { d.Patterns[0].ID = "DB" }, "pattern DB would be the method DB, which clashes with the Client field DB"},
		{func(d *Design) { d.Patterns[0].ID = "user_orders" }, "pattern user-orders would be the method UserOrders, which clashes with pattern user_orders"},
	} {
		d := loadClean(t, "testdata/ok.design.yaml")
		tc.change(d)
		if _, err := GenGo(d, "shop"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}

// TestWriteSVG_LogAxis: past 10× the chart's axis is logarithmic, so a
// 2.7× key next to a 2,360× one is still drawn as a visible bar.
func TestWriteSVG_LogAxis(t *testing.T) {
	a := &Analysis{Table: "t", File: "f", Keys: []KeyLoad{{Template: "A", Multiple: 2.7, WriteUnits: 2700}, {Template: "B", Multiple: 2360, WriteUnits: 2360000}}}
	var b bytes.Buffer
	if err := a.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	m := regexp.MustCompile(`<rect x="420" y="56.0" width="([0-9.]+)"`).FindStringSubmatch(svg)
	if !strings.Contains(svg, "logarithmic axis") || m == nil {
		t.Fatalf("svg:\n%s", svg)
	}
	if w, _ := strconv.ParseFloat(m[1], 64); w < 100 {
		t.Errorf("the 2.7× bar is %g px wide", w)
	}
}
