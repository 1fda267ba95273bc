package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"
)

// Sessions. A session is a random 256-bit id in the dynago_console cookie
// (HttpOnly, SameSite=Strict, Secure over TLS, path /console/), kept in
// memory for sessionTTL after its last use; the server forgets every
// session when it stops. Each session has its own CSRF token, which
// every POST must carry as the csrf form field or the X-CSRF-Token
// header (the layout sets it on htmx requests): the synchronizer-token
// pattern of OWASP's Cross-Site Request Forgery Prevention Cheat Sheet.
// A POST whose Origin header names another host is refused as well, and
// so is another site loading a console page other than by a link
// (crossSiteLoad).
//
// With Options.Keys a session is made by signing in with an access key id
// and its secret access key from the --credentials file; without, the
// first page visited makes one, so that the CSRF check holds for an open
// console too.

// sessionCookie is the session cookie's name.
const sessionCookie = "dynago_console"

// sessionTTL is how long a session lasts unused.
const sessionTTL = 12 * time.Hour

// maxSessions bounds the sessions kept; past it the least recently used
// one is forgotten.
const maxSessions = 10000

// Session is one signed-in browser: its CSRF token and the access key it
// signed in with ("" on an open console).
type Session struct {
	ID          string
	CSRF        string
	AccessKeyID string
	lastUsed    time.Time
}

type sessions struct {
	mu   sync.Mutex
	byID map[string]*Session
}

func (ss *sessions) init() { ss.byID = make(map[string]*Session) }

func randomToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// create makes a session for accessKeyID.
func (ss *sessions) create(accessKeyID string) *Session {
	s := &Session{ID: randomToken(), CSRF: randomToken(), AccessKeyID: accessKeyID, lastUsed: time.Now()}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.byID) >= maxSessions {
		var oldest *Session
		for _, o := range ss.byID {
			if oldest == nil || o.lastUsed.Before(oldest.lastUsed) {
				oldest = o
			}
		}
		delete(ss.byID, oldest.ID)
	}
	ss.byID[s.ID] = s
	return s
}

// get returns the live session with id, refreshing its last use.
func (ss *sessions) get(id string) *Session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.byID[id]
	if s == nil {
		return nil
	}
	now := time.Now()
	if now.Sub(s.lastUsed) > sessionTTL {
		delete(ss.byID, id)
		return nil
	}
	s.lastUsed = now
	return s
}

func (ss *sessions) remove(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.byID, id)
}

type sessionKey struct{}

// sessionOf returns r's session (set by authorize; never nil in a page
// handler).
func sessionOf(r *http.Request) *Session {
	s, _ := r.Context().Value(sessionKey{}).(*Session)
	return s
}

func (c *Console) setCookie(w http.ResponseWriter, r *http.Request, s *Session) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: s.ID, Path: "/console/",
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}

// authorize finds r's session or answers for it: with Keys, a request
// without a session is sent to the login page (a page) or answered 401
// (htmx, a POST); without Keys, a session is made. A POST must carry the
// session's CSRF token and no foreign Origin; the login form itself is
// checked by its own handler.
func (c *Console) authorize(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	isLogin := r.URL.Path == "/console/login"
	if crossSiteLoad(r) {
		http.Error(w, "cross-site request refused: another site's page may link to the console, not load it", http.StatusForbidden)
		return r, false
	}
	var s *Session
	if ck, err := r.Cookie(sessionCookie); err == nil {
		s = c.sessions.get(ck.Value)
	}
	if r.Method == http.MethodPost && !sameOrigin(r) {
		http.Error(w, "cross-site request refused: the Origin header names another site", http.StatusForbidden)
		return r, false
	}
	if s == nil && !isLogin {
		if c.opts.Keys != nil {
			if r.Method != http.MethodGet || r.Header.Get("HX-Request") != "" {
				w.Header().Set("HX-Redirect", "/console/login")
				http.Error(w, "sign in first: /console/login", http.StatusUnauthorized)
				return r, false
			}
			http.Redirect(w, r, "/console/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return r, false
		}
		if r.Method != http.MethodGet {
			http.Error(w, "no console session: open /console/ first", http.StatusForbidden)
			return r, false
		}
		s = c.sessions.create("")
		c.setCookie(w, r, s)
	}
	if r.Method == http.MethodPost {
		if err := parseForm(w, r); err != nil {
			if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
				http.Error(w, fmt.Sprintf("the form is larger than the console takes (%d MB)", maxFormBytes>>20), http.StatusRequestEntityTooLarge)
			} else {
				http.Error(w, "the form does not parse: "+err.Error(), http.StatusBadRequest)
			}
			return r, false
		}
	}
	if s != nil && r.Method == http.MethodPost && !isLogin {
		tok := r.Header.Get("X-CSRF-Token")
		if tok == "" {
			tok = r.PostFormValue("csrf")
		}
		if subtle.ConstantTimeCompare([]byte(tok), []byte(s.CSRF)) != 1 {
			http.Error(w, "cross-site request refused: the form's CSRF token is missing or stale; reload the page", http.StatusForbidden)
			return r, false
		}
	}
	if s != nil {
		r = r.WithContext(context.WithValue(r.Context(), sessionKey{}, s))
	}
	return r, true
}

