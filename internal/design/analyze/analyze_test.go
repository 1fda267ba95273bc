package analyze

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/designtest"
	"github.com/dynago/dynago/internal/pricing"
)

// TestGolden_Analyze: dynago design analyze's text, JSON and SVG for the
// three seed designs and the unsharded seed 001 (testdata/analyze) match
// their golden files; the unsharded design's STATUS#open is the one hot
// key, at 5× the 1,000 WCU limit, with 5 shards proposed.
func TestGolden_Analyze(t *testing.T) {
	files, _ := filepath.Glob("../../../examples/*.design.yaml")
	more, _ := filepath.Glob("testdata/*.design.yaml")
	files = append(files, more...)
	if len(files) != 4 {
		t.Fatalf("want the three seed designs and testdata/analyze's one, found %v", files)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".design.yaml")
		d, diags, err := design.Load(path)
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
		designtest.Golden(t, name+".txt", text.Bytes())
		designtest.Golden(t, name+".json", js.Bytes())
		designtest.Golden(t, name+".svg", svg.Bytes())
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
