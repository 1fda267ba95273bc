package show_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/designtest"
	"github.com/dynago/dynago/internal/design/show"
)

// view returns the picture's view of index ("" for the table).
func view(t *testing.T, p *show.Picture, index string) *show.View {
	t.Helper()
	for _, v := range p.Views {
		if v.Index == index {
			return v
		}
	}
	t.Fatalf("no view %q", index)
	return nil
}

// rows flattens a view's rows as "PK|SK|type" lines.
func rows(v *show.View) []string {
	var out []string
	for _, pt := range v.Partitions {
		for _, r := range pt.Rows {
			out = append(out, strings.Join(slices.Concat(r.PK, r.SK, []string{r.Type}), "|"))
		}
	}
	return out
}

// TestBuild_Views: the table and each index are a view; a number sort
// key sorts by value (97 before 100), a sparse index holds only the
// items that have its key, a KEYS_ONLY index only the table's key
// besides its own, and --index draws one view.
func TestBuild_Views(t *testing.T) {
	d := designtest.Load(t, "testdata/scores.design.yaml")
	p, err := show.Build(d, nil, show.Options{Items: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Views) != 3 {
		t.Fatalf("%d views, want the table and two indexes", len(p.Views))
	}
	lsi := view(t, p, "ByPoints")
	if got := strings.Join(rows(lsi), " "); got != "PLAYER#PlayerId-1|97|Score PLAYER#PlayerId-1|100|Score PLAYER#PlayerId-1|103|Score PLAYER#PlayerId-2|106|Score PLAYER#PlayerId-2|109|Score" {
		t.Errorf("ByPoints rows: %s", got)
	}
	for _, pt := range lsi.Partitions {
		for _, r := range pt.Rows {
			if len(r.Attrs) != 1 || r.Attrs[0].Name != "SK" || !r.Attrs[0].Key {
				t.Errorf("KEYS_ONLY row holds %+v, want the table's SK alone", r.Attrs)
			}
		}
	}
	if got := view(t, p, "ByNick").Rows(); got != 3 {
		t.Errorf("ByNick holds %d items, want the 3 players with a nickname", got)
	}
	if got := view(t, p, "").Rows(); got != 10 {
		t.Errorf("the table holds %d items, want 10", got)
	}
	one, err := show.Build(d, nil, show.Options{Index: "ByNick"})
	if err != nil || len(one.Views) != 1 || one.Views[0].Index != "ByNick" {
		t.Errorf("--index ByNick: %v", err)
	}
	if one, err := show.Build(d, nil, show.Options{Index: "table"}); err != nil || len(one.Views) != 1 || one.Views[0].Index != "" {
		t.Errorf("--index table: %v", err)
	}
	if _, err := show.Build(d, nil, show.Options{Index: "Nope"}); err == nil || !strings.Contains(err.Error(), `no index "Nope" in the design (table, ByPoints, ByNick)`) {
		t.Errorf("--index Nope: %v", err)
	}
}

// TestBuild_Pins: a finding on an entity's key is pinned to its rows in
// the views keyed by that attribute, one on the rest of an entity to its
// table rows, one on a read pattern to the rows it reads in one
// partition, one on an index to its view, and one on the table to no
// row.
func TestBuild_Pins(t *testing.T) {
	d := designtest.Load(t, "testdata/scores.design.yaml")
	at := func(pos design.Pos, msg string) design.Diagnostic {
		return design.NewDiagnostic(pos, design.Warning, "test", msg)
	}
	player := d.Entity("Player")
	diags := []design.Diagnostic{
		at(player.Key("NickKey").Pos, "nick key"),
		at(player.Attribute("Motto").Pos, "motto"),
		at(d.Patterns[0].Pos, "player-scores"),
		at(d.Index("ByNick").Pos, "the ByNick index"),
		at(d.Table.Pos, "the table"),
	}
	p, err := show.Build(d, diags, show.Options{Items: 5})
	if err != nil {
		t.Fatal(err)
	}
	byMsg := map[string]show.Finding{}
	for _, f := range p.Findings {
		byMsg[f.Diagnostic.Message] = f
	}
	pinned := func(v *show.View, n int) (out []string) {
		for _, pt := range v.Partitions {
			for _, r := range pt.Rows {
				if slices.Contains(r.Findings, n) {
					out = append(out, strings.Join(slices.Concat(r.PK, r.SK), "|"))
				}
			}
		}
		return out
	}
	table, byNick, byPoints := view(t, p, ""), view(t, p, "ByNick"), view(t, p, "ByPoints")
	for _, tc := range []struct {
		msg  string
		v    *show.View
		want string
	}{
		{"nick key", byNick, "NICK#Nick-Player-1 NICK#Nick-Player-3 NICK#Nick-Player-4"},
		{"nick key", table, ""},
		{"motto", table, "PLAYER#PlayerId-1|PROFILE PLAYER#PlayerId-2|PROFILE PLAYER#PlayerId-3|PROFILE PLAYER#PlayerId-4|PROFILE PLAYER#PlayerId-5|PROFILE"},
		{"motto", byNick, ""},
		{"player-scores", byPoints, "PLAYER#PlayerId-1|97 PLAYER#PlayerId-1|100 PLAYER#PlayerId-1|103"},
		{"player-scores", table, ""},
	} {
		if got := strings.Join(pinned(tc.v, byMsg[tc.msg].N), " "); got != tc.want {
			t.Errorf("%s on %s: pinned to %q, want %q", tc.msg, tc.v.Name(p), got, tc.want)
		}
	}
	if f := byMsg["the ByNick index"]; f.Rows != 0 || !slices.Contains(byNick.Findings, f.N) {
		t.Errorf("index finding: %+v, view findings %v", f, byNick.Findings)
	}
	if f := byMsg["the table"]; f.Rows != 0 || len(table.Findings) != 0 {
		t.Errorf("table finding: %+v", f)
	}
	var b bytes.Buffer
	if err := p.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GSI ByNick (projection ALL): partition key NickKey; 3 items in 3 partitions  findings [2]", "the ByNick index [test] (on ByNick)", "the table [test] (on no row shown)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestWriteHTML_SelfContained: the page has no script and fetches
// nothing (the only URL is the SVG namespace), escapes the design's
// values, and holds the chart it is given.
func TestWriteHTML_SelfContained(t *testing.T) {
	d := designtest.Load(t, "testdata/scores.design.yaml")
	p, err := show.Build(d, []design.Diagnostic{design.NewDiagnostic(d.Entity("Player").Pos, design.Error, "test", "a <b>bold</b> claim")}, show.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.WriteHTML(&b, []byte(`<svg xmlns="http://www.w3.org/2000/svg"><text>chart</text></svg>`)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<b>bold", "src=", "<link", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	if n := strings.Count(page, "http"); n != 1 {
		t.Errorf("%d URLs in the page, want only the SVG namespace", n)
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "a &amp; b", "a &lt;b&gt;bold&lt;/b&gt; claim", `<svg xmlns="http://www.w3.org/2000/svg"><text>chart</text></svg>`, `href="#finding-1"`, `id="finding-1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestWriteHTMLBody: the body is the page's views and findings, the same
// rows, without the document around them (no doctype, head, style,
// heading or <main>: the page it goes in has its own).
func TestWriteHTMLBody(t *testing.T) {
	d := designtest.Load(t, "testdata/scores.design.yaml")
	p, err := show.Build(d, []design.Diagnostic{design.NewDiagnostic(d.Entity("Player").Pos, design.Error, "test", "a <b>bold</b> claim")}, show.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var page, body bytes.Buffer
	if err := p.WriteHTML(&page, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteHTMLBody(&body, nil); err != nil {
		t.Fatal(err)
	}
	b := body.String()
	for _, bad := range []string{"<!DOCTYPE", "<html", "<head", "<style", "<body", "<main", "<h1", "<script"} {
		if strings.Contains(b, bad) {
			t.Errorf("the body contains %q", bad)
		}
	}
	for _, want := range []string{`<div class="layout">`, `<div class="views">`, `id="finding-1"`, "a &lt;b&gt;bold&lt;/b&gt; claim", "<h2>Findings (dynago design check)</h2>"} {
		if !strings.Contains(b, want) {
			t.Errorf("the body lacks %q", want)
		}
	}
	// The same rows as the page's.
	if got, want := strings.Count(b, "<tr>"), strings.Count(page.String(), "<tr>"); got != want || got == 0 {
		t.Errorf("%d rows in the body, %d in the page", got, want)
	}
	if !strings.Contains(page.String(), "<main>") || !strings.Contains(page.String(), "<h1>Table ") {
		t.Error("the page lost its <main> or heading")
	}
}

// TestWriteHTML_ChartAbove: the load chart is drawn above the views, at
// its own width, not squeezed beside them into the findings' column
// (where its 12-unit text came out about 5 pixels high), in the page and
// in the body alike.
func TestWriteHTML_ChartAbove(t *testing.T) {
	d := designtest.Load(t, "testdata/scores.design.yaml")
	p, err := show.Build(d, nil, show.Options{})
	if err != nil {
		t.Fatal(err)
	}
	chart := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="1000" viewBox="0 0 1000 246"><text>chart</text></svg>`)
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer, []byte) error
	}{
		{"page", func(b *bytes.Buffer, c []byte) error { return p.WriteHTML(b, c) }},
		{"body", func(b *bytes.Buffer, c []byte) error { return p.WriteHTMLBody(b, c) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b, chart); err != nil {
				t.Fatal(err)
			}
			s := b.String()
			c, l, a := strings.Index(s, `<section class="chart">`), strings.Index(s, `<div class="layout">`), strings.Index(s, "<aside>")
			if c < 0 || l < 0 || a < 0 || c > l || strings.Index(s, "<svg") < c || strings.Index(s, "<svg") > l {
				t.Errorf("the chart is not in its own section above the layout (chart %d, layout %d, aside %d):\n%s", c, l, a, s)
			}
			if strings.Contains(s[a:], "<svg") {
				t.Error("the chart is still in the aside")
			}
			var none bytes.Buffer
			if err := tc.write(&none, nil); err != nil || strings.Contains(none.String(), `class="chart"`) {
				t.Errorf("without a chart: %v, a chart section", err)
			}
		})
	}
}
