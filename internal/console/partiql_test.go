package console_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/console"
	"github.com/dynago/dynago/internal/engine"
)

// pqEnv is a console with a Movies table (year N, title S) of five
// movies.
func pqEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, console.Options{}, engine.Options{})
	e.api("CreateTable", `{"TableName":"Movies","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"year","AttributeType":"N"},{"AttributeName":"title","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"year","KeyType":"HASH"},{"AttributeName":"title","KeyType":"RANGE"}]}`)
	for _, m := range []struct{ year, title string }{
		{"1985", "Back to the Future"}, {"1985", "Brazil"}, {"1985", "Ran"}, {"1985", "The Breakfast Club"}, {"1986", "Aliens"},
	} {
		e.api("PutItem", `{"TableName":"Movies","Item":{"year":{"N":"`+m.year+`"},"title":{"S":"`+m.title+`"},"rating":{"N":"8"}}}`)
	}
	return e
}

// pqRun posts the editor's form (htmx when hx) and returns the status
// and the body.
func pqRun(e *env, form url.Values, hx bool) (int, string) {
	e.t.Helper()
	if !hx {
		return e.post("/console/partiql", form)
	}
	form.Set("csrf", e.csrf())
	return e.postWith("/console/partiql", form, http.Header{"Hx-Request": {"true"}})
}

var nextTokenField = regexp.MustCompile(`name="nexttoken" value="([^"]*)"`)

// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html
// (Items, NextToken with Limit, ConsumedCapacity with ReturnConsumedCapacity TOTAL).
func TestPartiQL_Select(t *testing.T) {
	e := pqEnv(t)
	tests := []struct {
		name      string
		form      url.Values
		hx        bool
		want      []string
		notWant   []string
		wantTitle bool // the whole page, not the fragment
	}{
		{"a partition", url.Values{"statement": {`SELECT * FROM "Movies" WHERE "year" = 1985`}}, false,
			[]string{"4 items", "Brazil", "The Breakfast Club", "consumed 0.5 capacity units on Movies", "ExecuteStatement request and response"},
			[]string{"Aliens", "Next page"}, true},
		{"htmx: the result alone", url.Values{"statement": {`SELECT title FROM "Movies" WHERE "year" = 1986`}}, true,
			[]string{"1 item ", "Aliens"}, []string{"Brazil", "History"}, false},
		{"plain parameters", url.Values{"statement": {`SELECT * FROM "Movies" WHERE "year" = ? AND "title" = ?`}, "parameters": {`[1985, "Ran"]`}}, false,
			[]string{"1 item ", "Ran"}, []string{"Brazil"}, true},
		{"DynamoDB JSON parameters", url.Values{"statement": {`SELECT * FROM "Movies" WHERE "year" = ?`}, "parameters": {`[{"N": "1986"}]`}, "parammode": {"ddb"}}, true,
			[]string{"1 item ", "Aliens"}, nil, false},
		{"auto parameters", url.Values{"statement": {`SELECT * FROM "Movies" WHERE "year" = ? AND "title" = ?`}, "parameters": {`[{"N": "1985"}, "Brazil"]`}}, true,
			[]string{"1 item ", "Brazil"}, nil, false},
		{"no match", url.Values{"statement": {`SELECT * FROM "Movies" WHERE "year" = 2001`}}, true,
			[]string{"0 items", "The statement returned no items."}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := pqRun(e, tc.form, tc.hx)
			if code != http.StatusOK {
				t.Fatalf("status %d\n%s", code, body)
			}
			txt := text(body)
			for _, w := range tc.want {
				if !strings.Contains(txt, w) {
					t.Errorf("no %q in\n%s", w, txt)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(txt, w) {
					t.Errorf("%q in\n%s", w, txt)
				}
			}
			if got := strings.Contains(body, "<h1>PartiQL</h1>"); got != tc.wantTitle {
				t.Errorf("whole page %v, want %v", got, tc.wantTitle)
			}
			// The form keeps what the user wrote.
			if tc.wantTitle && !strings.Contains(body, html.EscapeString(tc.form.Get("statement"))+"</textarea>") {
				t.Errorf("the statement is not kept in the editor")
			}
		})
	}
}

