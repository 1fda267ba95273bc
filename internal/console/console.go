// Package console owns dynago's web console, served by dynago serve at
// /console/ (issue 25): server-rendered html/template pages with htmx for
// the parts that change in place and uPlot for charts, every asset
// embedded in the binary (static/, vendored with its licence), so that
// the console works offline and nothing is fetched from elsewhere.
//
// The console reads and changes tables through the same DynamoDB
// operations a client sends (Options.API, the server's Invoke), so what
// it shows, capacity and error messages included, is what a DynamoDB
// client sees. Pages (each area's routes are in its file's xxxRoutes):
//
//	/console/                                 tables: status, items, size, billing mode, indexes, stream, TTL (tables.go)
//	/console/create-table                     the create-table form (tables_create.go)
//	/console/table-settings/NAME              TTL, deletion protection, delete (tables_settings.go)
//	/console/tables/NAME                      items page by page, index switch, query builder (items.go, items_query.go)
//	/console/tables/NAME/item?key=K           view, edit, create, duplicate, delete an item (items_edit.go)
//	/console/tables/NAME/download?format=F    the current result as JSON, DynamoDB JSON or CSV (items_download.go)
//	/console/tables/NAME/stream               the table's stream records, live, and its shard lineage (streams*.go)
//	/console/partiql                          PartiQL editor (partiql.go)
//	/console/capacity?table=NAME              consumed capacity, partition heat (serve --throttle), Contributor Insights (capacity.go)
//	/console/design/N/VIEW                    with serve --design: worksheet, item collections, live traffic (design*.go)
//
// Table names sit last or before a fixed word in these paths; the
// create-table form and the settings are outside /console/tables/ so
// that no table name ("new") can shadow them.
//
// With Options.Keys (serve --credentials FILE) every page asks for an
// access key id and its secret access key first and keeps a session
// cookie; without, the console is open like the API. Either way every
// state-changing request (every POST) must carry the session's CSRF
// token (a form field, or the X-CSRF-Token header htmx sends), so that
// another site cannot make a visitor's browser change tables.
package console

import (
	"context"
	"embed"
	"log/slog"
	"net/http"
	"sync"

	"github.com/dynago/dynago/internal/auth"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/engine"
)

// API runs one DynamoDB API call as a client would send it: target is
// the X-Amz-Target ("DynamoDB_20120810.Query"), body the JSON request;
// it returns the HTTP status and the JSON response (DynamoDB's
// {"__type", "message"} for an error). *server.Server's Invoke is one.
type API interface {
	Invoke(ctx context.Context, target string, body []byte) (status int, out []byte)
}

// Options configure New.
type Options struct {
	// API runs the console's DynamoDB calls; required.
	API API
	// Engine, when set, gives the capacity page the engine's per-table
	// and per-partition load (Engine.Insights: what GET /insights
	// serves), which no DynamoDB operation returns.
	Engine *engine.Engine
	// Keys, when set (serve --credentials FILE), are the access keys a
	// user signs in with; nil leaves the console open.
	Keys *auth.Keys
	// DesignFiles are serve --design's files (each checked already), and
	// Traffic their live traffic classification; both nil without
	// --design.
	DesignFiles []string
	Traffic     *design.Traffic
	// Throttle says serve runs with --throttle, and CapacityScale is its
	// --capacity-scale (1 when not given).
	Throttle      bool
	CapacityScale float64
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Console is the web console's http.Handler, to be served at /console/.
type Console struct {
	opts     Options
	log      *slog.Logger
	mux      *http.ServeMux
	sessions sessions
	// pages are parsed on first use, so that the console adds nothing
	// to the server's startup.
	pagesOnce sync.Once
	pages     pages
}

//go:embed static
var staticFS embed.FS

//go:embed templates
var templateFS embed.FS

// New returns the console for opts. It panics if opts.API is nil; a
// template that does not parse panics on the first page served (both
// are programming errors, which the package's tests catch).
func New(opts Options) *Console {
	if opts.API == nil {
		panic("console: Options.API is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.CapacityScale == 0 {
		opts.CapacityScale = 1
	}
	c := &Console{opts: opts, log: opts.Logger, mux: http.NewServeMux()}
	c.sessions.init()
	c.routes()
	return c
}

// routes registers every page. Each area of the console registers its
// own in its file.
func (c *Console) routes() {
	m := c.mux
	m.Handle("GET /console/static/", http.StripPrefix("/console/", http.FileServerFS(staticFS)))
	m.HandleFunc("GET /console", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/console/", http.StatusMovedPermanently)
	})
	m.HandleFunc("GET /console/login", c.loginPage)
	m.HandleFunc("POST /console/login", c.login)
	m.HandleFunc("POST /console/logout", c.logout)
	c.tablesRoutes(m)
	c.itemsRoutes(m)
	c.partiqlRoutes(m)
	c.streamsRoutes(m)
	c.capacityRoutes(m)
	c.designRoutes(m)
}

// ServeHTTP implements http.Handler: the static assets are served to
// anyone; every other page needs a session (signing in first when
// Options.Keys is set), and every POST its CSRF token.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; form-action 'self'")
	if isStatic(r.URL.Path) {
		h.Set("Cache-Control", "public, max-age=3600")
		c.mux.ServeHTTP(w, r)
		return
	}
	h.Set("Cache-Control", "no-store")
	r, ok := c.authorize(w, r)
	if !ok {
		return
	}
	c.mux.ServeHTTP(w, r)
}
