package show

import (
	"html/template"
	"io"
	"sync"

	"github.com/dynago/dynago/internal/design"
)

// WriteHTML writes the picture as one self-contained HTML page: each
// view a table whose partition key cells span their partition's rows
// (NoSQL Workbench's aggregate view), finding numbers linking to the
// numbered findings, and chart (the SVG of dynago design analyze
// --format svg, or nil for none) above them, at its own width (beside
// them it was drawn too small to read). The CSS is inline;
// there is no script and nothing is fetched. Every value from the design
// is escaped by html/template; chart is inserted as it is, so it must
// come from a trusted writer (analyze.WriteSVG escapes its text).
func (p *Picture) WriteHTML(w io.Writer, chart []byte) error {
	return pageTemplate().Execute(w, p.htmlData(chart, false))
}

// WriteHTMLBody writes what WriteHTML's page shows, to be placed inside
// another page (the web console's design view): the views and the
// findings, without the document around them, its inline CSS and its
// heading, and with no <main> (the page around has its own). The
// classes are WriteHTML's (chart, layout, views, pk, key, attr, mark,
// findings, sev, error, warning, muted), for the page around to style.
func (p *Picture) WriteHTMLBody(w io.Writer, chart []byte) error {
	return pageTemplate().ExecuteTemplate(w, "body", p.htmlData(chart, true))
}

// htmlData is what the page's templates are given.
func (p *Picture) htmlData(chart []byte, embedded bool) any {
	sev := map[int]design.Severity{}
	for _, f := range p.Findings {
		sev[f.N] = f.Diagnostic.Severity
	}
	return struct {
		*Picture
		Chart    template.HTML
		Severity map[int]design.Severity
		Embedded bool
	}{p, template.HTML(chart), sev, embedded}
}

// pageTemplate is the page, parsed once.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"header": func(v *View, p *Picture) string { return v.header(p) },
		"name":   func(v *View, p *Picture) string { return v.Name(p) },
		"span":   func(pt Partition) int { return len(pt.Rows) },
		"plural": plural,
	}).Parse(page))
})

const page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Table}}: dynago design show</title>
<style>
body { font-family: -apple-system, "Segoe UI", sans-serif; font-size: 13px; margin: 16px; color: #222; }
h1 { font-size: 18px; margin: 0 0 4px; }
h2 { font-size: 14px; margin: 20px 0 6px; }
.layout { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
main { flex: 1 1 640px; min-width: 0; overflow-x: auto; }
aside { flex: 0 1 560px; min-width: 320px; }
.chart svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin-bottom: 8px; }
th, td { border: 1px solid #ccc; padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #f0f3f7; }
td.pk { background: #f7f9fb; font-weight: 600; }
td.key, td.pk { font-family: ui-monospace, Menlo, monospace; white-space: nowrap; }
span.attr { display: inline-block; margin: 0 8px 2px 0; font-family: ui-monospace, Menlo, monospace; }
span.attr b { font-family: -apple-system, "Segoe UI", sans-serif; font-weight: 600; color: #555; }
span.attr.key b { color: #1a5e9a; }
a.mark { display: inline-block; min-width: 16px; padding: 0 3px; margin-right: 2px; border-radius: 8px; text-align: center; color: white; text-decoration: none; }
.warning { background: #b8860b; }
.error { background: #c62828; }
ol.findings { padding-left: 24px; max-width: 900px; }
ol.findings li { margin-bottom: 4px; }
ol.findings .sev { font-weight: 600; }
ol.findings .sev.error { color: #c62828; background: none; }
ol.findings .sev.warning { color: #8a6d00; background: none; }
.muted { color: #666; }
</style>
</head>
<body>
{{template "body" .}}</body>
</html>
{{define "body"}}
{{- if not .Embedded}}<header>
<h1>Table {{.Table}}</h1>
<p class="muted">{{.File}}: {{.Items}} generated items per entity (dynago design show); partitions in key order, items in sort-key order.</p>
</header>
{{- end}}
{{- if .Chart}}
<section class="chart">
<h2>Load on each partition key's hottest value at peak (dynago design analyze)</h2>
{{.Chart}}
</section>
{{- end}}
<div class="layout">
{{if .Embedded}}<div class="views">{{else}}<main>{{end}}
{{- $p := .Picture}}{{$sev := .Severity}}
{{- range .Views}}
<section id="view-{{name . $p}}">
<h2>{{header . $p}}{{range .Findings}} <a class="mark {{index $sev .}}" href="#finding-{{.}}">{{.}}</a>{{end}}</h2>
<table>
<thead><tr>{{range .PK}}<th>{{.}}</th>{{end}}{{range .SK}}<th>{{.}}</th>{{end}}<th>type</th><th>attributes</th><th>findings</th></tr></thead>
<tbody>
{{- range .Partitions}}{{$pt := .}}
{{- range $i, $r := .Rows}}
<tr>{{if eq $i 0}}{{range $pt.Key}}<td class="pk" rowspan="{{span $pt}}">{{.}}</td>{{end}}{{end}}{{range .SK}}<td class="key">{{.}}</td>{{end}}<td>{{.Type}}</td><td>{{range .Attrs}}<span class="attr{{if .Key}} key{{end}}"><b>{{.Name}}</b> {{.Value}}</span>{{end}}</td><td>{{range .Findings}}<a class="mark {{index $sev .}}" href="#finding-{{.}}">{{.}}</a>{{end}}</td></tr>
{{- end}}
{{- end}}
</tbody>
</table>
</section>
{{- end}}
{{if .Embedded}}</div>{{else}}</main>{{end}}
<aside>
<h2>Findings (dynago design check)</h2>
{{- if .Findings}}
<ol class="findings">
{{- range .Findings}}
<li id="finding-{{.N}}"><span class="sev {{.Diagnostic.Severity}}">{{.Diagnostic.Severity}}</span> {{.Diagnostic.Message}} <span class="muted">{{.Diagnostic.Pos}} [{{.Diagnostic.Rule}}]{{if eq .Rows 0}}, on no row shown{{else}}, on {{plural .Rows "row"}}{{end}}</span></li>
{{- end}}
</ol>
{{- else}}
<p class="muted">None.</p>
{{- end}}
</aside>
</div>
{{end}}`