func TestPartiQL_NextToken(t *testing.T) {
	e := pqEnv(t)
	form := url.Values{"statement": {`SELECT * FROM "Movies" WHERE "year" = 1985`}, "limit": {"3"}}
	var titles []string
	for page := 1; page <= 3; page++ {
		_, body := pqRun(e, form, true)
		for _, title := range []string{"Back to the Future", "Brazil", "Ran", "The Breakfast Club"} {
			if strings.Contains(body, ">"+title+"<") {
				titles = append(titles, title)
			}
		}
		m := nextTokenField.FindStringSubmatch(body)
		if m == nil {
			if page == 1 {
				t.Fatalf("no next page with Limit 3 of 4:\n%s", body)
			}
			if !strings.Contains(body, "Last page") {
				t.Errorf("the last page does not say so:\n%s", text(body))
			}
			break
		}
		if page > 1 && !strings.Contains(text(body), "on page "+string(rune('0'+page))) {
			t.Errorf("page %d not numbered:\n%s", page, text(body))
		}
		form.Set("nexttoken", html.UnescapeString(m[1]))
		form.Set("page", string(rune('0'+page+1)))
	}
	if len(titles) != 4 {
		t.Errorf("paging showed %v, want the 4 movies of 1985 once each", titles)
	}
}

// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html,
// ql-reference.update.html, ql-reference.delete.html.
func TestPartiQL_Writes(t *testing.T) {
	e := pqEnv(t)
	get := func() map[string]any {
		return e.api("GetItem", `{"TableName":"Movies","Key":{"year":{"N":"2001"},"title":{"S":"Amelie"}}}`)
	}
	tests := []struct {
		statement string
		check     func(item map[string]any) bool
	}{
		{`INSERT INTO "Movies" VALUE {'year': 2001, 'title': 'Amelie', 'rating': 8}`,
			func(it map[string]any) bool { return it != nil }},
		{`UPDATE "Movies" SET rating = 9 WHERE "year" = 2001 AND "title" = 'Amelie'`,
			func(it map[string]any) bool { return it != nil && it["rating"].(map[string]any)["N"] == "9" }},
		{`DELETE FROM "Movies" WHERE "year" = 2001 AND "title" = 'Amelie'`,
			func(it map[string]any) bool { return it == nil }},
	}
	for _, tc := range tests {
		t.Run(strings.Fields(tc.statement)[0], func(t *testing.T) {
			code, body := pqRun(e, url.Values{"statement": {tc.statement}}, true)
			if code != http.StatusOK || !strings.Contains(text(body), "The statement returned no items.") {
				t.Fatalf("%d\n%s", code, text(body))
			}
			item, _ := get()["Item"].(map[string]any)
			if !tc.check(item) {
				t.Errorf("after %s the item is %v", tc.statement, item)
			}
		})
	}
}

// DynamoDB's errors reach the page as DynamoDB words them: the same
// __type and message that e.srv.Invoke answers a client.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html (Errors).
func TestPartiQL_Errors(t *testing.T) {
	e := pqEnv(t)
	tests := []struct {
		name, statement, params string
		hx                      bool
		wantStatus              int
	}{
		{"a keyword unquoted", `SELECT * FROM "Movies" WHERE year = 1985`, "", false, http.StatusBadRequest},
		{"htmx swaps only 2xx", `SELECT * FROM "Movies" WHERE year = 1985`, "", true, http.StatusOK},
		{"no such table", `SELECT * FROM "Nope"`, "", false, http.StatusBadRequest},
		{"a parameter too few", `SELECT * FROM "Movies" WHERE "year" = ?`, "", true, http.StatusOK},
		{"a bad AttributeValue", `SELECT * FROM "Movies" WHERE "year" = ?`, `[{"N": "x"}]`, true, http.StatusOK},
		{"a bad limit", `SELECT * FROM "Movies"`, "", false, http.StatusBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := map[string]any{"Statement": tc.statement, "ReturnConsumedCapacity": "TOTAL"}
			form := url.Values{"statement": {tc.statement}, "parameters": {tc.params}}
			if tc.params != "" {
				req["Parameters"] = json.RawMessage(tc.params)
			}
			if tc.name == "a bad limit" {
				req["Limit"] = 0
				form.Set("limit", "0")
			}
			b, _ := json.Marshal(req)
			status, out := e.srv.Invoke(t.Context(), "DynamoDB_20120810.ExecuteStatement", b)
			var want struct {
				Type    string `json:"__type"`
				Message string `json:"message"`
			}
			json.Unmarshal(out, &want)
			if status == http.StatusOK || want.Message == "" {
				t.Fatalf("the API did not fail: %d %s", status, out)
			}
			code, body := pqRun(e, form, tc.hx)
			if code != tc.wantStatus {
				t.Errorf("status %d, want %d", code, tc.wantStatus)
			}
			typ := want.Type[strings.LastIndexByte(want.Type, '#')+1:]
			if txt := text(body); !strings.Contains(txt, typ+" : "+want.Message) {
				t.Errorf("want %q in\n%s", typ+": "+want.Message, txt)
			}
			if !strings.Contains(body, `<div class="error" role="alert"><strong>`+typ+`</strong>`) {
				t.Errorf("not shown as an apierror:\n%s", body)
			}
		})
	}
}

