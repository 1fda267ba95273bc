package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// Templates. templates/layout.html is the page around every page;
// templates/NAME.html is page NAME: it defines "title" and "content", and
// may define fragments (htmx swaps them in place) that renderFragment
// renders alone. Every template is given a pageData, the page's own
// value in .Data.

// pages holds each page's template set: the layout, the page and the
// shared fragments of templates/shared.html.
type pages map[string]*template.Template

func mustParsePages() pages {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	ps := pages{}
	for _, n := range names {
		base := strings.TrimSuffix(path.Base(n), ".html")
		if base == "layout" || base == "shared" {
			continue
		}
		t := template.New(base).Funcs(funcs)
		t = template.Must(t.ParseFS(templateFS, "templates/layout.html", "templates/shared.html", n))
		ps[base] = t
	}
	return ps
}

// pageData is what every template gets.
type pageData struct {
	// Title is the page's title after "dynago console: ".
	Title string
	// Nav is the navigation entry to highlight: tables, partiql,
	// capacity, design.
	Nav string
	// CSRF is the session's token for forms (a hidden csrf field) and
	// htmx (the X-CSRF-Token header, set by console.js from the meta).
	CSRF string
	// SignedIn is the access key id of a signed-in session ("" open).
	SignedIn string
	// Design and Throttle say which optional pages exist.
	Design, Throttle bool
	// Bare leaves the navigation out (the sign-in page: every link
	// would lead back to it).
	Bare bool
	// Data is the page's own value.
	Data any
}

// page fills pageData's common fields for r.
func (c *Console) page(r *http.Request, title, nav string, data any) pageData {
	d := pageData{Title: title, Nav: nav, Data: data, Design: len(c.opts.DesignFiles) > 0, Throttle: c.opts.Throttle}
	if s := sessionOf(r); s != nil {
		d.CSRF, d.SignedIn = s.CSRF, s.AccessKeyID
	}
	return d
}

// render writes page name (a pageData, or any other value wrapped in
// one) inside the layout with status.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	pd, ok := data.(pageData)
	if !ok {
		pd = c.page(r, "", "", data)
	}
	c.execute(w, status, name, "layout", pd)
}

// renderFragment writes the template fragment of page name alone (an
// htmx swap), with data wrapped in a pageData as render does.
func (c *Console) renderFragment(w http.ResponseWriter, r *http.Request, status int, name, fragment string, data any) {
	pd, ok := data.(pageData)
	if !ok {
		pd = c.page(r, "", "", data)
	}
	c.execute(w, status, name, fragment, pd)
}

func (c *Console) execute(w http.ResponseWriter, status int, name, tmpl string, pd pageData) {
	c.pagesOnce.Do(func() { c.pages = mustParsePages() })
	t := c.pages[name]
	if t == nil {
		c.log.Error("console: no such page", "page", name)
		http.Error(w, "no such page", http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, tmpl, pd); err != nil {
		c.log.Error("console: rendering", "page", name, "template", tmpl, "err", err)
		http.Error(w, "the page could not be rendered: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// funcs are the templates' helper functions.
var funcs = template.FuncMap{
	// json is v as indented JSON (a request or response shown to the
	// user).
	"json": func(v any) string {
		b, err := marshalText(v, true)
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	},
	// rawjson indents JSON text, unless indenting would make it much
	// longer (deep nesting indents quadratically: a rejected request
	// 9,000 levels deep is 36 KB as sent and 128 MB indented).
	"rawjson": func(b []byte) string {
		limit := min(1<<20+4*len(b), 16<<20)
		var out bytes.Buffer
		if indentedLen(b, limit) > limit || json.Indent(&out, b, "", "  ") != nil {
			return string(b)
		}
		return out.String()
	},
	// cell is an attribute value (DynamoDB JSON) as a table cell: see
	// Cell.
	"cell": CellOf,
	// units formats consumed capacity units (1 decimal, trailing .0
	// dropped).
	"units": formatUnits,
	// bytes formats a size in bytes (B, KB, MB, GB: 1,024-based, as
	// DynamoDB's console).
	"bytes": formatBytes,
	// plural is one when n is 1, many otherwise ("1 item", "2 items").
	"plural": plural,
	// tableHeader is a table_header's value from the table's name
	// alone (see tableHeader).
	"tableHeader": tableHeader,
	"add":         func(a, b int) int { return a + b },
	"join":        strings.Join,
}

// indentedLen is at least the length of JSON text b indented by json.Indent
// with two spaces (a newline and the indent after each opening bracket,
// comma and before each closing one, a space after each colon), counted
// only until it passes limit.
func indentedLen(b []byte, limit int) int {
	n, depth, inString, escaped := len(b), 0, false, false
	for _, c := range b {
		if n > limit {
			break
		}
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			n += 1 + 2*depth
		case ',':
			n += 1 + 2*depth
		case '}', ']':
			depth--
			n += 1 + 2*max(depth, 0)
		case ':':
			n++
		}
	}
	return n
}

// plural is one when n (an int or int64) is 1, many otherwise.
func plural(n any, one, many string) string {
	switch v := n.(type) {
	case int:
		if v == 1 {
			return one
		}
	case int64:
		if v == 1 {
			return one
		}
	}
	return many
}

func formatUnits(u float64) string {
	s := fmt.Sprintf("%.1f", u)
	return strings.TrimSuffix(s, ".0")
}

func formatBytes(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return fmt.Sprintf("%.1f KB", float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.1f MB", float64(n)/(k*k))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(k*k*k))
}