// maxFormBytes bounds a POST's body, which the console reads whole: a
// form carrying a 400 KB item (DynamoDB's largest) as DynamoDB JSON,
// form-encoded, fits. Without it a urlencoded body is read up to
// net/http's 10 MB, and a multipart one's files without bound (to
// temporary files).
const maxFormBytes = 4 << 20

// parseForm reads r's form, urlencoded or multipart, at most maxFormBytes
// of it, so that a body too large or malformed is answered as such rather
// than seen as a form without its fields (a CSRF token missing).
func parseForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return err
	}
	if err := r.ParseMultipartForm(maxFormBytes); err != nil && err != http.ErrNotMultipart {
		return err
	}
	return nil
}

// crossSiteLoad reports whether r is another site's page loading a
// console page other than by following a link to it (an img, a script, a
// fetch, a frame), as the browser's Fetch Metadata headers tell
// (Sec-Fetch-Site, -Mode, -Dest; a browser without them sends none). Such
// a load has no use (pages cannot be framed or read across sites), and
// refused before a session is made it cannot fill the sessions of an open
// console to evict its users' (a cross-site load carries no SameSite
// cookie, so each would make one). Source: web.dev, "Protect your
// resources from web attacks with Fetch Metadata" (resource isolation
// policy).
func crossSiteLoad(r *http.Request) bool {
	if r.Header.Get("Sec-Fetch-Site") != "cross-site" {
		return false
	}
	return r.Header.Get("Sec-Fetch-Mode") != "navigate" || r.Header.Get("Sec-Fetch-Dest") != "document"
}

// sameOrigin reports whether r's Origin header, when there is one, names
// r's own host (browsers send Origin on every cross-origin POST).
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return r.Header.Get("Sec-Fetch-Site") != "cross-site"
	}
	u, err := url.Parse(o)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// loginPage shows the sign-in form (or, on an open console, goes home).
func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	if c.opts.Keys == nil {
		http.Redirect(w, r, "/console/", http.StatusSeeOther)
		return
	}
	pd := c.page(r, "Sign in", "", loginData{Next: safeNext(r.URL.Query().Get("next"))})
	pd.Bare = true
	c.render(w, r, http.StatusOK, "login", pd)
}

type loginData struct {
	Next, AccessKeyID, Error string
}

// safeNext keeps a post-login redirect inside the console: a path under
// /console/ with no backslash or control character (url.Parse refuses
// those; browsers drop tabs and newlines, and read \ as /) and no dot
// segment leading out of it (decoded: browsers resolve %2e%2e too).
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || strings.Contains(next, "\\") ||
		!strings.HasPrefix(next, "/console/") || !strings.HasPrefix(path.Clean(u.Path)+"/", "/console/") {
		return "/console/"
	}
	return next
}

// login checks an access key id and secret against Options.Keys in
// constant time and makes a session.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	if c.opts.Keys == nil {
		http.Redirect(w, r, "/console/", http.StatusSeeOther)
		return
	}
	id := strings.TrimSpace(r.PostFormValue("access_key_id"))
	secret := r.PostFormValue("secret_access_key")
	next := safeNext(r.PostFormValue("next"))
	k, ok := c.opts.Keys.Lookup(id)
	if !ok || subtle.ConstantTimeCompare([]byte(k.SecretAccessKey), []byte(secret)) != 1 {
		c.log.Info("console: sign-in refused", "access_key_id", id)
		pd := c.page(r, "Sign in", "", loginData{Next: next, AccessKeyID: id,
			Error: "The access key id or secret access key is not one of the server's --credentials."})
		pd.Bare = true
		c.render(w, r, http.StatusUnauthorized, "login", pd)
		return
	}
	if ck, err := r.Cookie(sessionCookie); err == nil {
		c.sessions.remove(ck.Value)
	}
	s := c.sessions.create(id)
	c.setCookie(w, r, s)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout forgets the session.
func (c *Console) logout(w http.ResponseWriter, r *http.Request) {
	if s := sessionOf(r); s != nil {
		c.sessions.remove(s.ID)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/console/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	target := "/console/login"
	if c.opts.Keys == nil {
		target = "/console/"
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

func isStatic(p string) bool { return strings.HasPrefix(p, "/console/static/") }
