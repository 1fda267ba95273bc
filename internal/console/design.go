package console

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/analyze"
	"github.com/dynago/dynago/internal/design/check"
	"github.com/dynago/dynago/internal/design/interop"
	"github.com/dynago/dynago/internal/design/show"
	"github.com/dynago/dynago/internal/pricing"
)

// Design (/console/design/N/VIEW, with serve --design FILE): for the
// N-th design file (from 1), three views:
//
//	worksheet    what dynago design worksheet prints (interop.Worksheet), as HTML tables
//	collections  dynago design show's item collections (show.Build, WriteHTMLBody), check's findings pinned
//	traffic      the live traffic against the patterns (Options.Traffic.Report), refreshed by htmx
//
// The file is read again for each page, so that an edit shows; the
// traffic is classified against the design as serve loaded it.

func (c *Console) designRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /console/design", c.designIndex)
	m.HandleFunc("GET /console/design/{n}/{view}", c.designPage)
	m.HandleFunc("GET /console/design/{n}/traffic/live", c.designTrafficLive)
}

// designViews are a design's views, in tab order.
var designViews = []struct{ Name, Title string }{
	{"worksheet", "Worksheet"},
	{"collections", "Item collections"},
	{"traffic", "Live traffic"},
}

// designFile is one of serve --design's files, for the tabs.
type designFile struct {
	N    int
	File string
	Base string
}

// designView is a design page's data.
type designView struct {
	Files []designFile
	N     int
	File  string
	View  string
	Title string
	Views []struct{ Name, Title string }
	// Err is a file that no longer loads (or parses).
	Err string
	// Table is the design's table; Missing says DescribeTable answered
	// that this server has no such table, and Run is the command that
	// creates it and fills it (dynago design run FILE --endpoint URL
	// --keep).
	Table   string
	Missing bool
	Run     string
	// The worksheet.
	Worksheet []mdBlock
	// The item collections: the index shown ("" for every view), the
	// choices, the items per entity, and show's HTML.
	Index       string
	Indexes     []string
	Items       int
	Collections template.HTML
	// The traffic.
	Traffic *trafficView
}

func (c *Console) designFiles() []designFile {
	fs := make([]designFile, len(c.opts.DesignFiles))
	for i, f := range c.opts.DesignFiles {
		fs[i] = designFile{N: i + 1, File: f, Base: filepath.Base(f)}
	}
	return fs
}

// designIndex opens the first design's worksheet; without --design it
// says how to attach one.
func (c *Console) designIndex(w http.ResponseWriter, r *http.Request) {
	if len(c.opts.DesignFiles) == 0 {
		c.render(w, r, http.StatusNotFound, "design", c.page(r, "Design", "design", designView{}))
		return
	}
	http.Redirect(w, r, "/console/design/1/worksheet", http.StatusSeeOther)
}

// designOf returns the design file N names in r, or false after
// answering 404.
func (c *Console) designOf(w http.ResponseWriter, r *http.Request) (designView, bool) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 || n > len(c.opts.DesignFiles) {
		v := designView{Files: c.designFiles(), Err: fmt.Sprintf("no design %q: serve has %d --design file(s)", r.PathValue("n"), len(c.opts.DesignFiles))}
		c.render(w, r, http.StatusNotFound, "design", c.page(r, "Design", "design", v))
		return v, false
	}
	return designView{Files: c.designFiles(), N: n, File: c.opts.DesignFiles[n-1], Views: designViews}, true
}

func (c *Console) designPage(w http.ResponseWriter, r *http.Request) {
	v, ok := c.designOf(w, r)
	if !ok {
		return
	}
	v.View = r.PathValue("view")
	for _, dv := range designViews {
		if dv.Name == v.View {
			v.Title = dv.Title
		}
	}
	if v.Title == "" {
		v.Err = fmt.Sprintf("no view %q: worksheet, collections or traffic", v.View)
		c.render(w, r, http.StatusNotFound, "design", c.page(r, "Design", "design", v))
		return
	}
	d, err := loadDesignFile(v.File)
	if err != nil {
		v.Err = err.Error()
		c.render(w, r, http.StatusOK, "design", c.page(r, "Design "+filepath.Base(v.File), "design", v))
		return
	}
	v.Table = d.Table.Name
	c.designTable(r, &v)
	status := http.StatusOK
	switch v.View {
	case "worksheet":
		var b bytes.Buffer
		if err := interop.Worksheet(&b, d); err != nil {
			v.Err = err.Error()
		}
		v.Worksheet = parseMarkdown(b.String())
	case "collections":
		status = c.designCollections(r, d, &v)
	case "traffic":
		v.Traffic = c.trafficOf(d)
	}
	c.render(w, r, status, "design", c.page(r, v.Title+": "+filepath.Base(v.File), "design", v))
}

