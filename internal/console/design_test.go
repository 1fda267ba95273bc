package console_test

import (
	"bytes"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/console"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/interop"
	"github.com/dynago/dynago/internal/designtraffic"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/inproc"
	"github.com/dynago/dynago/internal/server"
	"github.com/dynago/dynago/internal/storage/teststore"
	"github.com/prometheus/client_golang/prometheus"
)

// designEnv is newEnv for serve --design files: the server classifies
// every request against them (the same interceptor serve wires in) and
// the console shows them.
func designEnv(t *testing.T, files ...string) *env {
	t.Helper()
	traffic, err := inproc.LoadDesigns(files)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := designtraffic.New(traffic, false, prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(teststore.Open(t), engine.Options{})
	srv := server.New(eng, server.Options{Intercept: cl})
	srv.SetConsole(console.New(console.Options{API: srv, Engine: eng, DesignFiles: files, Traffic: traffic}))
	srv.MarkReady()
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); eng.Close() })
	jar, _ := cookiejar.New(nil)
	return &env{t: t, ts: ts, srv: srv, eng: eng, client: &http.Client{Jar: jar}}
}

const ecommerce = "../../examples/ecommerce.design.yaml"

// ecommerceTable is examples/ecommerce.design.yaml's table.
const ecommerceTable = `{"TableName":"ecommerce","BillingMode":"PAY_PER_REQUEST",
 "KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],
 "AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},{"AttributeName":"GSI1PK","AttributeType":"S"},{"AttributeName":"GSI1SK","AttributeType":"S"},{"AttributeName":"Type","AttributeType":"S"}],
 "GlobalSecondaryIndexes":[
  {"IndexName":"GSI1","KeySchema":[{"AttributeName":"GSI1PK","KeyType":"HASH"},{"AttributeName":"GSI1SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}},
  {"IndexName":"GSI2","KeySchema":[{"AttributeName":"Type","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]}`

// TestDesign_Pages: without --design there is no nav link and the page
// says how to attach one; with it, /console/design opens the worksheet,
// whose tables are dynago design worksheet's rows; the item-collection
// view is design show's; bad views and numbers are 404s.
func TestDesign_Pages(t *testing.T) {
	plain := newEnv(t, console.Options{}, engine.Options{})
	if _, body := plain.get("/console/"); strings.Contains(body, `href="/console/design"`) {
		t.Error("a Design link without --design")
	}
	if status, body := plain.get("/console/design"); status != 404 || !strings.Contains(body, "dynago serve --design FILE") {
		t.Errorf("/console/design without --design: %d\n%s", status, body)
	}

	e := designEnv(t, "../../examples/orders.design.yaml", ecommerce)
	if _, body := e.get("/console/"); !strings.Contains(body, `href="/console/design"`) {
		t.Error("no Design link with --design")
	}
	// The worksheet: every row of dynago design worksheet's tables.
	d, _, err := design.Load("../../examples/orders.design.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := interop.Worksheet(&md, d); err != nil {
		t.Fatal(err)
	}
	status, body := e.get("/console/design")
	if status != 200 || !strings.Contains(body, "<h1>Design") || !strings.Contains(body, `aria-current="page">Worksheet`) {
		t.Fatalf("/console/design: %d\n%s", status, body)
	}
	page := strings.ReplaceAll(text(body), " ,", ",") // a code span before a comma
	rows := 0
	for _, line := range strings.Split(md.String(), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "|---") {
			continue
		}
		rows++
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		want := strings.ReplaceAll(strings.Join(cells, " "), "`", "")
		if !strings.Contains(page, strings.Join(strings.Fields(want), " ")) {
			t.Errorf("worksheet page lacks the row %q", line)
		}
	}
	if rows < 10 || strings.Count(body, "<table class=\"worksheet-table\">") != 3 {
		t.Errorf("%d worksheet rows, %d tables", rows, strings.Count(body, "<table class=\"worksheet-table\">"))
	}
	for _, want := range []string{"<code>CUSTOMER#&lt;customerId&gt;</code>", "<h2>app</h2>", "<h3>Access patterns</h3>"} {
		if !strings.Contains(body, want) {
			t.Errorf("worksheet lacks %q", want)
		}
	}

	for _, tc := range []struct {
		name   string
		path   string
		status int
		want   []string
		not    []string
	}{
		{"collections", "/console/design/1/collections", 200,
			[]string{`<div class="design-show">`, `<section id="view-app">`, `<section id="view-GSI1">`, `<td class="pk" rowspan=`, "CUSTOMER#", "Findings (dynago design check)", "<svg"},
			[]string{"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>app"}},
		{"one index", "/console/design/1/collections?index=GSI2&items=2", 200,
			[]string{`<section id="view-GSI2">`, "2 generated items per entity", `<option value="GSI2" selected>`}, []string{`<section id="view-app">`}},
		{"an unknown index", "/console/design/1/collections?index=GSI9", 400, []string{`no index &#34;GSI9&#34; in the design (table, GSI1, GSI2)`}, nil},
		{"the second design", "/console/design/2/worksheet", 200, []string{"table ecommerce", `aria-current="page">ecommerce.design.yaml`}, nil},
		{"no such view", "/console/design/1/nope", 404, []string{"no view"}, nil},
		{"no such design", "/console/design/3/worksheet", 404, []string{"no design"}, nil},
		{"not a number", "/console/design/x/worksheet", 404, []string{"no design"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := e.get(tc.path)
			if status != tc.status {
				t.Fatalf("%d, want %d\n%s", status, tc.status, body)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(body, n) {
					t.Errorf("page has %q", n)
				}
			}
			if strings.Count(body, "<main") != 1 {
				t.Errorf("%d <main> elements", strings.Count(body, "<main"))
			}
		})
	}
}

