package console_test

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/auth"
	"github.com/dynago/dynago/internal/console"
	"github.com/dynago/dynago/internal/engine"
)

func keysFor(t *testing.T) *auth.Keys {
	t.Helper()
	ks, err := auth.NewKeys(auth.Key{AccessKeyID: "AKIDCONSOLE", SecretAccessKey: "s3cret/key"})
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// Source for the CSRF design: OWASP Cross-Site Request Forgery Prevention
// Cheat Sheet (synchronizer token, Origin verification, SameSite cookies).
func TestConsole_OpenCSRF(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	if code, body := e.get("/console/"); code != http.StatusOK || !strings.Contains(body, "No tables yet") {
		t.Fatalf("GET /console/: %d\n%s", code, body)
	}
	tests := []struct {
		name string
		form url.Values
		hdr  map[string]string
		want int
	}{
		{"no token", url.Values{"csrf": {""}}, nil, http.StatusForbidden},
		{"wrong token", url.Values{"csrf": {"nope"}}, nil, http.StatusForbidden},
		{"right token", nil, nil, http.StatusOK}, // logout redirects to /console/
		{"foreign origin", nil, map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"cross-site fetch", nil, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			form := tc.form
			if form == nil {
				form = url.Values{"csrf": {e.csrf()}}
			}
			req, _ := http.NewRequest("POST", e.ts.URL+"/console/logout", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range tc.hdr {
				req.Header.Set(k, v)
			}
			res, err := e.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("status %d, want %d", res.StatusCode, tc.want)
			}
		})
	}
}

func TestConsole_OpenNoSessionPost(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	res, err := http.Post(e.ts.URL+"/console/logout", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("status %d, want 403", res.StatusCode)
	}
}

func TestConsole_Login(t *testing.T) {
	e := newEnv(t, console.Options{Keys: keysFor(t)}, engine.Options{})
	// Without a session every page sends to the sign-in form.
	code, body := e.get("/console/tables/Movies?x=1")
	if code != http.StatusOK || !strings.Contains(body, "Sign in to dynago") || !strings.Contains(body, `value="/console/tables/Movies?x=1"`) {
		t.Fatalf("GET without a session: %d\n%s", code, body)
	}
	// An htmx request (or any POST) without a session is 401, not a page.
	req, _ := http.NewRequest("GET", e.ts.URL+"/console/", nil)
	req.Header.Set("HX-Request", "true")
	res, _ := e.client.Do(req)
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || res.Header.Get("HX-Redirect") != "/console/login" {
		t.Errorf("htmx without a session: %d %q", res.StatusCode, res.Header.Get("HX-Redirect"))
	}
	for _, bad := range []url.Values{
		{"access_key_id": {"AKIDCONSOLE"}, "secret_access_key": {"wrong"}},
		{"access_key_id": {"AKIDOTHER"}, "secret_access_key": {"s3cret/key"}},
		{"access_key_id": {""}, "secret_access_key": {""}},
	} {
		code, body := e.post("/console/login", url.Values{"csrf": {""}, "access_key_id": bad["access_key_id"], "secret_access_key": bad["secret_access_key"]})
		if code != http.StatusUnauthorized || !strings.Contains(body, "not one of the server") {
			t.Errorf("login %v: %d\n%s", bad, code, body)
		}
	}
	// The right key signs in and goes where it was asked, never off the console.
	code, body = e.post("/console/login", url.Values{"csrf": {""}, "access_key_id": {"AKIDCONSOLE"}, "secret_access_key": {"s3cret/key"}, "next": {"//evil.example/"}})
	if code != http.StatusOK || !strings.Contains(body, "<h1>Tables</h1>") || !strings.Contains(body, "AKIDCONSOLE") {
		t.Fatalf("login: %d\n%s", code, body)
	}
	// Signed out, the session is gone.
	e.post("/console/logout", nil)
	if _, body := e.get("/console/"); !strings.Contains(body, "Sign in to dynago") {
		t.Errorf("after sign-out the console is still open:\n%s", body)
	}
}