// designTable asks DescribeTable (as a client would) whether v's table
// exists on this server; when it does not, v says so with the command
// that creates it, its indexes and generated items, at this server
// (design run's --endpoint; --keep so that the table stays after the
// run). Another error is no hint: the pages show the design either way.
func (c *Console) designTable(r *http.Request, v *designView) {
	var ae *APIError
	if _, err := c.describe(r, v.Table); !errors.As(err, &ae) || ae.Type != "ResourceNotFoundException" {
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	v.Missing = true
	v.Run = "dynago design run " + shellWord(v.File) + " --endpoint " + shellWord(scheme+"://"+r.Host) + " --keep"
}

// shellWord quotes s for a POSIX shell when it holds more than letters,
// digits and ./_-:@+=,.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./_-:@+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// loadDesignFile loads a design; a file with problems is an error
// naming the first (serve checked it at start; it may have changed).
func loadDesignFile(file string) (*design.Design, error) {
	d, diags, err := design.Load(file)
	if err != nil {
		return nil, err
	}
	if len(diags) > 0 {
		return nil, fmt.Errorf("%s (dynago design check %s lists every problem)", diags[0], file)
	}
	return d, nil
}

// designCollections fills v with show's item collections for ?index=
// and ?items= (1 to 20, default 3), analyze's load chart beside them.
func (c *Console) designCollections(r *http.Request, d *design.Design, v *designView) int {
	q := r.URL.Query()
	v.Items = 3
	if s := q.Get("items"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= 20 {
			v.Items = n
		}
	}
	v.Indexes = []string{"table"}
	for _, ix := range d.Table.Indexes {
		v.Indexes = append(v.Indexes, ix.Name)
	}
	v.Index = q.Get("index")
	pic, err := show.Build(d, check.Check(d, check.Rules), show.Options{Index: v.Index, Items: v.Items})
	if err != nil {
		v.Err = err.Error()
		v.Index = ""
		return http.StatusBadRequest
	}
	var chart, body bytes.Buffer
	if err := analyze.Analyze(d, pricing.Default()).WriteSVG(&chart); err != nil {
		chart.Reset()
	}
	if err := pic.WriteHTMLBody(&body, chart.Bytes()); err != nil {
		v.Err = err.Error()
		return http.StatusInternalServerError
	}
	// show escapes every value from the design (html/template), and
	// analyze's SVG escapes its text.
	v.Collections = template.HTML(body.String())
	return http.StatusOK
}

// trafficView is the live traffic of one design's table.
type trafficView struct {
	Table string
	Paths []trafficPath
	// Requests counts them all; Unmatched the items written whose keys
	// no entity's templates build, with examples.
	Requests         int64
	Unmatched        int64
	UnmatchedExample []string
	// Off says serve runs without a traffic classifier.
	Off bool
}

// trafficPath is one row: a pattern or an undeclared path.
type trafficPath struct {
	design.PathStats
	// Label is "pattern ID", "UNDECLARED" or "UNDECLARED SCAN" (what
	// dynago design traffic prints); Description the pattern's.
	Label, Description string
	Scan               bool
	// Amplification is read amplification ("4.0", "∞"), "" for no read
	// of many items; Heavy says it is 2 or more.
	Amplification string
	Heavy         bool
}

// trafficOf returns the traffic on d's table as serve classified it.
func (c *Console) trafficOf(d *design.Design) *trafficView {
	tv := &trafficView{Table: d.Table.Name, Off: c.opts.Traffic == nil}
	if c.opts.Traffic == nil {
		return tv
	}
	desc := map[string]string{}
	for _, p := range d.Patterns {
		desc[p.ID] = p.Description
	}
	for _, tt := range c.opts.Traffic.Report() {
		if tt.Table != d.Table.Name {
			continue
		}
		tv.Unmatched, tv.UnmatchedExample = tt.Unmatched, tt.UnmatchedExample
		for _, p := range tt.Paths {
			tp := trafficPath{PathStats: *p, Label: "pattern " + p.Pattern, Description: desc[p.Pattern]}
			if !p.Declared {
				tp.Label = "UNDECLARED"
				if strings.HasPrefix(p.Path, "Scan") {
					tp.Label, tp.Scan = "UNDECLARED SCAN", true
				}
			}
			if p.Scanned > 0 {
				if p.Items == 0 {
					tp.Amplification, tp.Heavy = "∞", true
				} else {
					a := float64(p.Scanned) / float64(p.Items)
					tp.Amplification, tp.Heavy = strconv.FormatFloat(a, 'f', 1, 64), a >= 2
				}
			}
			tv.Requests += p.Requests
			tv.Paths = append(tv.Paths, tp)
		}
	}
	return tv
}

// designTrafficLive is the traffic view's table alone, for htmx's
// refresh.
func (c *Console) designTrafficLive(w http.ResponseWriter, r *http.Request) {
	v, ok := c.designOf(w, r)
	if !ok {
		return
	}
	d, err := loadDesignFile(v.File)
	if err != nil {
		v.Err = err.Error()
		c.renderFragment(w, r, http.StatusOK, "design", "traffic", v)
		return
	}
	v.Table, v.View, v.Traffic = d.Table.Name, "traffic", c.trafficOf(d)
	c.designTable(r, &v)
	c.renderFragment(w, r, http.StatusOK, "design", "traffic", c.page(r, "", "design", v))
}