func TestPartiQL_FormProblems(t *testing.T) {
	e := pqEnv(t)
	tests := []struct {
		name string
		form url.Values
		want string
	}{
		{"empty statement", url.Values{"statement": {"  \n "}}, "Write a PartiQL statement to run"},
		{"parameters cut short", url.Values{"statement": {`SELECT * FROM "Movies"`}, "parameters": {"[1985"}}, `Parameters must be a JSON array, such as [1985, "Brazil"]: the JSON is cut short`},
		{"parameters not JSON", url.Values{"statement": {`SELECT * FROM "Movies"`}, "parameters": {"[1985, Brazil]"}}, `Parameters must be a JSON array, such as [1985, "Brazil"]: invalid character 'B' looking for beginning of value (line 1, column`},
		{"parameters not an array", url.Values{"statement": {`SELECT * FROM "Movies"`}, "parameters": {`{"N":"1"}`}}, `Parameters must be a JSON array, such as [1985, "Brazil"]: put [ and ] around the values`},
		// The new user's paste: the values without their brackets, which
		// Go's decoder words as "cannot unmarshal number into Go value".
		{"parameters without brackets", url.Values{"statement": {`SELECT * FROM "Movies"`}, "parameters": {`1985, "Brazil"`}}, `Parameters must be a JSON array, such as [1985, "Brazil"]: put [ and ] around the values`},
		{"a stray ] after the array", url.Values{"statement": {`SELECT * FROM "Movies"`}, "parameters": {`[1985, "Brazil"]]`}}, `Parameters must be one JSON array, such as [1985, "Brazil"]: text follows its closing ]`},
		{"a stray } after the array", url.Values{"statement": {`SELECT * FROM "Movies"`}, "parameters": {"[1985]\n}"}}, `Parameters must be one JSON array, such as [1985, "Brazil"]: text follows its closing ]`},
		{"a second array", url.Values{"statement": {`SELECT * FROM "Movies"`}, "parameters": {`[1985] ["Brazil"]`}}, `Parameters must be one JSON array`},
		{"limit not a number", url.Values{"statement": {`SELECT * FROM "Movies"`}, "limit": {"ten"}}, `Limit: "ten" is not a whole number.`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := pqRun(e, tc.form, false)
			if code != http.StatusOK || !strings.Contains(text(body), tc.want) {
				t.Errorf("%d, want %q in\n%s", code, tc.want, text(body))
			}
			if strings.Contains(body, "ExecuteStatement request and response") {
				t.Errorf("a statement was sent")
			}
		})
	}
}

