// Package inproc runs a dynago server inside the calling process, in
// memory, on a loopback port: the one wiring of store, engine, HTTP edge
// and (optionally) the design traffic classifier that runs in-process,
// behind dynago design run without --endpoint and behind the public
// package dynagotest (which the generated design packages' tests in
// examples/gen use). The production server, dynago serve, wires its own
// (internal/cli), with its listener, TLS and shutdown.
package inproc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/designtraffic"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/sdkhttp"
	"github.com/dynago/dynago/internal/server"
	"github.com/dynago/dynago/internal/storage/pebble"
)

// Options configure Start. The zero value is an in-memory dynago that
// logs nothing, with the engine's zero Options (no TTL sweep, no stream
// upkeep, no throttling) and no design attached.
type Options struct {
	// Engine configures the engine (clock, create delay, GSI lag, TTL
	// sweep, throttling, streams) exactly as engine.New takes it; its
	// Logger and Observer are Start's (Logger below, the metrics).
	Engine engine.Options
	// Designs are design files attached as dynago serve --design FILE
	// attaches them: each request on a design's table is classified
	// against its access patterns, reported at GET /design/traffic and in
	// the dynago_design_* metrics. A file that cannot be read or has a
	// problem fails Start.
	Designs []string
	// Strict, with Designs, refuses a Scan that no access pattern
	// declares with AccessDeniedException (serve --design-strict).
	Strict bool
	// Logger receives the store's, engine's and server's log records;
	// nil discards them.
	Logger *slog.Logger
}

// Server is a running in-process dynago. Its methods are safe for
// concurrent use.
type Server struct {
	endpoint string
	hs       *http.Server
	eng      *engine.Engine
	store    *pebble.Store

	cfgOnce   sync.Once
	cfg       aws.Config
	transport *http.Transport
	clientOne sync.Once
	client    *dynamodb.Client

	closeOnce sync.Once
}

// Start starts a dynago on a store of its own in memory, listening on
// 127.0.0.1 on a free port, and returns it once it answers. The error is
// the design files' (naming the file and its first problem), the
// store's, or the listener's.
func Start(o Options) (*Server, error) {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	metrics := server.NewMetrics()
	so := server.Options{Logger: logger, Metrics: metrics}
	if len(o.Designs) > 0 {
		t, err := LoadDesigns(o.Designs)
		if err != nil {
			return nil, fmt.Errorf("design: %w", err)
		}
		c, err := designtraffic.New(t, o.Strict, metrics.Registerer())
		if err != nil {
			return nil, err
		}
		so.Intercept = c
		so.Endpoints = map[string]http.Handler{"/design/traffic": designtraffic.Handler(t)}
	} else {
		so.Endpoints = map[string]http.Handler{"/design/traffic": designtraffic.Handler(nil)}
	}
	store, err := pebble.Open(pebble.Options{InMemory: true, ReadCached: catalog.IsKey, Logger: logger})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		store.Close()
		return nil, err
	}
	eo := o.Engine
	eo.Logger, eo.Observer = logger, metrics
	eng := engine.New(store, eo)
	srv := server.New(eng, so)
	srv.MarkReady()
	s := &Server{endpoint: "http://" + ln.Addr().String(), eng: eng, store: store,
		hs: &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)},
		// The clients' own transport (it starts nothing until used), so
		// that Close can drop their idle connections to this server.
		transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
			MaxIdleConns:        100,
			MaxIdleConnsPerHost: 100,
			IdleConnTimeout:     30 * time.Second,
		}}
	go s.hs.Serve(ln)
	return s, nil
}

// LoadDesigns reads design files into a traffic classifier, as serve
// --design does; a file that does not parse or has a problem is an error
// naming it and its first problem (its caller says which option gave the
// files).
func LoadDesigns(files []string) (*design.Traffic, error) {
	var ds []*design.Design
	for _, f := range files {
		d, diags, err := design.Load(f)
		if err != nil {
			return nil, err
		}
		if len(diags) > 0 {
			return nil, fmt.Errorf("%s (dynago design check %s lists every problem)", diags[0], f)
		}
		ds = append(ds, d)
	}
	return design.NewTraffic(ds)
}

// Endpoint is the server's URL, http://127.0.0.1:PORT.
func (s *Server) Endpoint() string { return s.endpoint }

// Client timeouts and retries: an in-process server answers within
// milliseconds, so a request that takes seconds has hung; retries wait
// little, since nothing but throttling (asked for) makes the server
// refuse.
const (
	requestTimeout = 10 * time.Second
	maxAttempts    = 3
	maxBackoff     = 100 * time.Millisecond
)

// Config is an aws-sdk-go-v2 configuration for the server: static dummy
// credentials, region us-east-1, BaseEndpoint set, an HTTP client of the
// server's own (its idle connections closed by Close; request bodies'
// WriteTo hidden, sdkhttp.NoWriteTo) whose requests fail after 10 s, and
// the standard retryer with 3 attempts, backoff of at most 100 ms and no
// client-side retry quota. It is built on first use; each call returns a
// copy.
func (s *Server) Config() aws.Config {
	s.cfgOnce.Do(func() {
		s.cfg = aws.Config{
			Region:           "us-east-1",
			Credentials:      credentials.NewStaticCredentialsProvider("dynago", "dynago", ""),
			BaseEndpoint:     aws.String(s.endpoint),
			HTTPClient:       sdkhttp.NoWriteTo{Doer: &http.Client{Transport: s.transport, Timeout: requestTimeout}},
			RetryMaxAttempts: maxAttempts,
			Retryer: func() aws.Retryer {
				return retry.NewStandard(func(o *retry.StandardOptions) {
					o.MaxAttempts, o.MaxBackoff, o.RateLimiter = maxAttempts, maxBackoff, ratelimit.None
				})
			},
		}
	})
	return s.cfg.Copy()
}

// Client is a DynamoDB client on Config, built on first use; every call
// returns the same one.
func (s *Server) Client() *dynamodb.Client {
	s.clientOne.Do(func() { s.client = dynamodb.NewFromConfig(s.Config()) })
	return s.client
}

// closeGrace bounds how long Close waits for requests in flight.
const closeGrace = 5 * time.Second

// Close stops the server: it stops accepting connections, waits up to
// 5 s for requests in flight, then closes every connection, stops the
// engine's background work and frees the store. Calling it again does
// nothing; the error is the store's, from the first call.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
		defer cancel()
		if serr := s.hs.Shutdown(ctx); errors.Is(serr, context.DeadlineExceeded) {
			s.hs.Close()
		}
		s.eng.Close()
		err = s.store.Close()
		s.transport.CloseIdleConnections()
		// A closed server may stay referenced (a test's Cleanup list):
		// let its store's memory go.
		s.eng, s.store = nil, nil
	})
	return err
}