// The sign-in's next= stays inside the console: on the form, and where
// signing in sends the browser (which drops tabs and newlines from a
// Location, and resolves .. and %2e%2e).
func TestConsole_SafeNext(t *testing.T) {
	e := newEnv(t, console.Options{Keys: keysFor(t)}, engine.Options{})
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct{ next, want string }{
		{"https://evil.example/", "/console/"},
		{"//evil.example", "/console/"},
		{"/\\evil.example", "/console/"},
		{"/console/\\evil", "/console/"},
		{"/metrics", "/console/"},
		{"javascript:alert(1)", "/console/"},
		{"/console/../metrics", "/console/"},
		{"/console/%2e%2e/metrics", "/console/"},
		{"/console/..\t/\t/evil.example", "/console/"},
		{"/console/\r\nSet-Cookie: x=y", "/console/"},
		{"/console/\x7f", "/console/"},
		{"/console/partiql", "/console/partiql"},
		{"/console/tables/Movies/stream?x=1#y", "/console/tables/Movies/stream?x=1#y"},
		{"/console/partiql?table=a%2Fb", "/console/partiql?table=a%2Fb"},
	}
	for _, tc := range tests {
		t.Run(tc.next, func(t *testing.T) {
			_, body := e.get("/console/login?next=" + url.QueryEscape(tc.next))
			if want := `name="next" value="` + html.EscapeString(tc.want) + `"`; !strings.Contains(body, want) {
				t.Errorf("the form: want %s in\n%s", want, body)
			}
			form := url.Values{"access_key_id": {"AKIDCONSOLE"}, "secret_access_key": {"s3cret/key"}, "next": {tc.next}}
			res, err := noFollow.PostForm(e.ts.URL+"/console/login", form)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || loc != tc.want {
				t.Errorf("signing in: %d to %q, want 303 to %q", res.StatusCode, loc, tc.want)
			}
		})
	}
}

func TestConsole_StaticAndHeaders(t *testing.T) {
	e := newEnv(t, console.Options{Keys: keysFor(t)}, engine.Options{})
	// Assets are served without a session (the sign-in page needs them).
	for _, p := range []string{"/console/static/console.css", "/console/static/vendor/htmx-2.0.11.min.js", "/console/static/vendor/uPlot-1.6.32.iife.min.js", "/console/static/vendor/htmx-LICENSE.txt"} {
		res, err := e.client.Get(e.ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", p, res.StatusCode)
		}
	}
	res, _ := e.client.Get(e.ts.URL + "/console/login")
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if res.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("X-Frame-Options %q", res.Header.Get("X-Frame-Options"))
	}
}

func TestConsole_TablesList(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	e.api("CreateTable", `{"TableName":"Movies","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"year","AttributeType":"N"},{"AttributeName":"title","AttributeType":"S"}],"KeySchema":[{"AttributeName":"year","KeyType":"HASH"},{"AttributeName":"title","KeyType":"RANGE"}],"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}}`)
	e.api("PutItem", `{"TableName":"Movies","Item":{"year":{"N":"1985"},"title":{"S":"Brazil"}}}`)
	code, body := e.get("/console/")
	for _, want := range []string{`href="/console/tables/Movies"`, "PAY_PER_REQUEST", "NEW_AND_OLD_IMAGES", "ACTIVE"} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /console/ (%d) lacks %q:\n%s", code, want, body)
		}
	}
}

// Over TLS (serve --tls-cert) the session cookie is Secure as well.
func TestConsole_SecureCookieOverTLS(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	ts := httptest.NewTLSServer(e.ts.Config.Handler)
	defer ts.Close()
	res, err := ts.Client().Get(ts.URL + "/console/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var ck *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "dynago_console" {
			ck = c
		}
	}
	if ck == nil || !ck.Secure || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/console/" {
		t.Errorf("session cookie over TLS: %+v", ck)
	}
}