func TestPartiQL_Page(t *testing.T) {
	e := pqEnv(t)
	tests := []struct{ path, want string }{
		{"/console/partiql", `placeholder='SELECT * FROM "Movies" WHERE "year" = 1985'></textarea>`},
		{"/console/partiql?table=Movies", `>SELECT * FROM &#34;Movies&#34;</textarea>`},
		{"/console/partiql", `href="/console/partiql?table=Movies"`},
		{"/console/partiql", `<script src="/console/static/partiql.js" defer></script>`},
	}
	for _, tc := range tests {
		code, body := e.get(tc.path)
		if code != http.StatusOK || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d, want %s in\n%s", tc.path, code, tc.want, body)
		}
	}
}

// Parameters nested deeply, as a careless paste or a hostile form sends
// them, answer without a 500 and without a page that grows with the
// square of the depth (the request is shown compact when indenting would
// blow it up).
func TestPartiQL_DeepParameters(t *testing.T) {
	e := pqEnv(t)
	nest := func(open, leaf, close string, n int) string {
		return "[" + strings.Repeat(open, n) + leaf + strings.Repeat(close, n) + "]"
	}
	tests := []struct {
		name, params, mode string
		want               string
	}{
		{"plain arrays past the console's bound", nest("[", "1", "]", 5000), "plain", "Parameter 1 is nested more than 64 levels deep"},
		{"plain objects past encoding/json's bound once converted", nest(`{"a":`, "1", "}", 5000), "auto", "Parameter 1 is nested more than 64 levels deep"},
		{"plain, deeper than DynamoDB allows", nest("[", "1", "]", 40), "plain", "ValidationException"},
		{"DynamoDB JSON lists", nest(`{"L":[`, `{"S":"x"}`, "]}", 3000), "ddb", "SerializationException"},
		{"DynamoDB JSON maps", nest(`{"M":{"a":`, `{"S":"x"}`, "}}", 3000), "auto", "SerializationException"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			form := url.Values{"statement": {`SELECT * FROM "Movies" WHERE "year" = ?`}, "parameters": {tc.params}, "parammode": {tc.mode}}
			code, body := pqRun(e, form, true)
			if code != http.StatusOK {
				t.Errorf("status %d, want 200", code)
			}
			if !strings.Contains(text(body), tc.want) {
				t.Errorf("want %q in\n%.2000s", tc.want, text(body))
			}
			if limit := 4*len(tc.params) + 1<<20; len(body) > limit {
				t.Errorf("answer is %d bytes for %d of parameters, want at most %d", len(body), len(tc.params), limit)
			}
		})
	}
}

// JSON the console writes for showing (a map's cell, an opened cell, the
// request) keeps <, > and & as they are: html/template escapes them on the
// page, so they read as written, not as \u003c, \u003e and \u0026.
func TestPartiQL_JSONShownAsWritten(t *testing.T) {
	e := pqEnv(t)
	url1 := "https://example.com/?a=1&b=<2>"
	long := strings.Repeat("<&>", 30)
	e.api("PutItem", `{"TableName":"Movies","Item":{"year":{"N":"1999"},"title":{"S":"`+long+`"},"links":{"M":{"home":{"S":"`+url1+`"}}}}}`)
	code, body := pqRun(e, url.Values{"statement": {`SELECT * FROM "Movies" WHERE "year" = ?`}, "parameters": {`[1999]`}, "parammode": {"plain"}}, true)
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	txt := text(body)
	tests := []struct{ name, want string }{
		{"a map's cell", `{"home":"` + url1 + `"}`},
		{"the response", `"S": "` + url1 + `"`},
	}
	for _, tc := range tests {
		if !strings.Contains(txt, tc.want) {
			t.Errorf("%s: want %q in\n%s", tc.name, tc.want, txt)
		}
	}
	if want := "<pre>" + html.EscapeString(`"`+long+`"`) + "</pre>"; !strings.Contains(body, want) {
		t.Errorf("an opened cell: want %s in\n%s", want, body)
	}
	_, body = pqRun(e, url.Values{"statement": {`SELECT * FROM "Movies" WHERE "title" = ?`}, "parameters": {`["a&b"]`}, "parammode": {"plain"}}, true)
	if want := `"S": "a&b"`; !strings.Contains(text(body), want) {
		t.Errorf("the request: want %q in\n%s", want, text(body))
	}
	if strings.Contains(body, `\u00`) {
		t.Errorf("JSON escapes shown:\n%s", body)
	}
}
