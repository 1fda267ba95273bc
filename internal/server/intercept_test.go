package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	sigv4 "github.com/dynago/dynago/internal/auth" // server_test.go has a const auth
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/server"
)

// recorder is an Interceptor that notes its calls and refuses what
// refuse says.
type recorder struct {
	mu     sync.Mutex
	refuse error
	calls  []string
}

func (r *recorder) Before(_ context.Context, op string, in any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf("Before %s %T", op, in))
	return r.refuse
}

func (r *recorder) After(_ context.Context, op string, in, out any, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	code := "ok"
	if e, ok := ddberr.As(err); ok {
		code = string(e.Code)
	}
	r.calls = append(r.calls, fmt.Sprintf("After %s %T %T %s", op, in, out, code))
}

// take returns the calls noted since the last take, and sets what the
// next calls refuse.
func (r *recorder) take(refuse error) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := r.calls
	r.calls, r.refuse = nil, refuse
	return calls
}

// TestInterceptor: Options.Intercept sees every valid API and Streams
// request before the engine runs it and after, with the input and the
// output or the engine's error; an error from Before is the answer,
// rendered like any other, and the engine does not run the request; a
// request refused before it is valid reaches neither method.
func TestInterceptor(t *testing.T) {
	rec := &recorder{}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ts := startServer(t, engine.Options{Now: func() time.Time { return now }}, server.Options{Intercept: rec, Logger: slog.New(slog.DiscardHandler)}) // "broken hook" is logged
	for _, s := range []struct {
		name, op, body string
		refuse         error
		status         int
		want           string // in the body
		calls          []string
	}{
		{"a call that runs", "CreateTable", `{"TableName":"tbl","BillingMode":"PAY_PER_REQUEST","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}]}`, nil,
			200, `"TableStatus"`, []string{"Before CreateTable *api.CreateTableInput", "After CreateTable *api.CreateTableInput *api.TableDescriptionOutput ok"}},
		{"refused with a DynamoDB error", "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"}}}`, ddberr.New(ddberr.AccessDeniedException, "not you"),
			400, `{"__type":"com.amazon.coral.service#AccessDeniedException","message":"not you"}`, []string{"Before PutItem *api.PutItemInput"}},
		{"refused with another error", "PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"}}}`, fmt.Errorf("broken hook"),
			500, `"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError"`, []string{"Before PutItem *api.PutItemInput"}},
		{"the refused writes did not run", "GetItem", `{"TableName":"tbl","Key":{"pk":{"S":"a"}}}`, nil,
			200, `{}`, []string{"Before GetItem *api.GetItemInput", "After GetItem *api.GetItemInput *api.ItemOutput ok"}},
		{"the engine's error", "GetItem", `{"TableName":"nope","Key":{"pk":{"S":"a"}}}`, nil,
			400, `ResourceNotFoundException`, []string{"Before GetItem *api.GetItemInput", "After GetItem *api.GetItemInput <nil> ResourceNotFoundException"}},
		{"a Streams call", "DynamoDBStreams_20120810.ListStreams", `{}`, nil,
			200, `"Streams"`, []string{"Before ListStreams *api.ListStreamsInput", "After ListStreams *api.ListStreamsInput *api.ListStreamsOutput ok"}},
		{"invalid: no call", "GetItem", `{"TableName":"tbl"}`, nil, 400, `ValidationException`, nil},
		{"not JSON: no call", "GetItem", `{`, nil, 400, `SerializationException`, nil},
		{"an unknown operation: no call", "Nope", `{}`, nil, 400, `UnknownOperationException`, nil},
	} {
		rec.take(s.refuse)
		status, _, body := call(t, ts, s.op, s.body)
		if status != s.status || !strings.Contains(string(body), s.want) {
			t.Errorf("%s: %d %s, want %d %s", s.name, status, body, s.status, s.want)
		}
		if got := rec.take(nil); fmt.Sprint(got) != fmt.Sprint(s.calls) {
			t.Errorf("%s: calls %q, want %q", s.name, got, s.calls)
		}
	}
}

// TestEndpoints: Options.Endpoints are served on GET at their exact path
// (the query is theirs), behind the signature check of the server's own
// GET endpoints, which take precedence; other paths stay 404.
func TestEndpoints(t *testing.T) {
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "echo "+r.URL.RawQuery) })
	opts := engine.Options{Now: time.Now}
	endpoints := map[string]http.Handler{"/echo": echo, "/metrics": echo}
	metrics := server.NewMetrics()
	extra := prometheus.NewCounter(prometheus.CounterOpts{Name: "test_extra_total", Help: "A metric of another package."})
	if err := metrics.Registerer().Register(extra); err != nil {
		t.Fatal(err)
	}
	extra.Inc()
	open := startServer(t, opts, server.Options{Endpoints: endpoints, Metrics: metrics})
	signed := startServer(t, opts, server.Options{Endpoints: endpoints, Verifier: &sigv4.Verifier{}})
	for _, c := range []struct {
		name, url string
		status    int
		want      string
	}{
		{"an endpoint", open.URL + "/echo?table=x", 200, "echo table=x"},
		{"the server's own path wins", open.URL + "/metrics", 200, "test_extra_total 1"},
		{"another path", open.URL + "/echo/more", 404, "<UnknownOperationException/>"},
		{"an unsigned request with a Verifier", signed.URL + "/echo", 400, "MissingAuthenticationTokenException"},
		{"without Metrics the path is free", signed.URL + "/metrics", 400, "MissingAuthenticationTokenException"},
	} {
		resp, err := http.Get(c.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.want) {
			t.Errorf("%s: %d %s, want %d %s", c.name, resp.StatusCode, body, c.status, c.want)
		}
	}
}