// A POST's body is bounded and must parse: a body too large is a 413, a
// malformed one a 400, not a form whose fields (the CSRF token among
// them) went missing; a multipart form is read like a urlencoded one.
func TestConsole_FormBody(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	tok := e.csrf()
	multipart := func(fields ...string) (string, string) {
		var b strings.Builder
		for i := 0; i < len(fields); i += 2 {
			b.WriteString("--B\r\nContent-Disposition: form-data; name=\"" + fields[i] + "\"\r\n\r\n" + fields[i+1] + "\r\n")
		}
		b.WriteString("--B--\r\n")
		return "multipart/form-data; boundary=B", b.String()
	}
	mpType, mpBody := multipart("csrf", tok, "statement", "SELECT")
	mpFileType, mpFileBody := multipart("csrf", tok, "statement", "SELECT", "f\"; filename=\"f", strings.Repeat("x", 5<<20))
	tests := []struct {
		name, ctype, body string
		header            bool // the token in X-CSRF-Token
		want              int
		wantText          string
	}{
		{"urlencoded", "application/x-www-form-urlencoded", "statement=SELECT&csrf=" + tok, false, http.StatusBadRequest, "ValidationException"},
		{"urlencoded past the bound", "application/x-www-form-urlencoded", "statement=" + strings.Repeat("a", 5<<20), true, http.StatusRequestEntityTooLarge, "larger than the console takes"},
		{"malformed", "application/x-www-form-urlencoded", "statement=%zz&csrf=" + tok, false, http.StatusBadRequest, "the form does not parse"},
		{"multipart", mpType, mpBody, false, http.StatusBadRequest, "ValidationException"},
		{"multipart with a large file", mpFileType, mpFileBody, false, http.StatusRequestEntityTooLarge, "larger than the console takes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", e.ts.URL+"/console/partiql", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", tc.ctype)
			if tc.header {
				req.Header.Set("X-CSRF-Token", tok)
			}
			res, err := e.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.want || !strings.Contains(string(b), tc.wantText) {
				t.Errorf("%d %.300s, want %d with %q", res.StatusCode, b, tc.want, tc.wantText)
			}
		})
	}
}

// Another site's page may link to the console but not load its pages (an
// img, a fetch, a frame): refused before a session is made, so that such
// loads cannot fill an open console's sessions and evict its users'.
func TestConsole_CrossSiteLoads(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	tests := []struct {
		name             string
		site, mode, dest string
		want             int
	}{
		{"a browser without Fetch Metadata", "", "", "", http.StatusOK},
		{"the console's own page", "same-origin", "cors", "empty", http.StatusOK},
		{"a link from another site", "cross-site", "navigate", "document", http.StatusOK},
		{"typed in the address bar", "none", "navigate", "document", http.StatusOK},
		{"another site's img", "cross-site", "no-cors", "image", http.StatusForbidden},
		{"another site's fetch", "cross-site", "cors", "empty", http.StatusForbidden},
		{"another site's frame", "cross-site", "navigate", "iframe", http.StatusForbidden},
		{"a sibling site's img", "same-site", "no-cors", "image", http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", e.ts.URL+"/console/partiql", nil)
			for k, v := range map[string]string{"Sec-Fetch-Site": tc.site, "Sec-Fetch-Mode": tc.mode, "Sec-Fetch-Dest": tc.dest} {
				if v != "" {
					req.Header.Set(k, v)
				}
			}
			res, err := http.DefaultClient.Do(req) // no cookie: as a cross-site load comes
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("status %d, want %d", res.StatusCode, tc.want)
			}
			if made := res.Header.Get("Set-Cookie") != ""; made != (tc.want == http.StatusOK) {
				t.Errorf("a session made: %v", made)
			}
		})
	}
}
