package console_test

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/console"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/server"
	"github.com/dynago/dynago/internal/storage/teststore"
)

// env is a test server with the console, and a browser-like client of it
// (a cookie jar, redirects followed).
type env struct {
	t      *testing.T
	ts     *httptest.Server
	srv    *server.Server
	eng    *engine.Engine
	client *http.Client
}

// newEnv starts an in-memory server with the console configured by opts
// (its API and Engine are filled in) and engine options eo.
func newEnv(t *testing.T, opts console.Options, eo engine.Options) *env {
	t.Helper()
	st := teststore.Open(t)
	eng := engine.New(st, eo)
	srv := server.New(eng, server.Options{})
	opts.API, opts.Engine = srv, eng
	srv.SetConsole(console.New(opts))
	srv.MarkReady()
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); eng.Close() })
	jar, _ := cookiejar.New(nil)
	return &env{t: t, ts: ts, srv: srv, eng: eng, client: &http.Client{Jar: jar}}
}

// get fetches path and returns the status and the body.
func (e *env) get(path string) (int, string) {
	e.t.Helper()
	res, err := e.client.Get(e.ts.URL + path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]*)">`)

// csrf returns the session's CSRF token, from a page's meta.
func (e *env) csrf() string {
	e.t.Helper()
	_, body := e.get("/console/")
	m := csrfMeta.FindStringSubmatch(body)
	if m == nil || m[1] == "" {
		e.t.Fatalf("no csrf-token meta on /console/:\n%s", body)
	}
	return m[1]
}

// post sends form (with the session's csrf token added unless form has
// one) to path and returns the status and the body.
func (e *env) post(path string, form url.Values) (int, string) {
	e.t.Helper()
	return e.postWith(path, form, nil)
}

// postWith is post with the request headers hdr besides (HX-Request for
// an htmx request).
func (e *env) postWith(path string, form url.Values, hdr http.Header) (int, string) {
	e.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", e.csrf())
	}
	req, _ := http.NewRequest("POST", e.ts.URL+path, strings.NewReader(form.Encode()))
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// api runs a DynamoDB operation on the server as a client would and
// returns the response, failing the test on an error answer.
func (e *env) api(op, body string) map[string]any {
	e.t.Helper()
	status, out := e.srv.Invoke(e.t.Context(), "DynamoDB_20120810."+op, []byte(body))
	if status != http.StatusOK {
		e.t.Fatalf("%s: %d %s", op, status, out)
	}
	var m map[string]any
	json.Unmarshal(out, &m)
	return m
}

var tags = regexp.MustCompile(`<[^>]*>`)

// text is a page's text: tags dropped, entities decoded, space folded.
func text(body string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(body, " "))), " ")
}