// TestDesign_Traffic: a GetItem counts under the access pattern it
// follows, a Scan as an undeclared Scan, highlighted, on the page and
// in the fragment htmx refreshes.
func TestDesign_Traffic(t *testing.T) {
	e := designEnv(t, ecommerce)
	e.api("CreateTable", ecommerceTable)
	_, body := e.get("/console/design/1/traffic")
	if !strings.Contains(body, `hx-get="/console/design/1/traffic/live" hx-trigger="every 3s"`) || !strings.Contains(body, "No requests yet") ||
		!strings.Contains(body, "The console's own calls go through the same classifier") {
		t.Fatalf("traffic page before any request:\n%s", body)
	}
	e.api("PutItem", `{"TableName":"ecommerce","Item":{"PK":{"S":"USER#alice"},"SK":{"S":"USER#alice"},"Type":{"S":"USER"},"UserName":{"S":"alice"}}}`)
	e.api("GetItem", `{"TableName":"ecommerce","Key":{"PK":{"S":"USER#alice"},"SK":{"S":"USER#alice"}}}`)
	e.api("GetItem", `{"TableName":"ecommerce","Key":{"PK":{"S":"USER#alice"},"SK":{"S":"USER#alice"}}}`)
	e.api("Scan", `{"TableName":"ecommerce"}`)
	row := func(body, path string) string {
		m := regexp.MustCompile(`(?s)<tr class="([a-z]+)" data-path="` + regexp.QuoteMeta(path) + `">(.*?)</tr>`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no row for %q:\n%s", path, body)
		}
		return m[1] + ": " + text(m[2])
	}
	for _, path := range []string{"/console/design/1/traffic", "/console/design/1/traffic/live"} {
		status, body := e.get(path)
		if status != 200 {
			t.Fatalf("%s: %d", path, status)
		}
		for _, tc := range []struct{ path, want string }{
			{"1", "seen: pattern 1 Get a user by username 2 GetItem"},
			{"Scan table", "scan: UNDECLARED SCAN 1 Scan table 1 of 1"},
			{"2", "idle: pattern 2 Get all users 0"},
		} {
			if got := row(body, tc.path); !strings.HasPrefix(got, tc.want) {
				t.Errorf("%s: row %q is %q, want %q…", path, tc.path, got, tc.want)
			}
		}
		if !strings.Contains(text(body), "4 requests seen on ecommerce") {
			t.Errorf("%s: no total of 4 requests (a put, two gets, a scan)", path)
		}
	}
	if _, body := e.get("/console/design/1/traffic/live"); strings.Contains(body, "<html") {
		t.Error("the live fragment is a whole page")
	}
}

// TestDesign_MissingTable: serve --design with a design whose table the
// server does not have (examples/orders.design.yaml's app, on an empty
// server) says so on every design view, DescribeTable's answer, and
// gives the dynago design run command that creates and fills it here
// (its --endpoint and --keep are internal/cli/design.go's flags); once
// the table exists the hint is gone.
func TestDesign_MissingTable(t *testing.T) {
	const orders = "../../examples/orders.design.yaml"
	e := designEnv(t, orders)
	host := strings.TrimPrefix(e.ts.URL, "http://")
	run := "dynago design run ../../examples/orders.design.yaml --endpoint http://" + host + " --keep"
	views := []string{"/console/design/1/worksheet", "/console/design/1/collections", "/console/design/1/traffic", "/console/design/1/traffic/live"}
	for _, tc := range []struct {
		name   string
		create bool
		want   []string
	}{
		{"missing", false, []string{"Table app does not exist on this server", "DescribeTable answers ResourceNotFoundException", run}},
		{"created", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.create {
				e.api("CreateTable", `{"TableName":"app","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"}]}`)
			}
			for _, path := range views {
				status, body := e.get(path)
				if status != http.StatusOK {
					t.Fatalf("%s: %d", path, status)
				}
				page := text(body)
				live := strings.HasSuffix(path, "/live")
				for _, w := range tc.want {
					if live && w != run {
						continue // the fragment has only the traffic's own words
					}
					if !strings.Contains(page, w) {
						t.Errorf("%s lacks %q:\n%s", path, w, page)
					}
				}
				if tc.want == nil && (strings.Contains(page, "does not exist") || strings.Contains(page, "design run")) {
					t.Errorf("%s: a hint for a table that exists:\n%s", path, page)
				}
				if strings.HasPrefix(path, "/console/design/1/traffic") {
					missing := strings.Contains(page, "No requests yet, and table app does not exist on this server: "+run+" creates it")
					if missing != !tc.create {
						t.Errorf("%s: the no-requests line says missing %v, want %v:\n%s", path, missing, !tc.create, page)
					}
				}
			}
		})
	}
}
