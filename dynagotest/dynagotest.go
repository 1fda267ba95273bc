// Package dynagotest runs a DynamoDB-compatible server inside a Go test,
// in the spirit of net/http/httptest: an in-memory dynago on a loopback
// port, with an aws-sdk-go-v2 client for it, instead of DynamoDB Local in
// a container.
//
// New starts a server for a test and stops it when the test ends:
//
//	func TestOrders(t *testing.T) {
//		srv := dynagotest.New(t)
//		db := srv.Client() // *dynamodb.Client
//		_, err := db.CreateTable(t.Context(), &dynamodb.CreateTableInput{...})
//		...
//	}
//
// Every server has a store of its own, in memory: tests never see each
// other's tables, may run in parallel, and leave nothing behind. A server
// starts in well under a millisecond and closes as fast (BenchmarkNew),
// so a server per test costs nothing noticeable. Start is New for code
// that has no testing.TB (TestMain, examples); its caller closes the
// server.
//
// The server speaks DynamoDB's and DynamoDB Streams' JSON protocol, as
// dynago serve --in-memory does, and serves its GET endpoints beside the
// API (GET / for health, /metrics, /insights, /design/traffic). Options
// give a test what it cannot get from DynamoDB on demand: a design file's
// traffic classification (WithDesign, WithDesignStrict), throttling at
// scaled-down limits (WithThrottling), asynchronous GSIs (WithGSILag),
// tables that take time to become ACTIVE (WithCreateDelay), a clock of
// the test's own for TTL and streams (WithClock, WithTTLSweep), and
// stream shards that roll over quickly (WithStreamRollover).
//
// Client returns a DynamoDB client with dummy credentials, region
// us-east-1 and retries suited to tests; Config is the same
// configuration for other clients, such as DynamoDB Streams':
//
//	streams := dynamodbstreams.NewFromConfig(srv.Config())
//
// As in DynamoDB, a table's stream has several shards at once (four, as
// dynago serve's --stream-shards default), each item's records in the
// shard of its partition key: a consumer reads every shard DescribeStream
// lists, not the first alone. Expired items are returned by reads until
// the TTL sweep deletes them (every 5 s unless WithTTLSweep says
// otherwise), as DynamoDB returns them until its own deletion.
//
// The package is part of the module github.com/dynago/dynago, which needs
// the Go version on its go.mod's go line; the first test build compiles
// the server's storage engine (Pebble) too, a minute or two on a small
// machine, cached after that. Examples are in example_test.go (go doc does
// not print them; pkg.go.dev and go test -run Example do).
package dynagotest

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynago/dynago/internal/inproc"
)

// Server is a running in-process dynago. Its methods are safe for
// concurrent use.
type Server struct {
	s *inproc.Server
}

// New starts a server configured by opts for the test or benchmark tb
// and registers its Close with tb.Cleanup. It must be called from the
// goroutine running tb. If the server cannot start (an option is invalid,
// a design file does not load, no loopback port is free), New reports it
// with tb.Fatal. The server's own warnings and errors (a background task
// that failed, a request that panicked) go to tb.Log.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := start(opts, slog.New(slog.NewTextHandler(tbWriter{tb}, &slog.HandlerOptions{
		Level: slog.LevelWarn,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})))
	if err != nil {
		tb.Fatalf("dynagotest: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.s.Close(); err != nil {
			tb.Errorf("dynagotest: closing the server: %v", err)
		}
	})
	return s
}

// Start starts a server configured by opts, as New does, for code that
// has no testing.TB: a TestMain sharing one server among a package's
// tests, an example, a program. The caller must Close it. The error says
// which option is invalid or which design file does not load, or is the
// listener's. The server logs nothing.
func Start(opts ...Option) (*Server, error) {
	return start(opts, nil)
}

func start(opts []Option, logger *slog.Logger) (*Server, error) {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	io, err := o.inproc()
	if err != nil {
		return nil, err
	}
	io.Logger = logger
	s, err := inproc.Start(io)
	if err != nil {
		return nil, err
	}
	return &Server{s: s}, nil
}

// Endpoint returns the server's base URL, "http://127.0.0.1:PORT" (no
// trailing slash): an AWS SDK's endpoint, or the prefix of the GET
// endpoints (Endpoint()+"/design/traffic").
func (s *Server) Endpoint() string { return s.s.Endpoint() }

// Client returns an aws-sdk-go-v2 DynamoDB client for the server, built
// from Config on the first call; every call returns the same client. A
// request that gets no answer within 10 s fails; a failed one (a
// throttled request, a lost connection) is retried up to 3 attempts in
// all, at most 100 ms apart, without the SDK's retry quota (which would
// stop retrying after many failures). A call that must see the first
// error, such as a test of throttling, passes
//
//	func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }
func (s *Server) Client() *dynamodb.Client { return s.s.Client() }

// Config returns an aws-sdk-go-v2 configuration for the server, for
// clients other than Client (dynamodbstreams.NewFromConfig(srv.Config()))
// or to adjust before building one: region us-east-1, static dummy
// credentials (access key "dynago"; the server accepts any), BaseEndpoint
// set to Endpoint, an HTTP client of the server's own, and Client's
// timeouts and retries. Each call returns a copy.
func (s *Server) Config() aws.Config { return s.s.Config() }

// Close stops the server: it stops accepting connections, waits up to
// 5 s for requests in flight, closes every connection and frees the
// store; later requests fail to connect. Calling Close more than once,
// or before the Cleanup of New calls it, is safe.
func (s *Server) Close() { s.s.Close() }

// tbWriter writes each log record (one Write call per record, as
// slog.TextHandler makes them) to tb.Log.
type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.tb.Log("dynagotest: " + strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
