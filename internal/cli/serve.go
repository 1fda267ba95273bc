package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dynago/dynago/internal/auth"
	"github.com/dynago/dynago/internal/console"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/designtraffic"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/inproc"
	"github.com/dynago/dynago/internal/pricing"
	"github.com/dynago/dynago/internal/server"
	"github.com/dynago/dynago/internal/throttle"
)

// serveOptions are the flags of "dynago serve".
type serveOptions struct {
	addr        string
	dataDir     string
	inMemory    bool
	logLevel    string
	createDelay time.Duration
	gsiLag      time.Duration
	ttlSweep    time.Duration
	shards      int
	rollover    time.Duration
	throttle    bool
	scale       float64
	splitAfter  time.Duration
	prices      string
	collLimit   int64
	cpuProfile  string
	lenientInts bool
	designs     []string
	strict      bool
	credentials string
	console     bool
	tlsCert     string
	tlsKey      string
	maxConns    int
	readHeader  time.Duration
	idle        time.Duration
	storage     storageOptions
}

func newServeCommand(stdout, stderr io.Writer) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the DynamoDB-compatible server",
		Long: `Run the DynamoDB-compatible server.

Point any AWS SDK or the AWS CLI at the printed endpoint (any credentials,
any region). Data lives in --data-dir (Pebble, synced on every write),
with --in-memory in memory only, or with --storage tikv --pd ... in a TiKV
cluster that any number of dynago nodes serve together (docs/deployment.md). SIGINT or SIGTERM stops the server after
in-flight requests finish.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.storage.set = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { o.storage.set[f.Name] = true })
			return runServe(cmd.Context(), o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8000", "listen address (host:port)")
	f.StringVar(&o.dataDir, "data-dir", "./dynago-data", "data directory for the embedded store")
	f.StringVar(&o.storage.backend, "storage", "pebble", "storage engine: pebble (embedded, in --data-dir) or tikv (a TiKV cluster shared by any number of dynago nodes; needs --pd)")
	addTiKVFlags(f, &o.storage)
	f.BoolVar(&o.inMemory, "in-memory", false, "keep all data in memory; nothing is written to disk")
	f.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.DurationVar(&o.createDelay, "create-delay", 0, "keep new tables and indexes in CREATING for this long (e.g. 2s)")
	f.DurationVar(&o.ttlSweep, "ttl-sweep", 5*time.Second, "how often items past their Time to Live are deleted (DynamoDB: within days; 0: never)")
	f.IntVar(&o.shards, "stream-shards", engine.DefaultStreamShards, "shards a new DynamoDB stream starts with, 1 to 1000 (DynamoDB: about one per partition)")
	f.DurationVar(&o.rollover, "stream-rollover", engine.DefaultStreamRollover, "how long a stream shard that holds records stays open before a child shard continues it, at least 1s (DynamoDB: about 4h; e.g. 10s to exercise shard lineage)")
	f.BoolVar(&o.throttle, "throttle", false, "throttle requests at DynamoDB's limits: 3,000 read and 1,000 write units a second per partition, provisioned throughput with 300 s of burst, OnDemandThroughput maximums")
	f.Float64Var(&o.scale, "capacity-scale", 1, "with --throttle, divide every limit by this (e.g. 100: a partition takes 10 writes a second)")
	f.DurationVar(&o.splitAfter, "heat-split-after", throttle.DefaultHeatSplitAfter, "with --throttle, split a partition that has run hot (80% of its limit, or throttling) this long, when a split divides its traffic")
	f.StringVar(&o.prices, "prices", "", "JSON price table for the insights report's costs (default: us-east-1 on-demand and provisioned prices)")
	f.DurationVar(&o.gsiLag, "gsi-lag", 0, "delay the visibility of global secondary index changes by this long, as DynamoDB's asynchronous GSIs do (e.g. 500ms)")
	f.Int64Var(&o.collLimit, "item-collection-size-limit", engine.DefaultItemCollectionSizeLimit, "most bytes per item collection on tables with local secondary indexes (DynamoDB: 10 GB)")
	f.StringVar(&o.cpuProfile, "cpu-profile", "", "write a Go CPU profile to this file until the server stops")
	f.StringArrayVar(&o.designs, "design", nil, "attach a design file to its table (repeatable): each request is classified against its access patterns, reported by dynago design traffic, GET /design/traffic and the dynago_design_* metrics")
	f.BoolVar(&o.strict, "design-strict", false, "with --design, refuse a Scan no access pattern declares (AccessDeniedException), for dev and CI")
	f.StringVar(&o.credentials, "credentials", "", "verify every request's AWS Signature Version 4 against the access keys in FILE (the AWS shared-credentials format: [profile] sections with aws_access_key_id and aws_secret_access_key), as DynamoDB does; without it any well-formed credentials are accepted")
	f.StringVar(&o.tlsCert, "tls-cert", "", "serve HTTPS (HTTP/1.1 and HTTP/2) with this PEM certificate (chain) on --addr; needs --tls-key; plain HTTP on the port is then refused")
	f.StringVar(&o.tlsKey, "tls-key", "", "the PEM private key of --tls-cert")
	f.IntVar(&o.maxConns, "max-connections", defaultMaxConnections, "most connections served at once; past it a new connection is answered 503 and closed")
	f.DurationVar(&o.readHeader, "read-header-timeout", 30*time.Second, "how long a client may take to send a request's headers (and the TLS handshake) before its connection is closed")
	f.DurationVar(&o.idle, "idle-timeout", 5*time.Minute, "how long an idle keep-alive connection stays open")
	f.BoolVar(&o.console, "console", true, "serve the web console at /console/ (tables, items, queries, PartiQL, streams, capacity, designs); with --credentials it asks for an access key and its secret")
	f.BoolVar(&o.lenientInts, "accept-string-numbers", false, `accept "5" for 5 in integer request members (Limit, ReadCapacityUnits...), as DynamoDB Local does, for GUIs such as dynamodb-admin whose forms send strings; DynamoDB answers SerializationException`)
	return cmd
}

// check validates the numeric flags, naming the one at fault.
func (o serveOptions) check() error {
	switch {
	case o.gsiLag < 0:
		return usageError{fmt.Errorf("--gsi-lag must not be negative")}
	case o.createDelay < 0:
		return usageError{fmt.Errorf("--create-delay must not be negative")}
	case o.ttlSweep < 0:
		return usageError{fmt.Errorf("--ttl-sweep must not be negative")}
	case o.collLimit <= 0:
		return usageError{fmt.Errorf("--item-collection-size-limit must be positive")}
	case o.shards < 1 || o.shards > 1000:
		return usageError{fmt.Errorf("--stream-shards must be within 1..1000")}
	case o.rollover < time.Second:
		return usageError{fmt.Errorf("--stream-rollover must be at least 1s")}
	case !(o.scale >= 1) || math.IsInf(o.scale, 1):
		return usageError{fmt.Errorf("--capacity-scale must be a number, at least 1")}
	case o.splitAfter < time.Second:
		return usageError{fmt.Errorf("--heat-split-after must be at least 1s")}
	case o.readHeader <= 0:
		return usageError{fmt.Errorf("--read-header-timeout must be positive")}
	case o.idle <= 0:
		return usageError{fmt.Errorf("--idle-timeout must be positive")}
	}
	// An empty file name given on purpose (--credentials "$UNSET_VAR")
	// must not quietly serve without authentication or TLS.
	for _, f := range []struct{ name, value string }{{"credentials", o.credentials}, {"tls-cert", o.tlsCert}, {"tls-key", o.tlsKey}} {
		if o.storage.set[f.name] && f.value == "" {
			return usageError{fmt.Errorf("--%s needs a file name (it was given an empty one)", f.name)}
		}
	}
	return nil
}

func parseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, usageError{fmt.Errorf("invalid --log-level %q (want debug, info, warn or error)", s)}
}

// shutdownGrace is how long SIGINT/SIGTERM waits for in-flight requests.
const shutdownGrace = 10 * time.Second

func runServe(ctx context.Context, o serveOptions, stdout, stderr io.Writer) error {
	level, err := parseLevel(o.logLevel)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}

	if err := o.check(); err != nil {
		return err
	}
	var verifier *auth.Verifier
	var keys *auth.Keys
	if o.credentials != "" {
		keys, err = auth.LoadKeys(o.credentials)
		if err != nil {
			return usageError{fmt.Errorf("--credentials: %w", err)}
		}
		verifier = &auth.Verifier{Keys: keys}
		logger.Info("authentication: every request's SigV4 signature is verified", "credentials", o.credentials, "keys", keys.Len())
	} else {
		logger.Info("authentication: any well-formed credentials are accepted, signatures are not verified (serve --credentials FILE verifies them)")
	}
	ln, scheme, err := listen(o, logger)
	if err != nil {
		return err
	}
	store, where, err := openStore(o, logger)
	if err != nil {
		ln.Close()
		return err
	}
	opts := engine.Options{
		Logger: logger, CreateDelay: o.createDelay, GSILag: o.gsiLag, TTLSweep: o.ttlSweep, ItemCollectionSizeLimit: o.collLimit,
		StreamShards: o.shards, StreamRollover: o.rollover, StreamUpkeep: min(time.Second, o.rollover/4),
	}
	if o.throttle {
		opts.Throttle = &throttle.Options{Scale: o.scale, HeatSplitAfter: o.splitAfter}
	}
	if o.prices != "" {
		if opts.Prices, err = pricing.Load(o.prices); err != nil {
			store.Close()
			ln.Close()
			return usageError{fmt.Errorf("--prices: %w", err)}
		}
	}
	traffic, err := loadDesigns(o.designs)
	if err != nil {
		store.Close()
		ln.Close()
		return usageError{err}
	}
	if o.strict && traffic == nil {
		logger.Warn("--design-strict has no effect without --design")
	}
	metrics := server.NewMetrics()
	so := server.Options{Logger: logger, Metrics: metrics, AcceptStringIntegers: o.lenientInts, Verifier: verifier,
		Endpoints: map[string]http.Handler{"/design/traffic": designtraffic.Handler(traffic)}}
	if traffic != nil {
		c, err := designtraffic.New(traffic, o.strict, metrics.Registerer())
		if err != nil {
			store.Close()
			ln.Close()
			return err
		}
		so.Intercept = c
	}
	opts.Observer = metrics
	eng := engine.New(store, opts)
	srv := server.New(eng, so)
	if o.console {
		srv.SetConsole(console.New(console.Options{API: srv, Engine: eng, Keys: keys, DesignFiles: o.designs, Traffic: traffic,
			Throttle: o.throttle, CapacityScale: o.scale, Logger: logger}))
	}
	var fresh freshConns
	var act activity
	httpSrv := &http.Server{
		ConnState:         fresh.track,
		Handler:           act.wrap(srv),
		ReadHeaderTimeout: o.readHeader,
		// A request body (at most 16 MB) must arrive within a minute, so
		// that a stalled client cannot hold a connection (or shutdown)
		// forever.
		ReadTimeout: max(time.Minute, o.readHeader),
		IdleTimeout: o.idle,
		ErrorLog:    log.New(httpErrorLog{logger}, "", 0),
	}
	if o.throttle {
		where += fmt.Sprintf("; throttling at DynamoDB's limits divided by %g", o.scale)
	} else {
		if o.scale != 1 {
			logger.Warn("--capacity-scale has no effect without --throttle")
		}
		if o.splitAfter != throttle.DefaultHeatSplitAfter {
			logger.Warn("--heat-split-after has no effect without --throttle")
		}
	}
	srv.MarkReady()
	fmt.Fprintf(stdout, "dynago listening on %s://%s (data: %s)\n", scheme, ln.Addr(), where)
	if o.console {
		fmt.Fprintf(stdout, "web console: %s://%s/console/\n", scheme, ln.Addr())
	}

	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()
	idleCtx, idleStop := context.WithCancel(context.Background())
	idleDone := make(chan struct{})
	go func() {
		defer close(idleDone)
		act.whenIdle(idleCtx, idleAfter, func() { releaseMemory(store, logger) })
	}()

	select {
	case err = <-serveErr:
	case <-ctx.Done():
		stop() // a second signal now ends the process at once
		logger.Info("shutting down: waiting for in-flight requests")
		shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		// Connections that never sent a request would hold Shutdown for
		// 5 s (golang/go#22682); SDKs open such spares under load.
		go func() {
			for shutdownCtx.Err() == nil {
				fresh.closeAll()
				time.Sleep(50 * time.Millisecond)
			}
		}()
		err = httpSrv.Shutdown(shutdownCtx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			logger.Warn("shutdown: requests still running after the grace period; closing their connections", "grace", shutdownGrace)
			err = httpSrv.Close()
		}
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	idleStop()
	select {
	case <-idleDone:
	case <-time.After(shutdownGrace):
		// A memtable flush stuck on a failing disk must not hold the
		// shutdown: closeStorage fences and abandons a broken store.
		logger.Warn("shutdown: the idle memory release is still flushing; closing the store anyway")
	}
	if cerr := closeStorage(eng, store, logger); err == nil {
		err = cerr
	}
	if err == nil {
		logger.Info("stopped: storage closed")
	}
	return err
}

// httpErrorLog receives net/http's own error lines: at warn level, except
// TLS handshake failures, at debug: they are the client's (a certificate
// it does not trust, plain HTTP on the TLS port), and a retrying client
// would otherwise log one every few seconds.
type httpErrorLog struct{ l *slog.Logger }

func (h httpErrorLog) Write(p []byte) (int, error) {
	msg := strings.TrimRight(string(p), "\n")
	level := slog.LevelWarn
	if strings.HasPrefix(msg, "http: TLS handshake error") {
		level = slog.LevelDebug
	}
	h.l.Log(context.Background(), level, msg)
	return len(p), nil
}

// storageCloseGrace bounds how long stopping waits for the engine's
// background work and the store to close, after the requests' grace.
const storageCloseGrace = 10 * time.Second

// closeStorage stops the engine and closes the store, giving up after
// storageCloseGrace whatever state storage is in (the Pebble store itself
// returns within seconds after a disk fault; a TiKV cluster that stopped
// answering may not): SIGTERM always ends the process.
func closeStorage(eng *engine.Engine, store io.Closer, logger *slog.Logger) error {
	done := make(chan error, 1)
	go func() {
		eng.Close()
		done <- store.Close()
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(storageCloseGrace):
		logger.Warn("shutdown: storage did not close in time; exiting anyway (acknowledged writes are durable)", "grace", storageCloseGrace)
		return nil
	}
}

// freshConns tracks the server's connections that have not yet sent a
// request (http.StateNew), so that shutdown can close them at once.
type freshConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (f *freshConns) track(c net.Conn, state http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if state == http.StateNew {
		if f.conns == nil {
			f.conns = map[net.Conn]struct{}{}
		}
		f.conns[c] = struct{}{}
		return
	}
	delete(f.conns, c)
}

func (f *freshConns) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		c.Close()
		delete(f.conns, c)
	}
}

// loadDesigns reads serve's --design files into a traffic classifier (nil
// without files); a file that does not parse is an error naming its first
// problem.
func loadDesigns(files []string) (*design.Traffic, error) {
	if len(files) == 0 {
		return nil, nil
	}
	t, err := inproc.LoadDesigns(files)
	if err != nil {
		return nil, fmt.Errorf("--design: %w", err)
	}
	return t, nil
}
