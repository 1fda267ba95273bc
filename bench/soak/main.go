// Command soak runs dynago on disk under a mixed DynamoDB workload from
// many aws-sdk-go-v2 clients, kills it with SIGKILL every -kill-every and
// restarts it on the same data directory, and at the end checks that
// nothing acknowledged was lost and that every copy of the data agrees:
//
//	(1) bank: the balances of a fixed set of accounts, moved between by
//	    TransactWriteItems, still add up to the opening total, and every
//	    acknowledged transfer applied exactly once;
//	(2) every acknowledged write is read back by a strongly consistent
//	    GetItem (each client owns its keys and models them exactly);
//	(3) the DynamoDB stream, replayed record by record, equals the table;
//	(4) every secondary index equals the projection of its table;
//	(5) the server's RSS, sampled at the same age before each kill, did
//	    not grow across the run;
//	(6) the server's logs show no panic or error, and no request got an
//	    answer it should not have.
//
// An operation whose answer was lost because the server died mid-request
// is "unknown": it may or may not have applied. The clients learn which
// from the restarted server (see worker.go, bank.go) and never count it
// as acknowledged or as lost.
//
// It exits 1 when a check fails. Traffic goes to 127.0.0.1 only.
//
// Usage:
//
//	go run ./bench/soak [-bin dynago] [-clients 16] [-duration 10m] [-kill-every 1m] [-seed N] [-keep]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

type config struct {
	bin          string
	clients      int
	duration     time.Duration
	killEvery    time.Duration
	seed         uint64
	keep         bool
	ttlSweep     time.Duration
	rollover     time.Duration
	reqTimeout   time.Duration
	rssTolerance float64 // MiB
	rssGrowth    float64 // fraction
	checkTimeout time.Duration
	sabotage     bool
}

func main() { os.Exit(run()) }

func logf(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
}

func run() int {
	var cfg config
	flag.StringVar(&cfg.bin, "bin", "", "dynago binary to run (default: go build ./cmd/dynago into the temp dir)")
	flag.IntVar(&cfg.clients, "clients", 16, "concurrent clients, each with one request in flight")
	flag.DurationVar(&cfg.duration, "duration", 10*time.Minute, "server uptime under load (the wall time adds the restarts and the checks)")
	flag.DurationVar(&cfg.killEvery, "kill-every", time.Minute, "SIGKILL the server and restart it this long after it came up (0: never)")
	flag.Uint64Var(&cfg.seed, "seed", 0, "seed of the clients' random choices (0: from the clock; printed)")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the temp dir (data dir, server logs) also when every check passes")
	flag.DurationVar(&cfg.ttlSweep, "ttl-sweep", time.Second, "the server's --ttl-sweep")
	flag.DurationVar(&cfg.rollover, "stream-rollover", 10*time.Second, "the server's --stream-rollover")
	flag.DurationVar(&cfg.reqTimeout, "request-timeout", 20*time.Second, "timeout of one request (a timed-out write is an unknown outcome)")
	flag.Float64Var(&cfg.rssTolerance, "rss-tolerance", 64, "check 5 fails when the last RSS sample exceeds the first steady one by more than this many MiB")
	flag.Float64Var(&cfg.rssGrowth, "rss-growth", 0.25, "... plus this fraction of the first steady sample")
	flag.DurationVar(&cfg.checkTimeout, "check-timeout", 60*time.Second, "how long the final checks wait for the stream and the GSIs to catch up")
	flag.BoolVar(&cfg.sabotage, "sabotage", false, "a test of the checks: after the traffic, tamper behind the clients' backs (an account, an owned key, one stream record, the table the index check compares with) so that checks 1 to 4 must FAIL")
	flag.Parse()
	if cfg.clients < 1 || cfg.duration <= 0 || cfg.killEvery < 0 {
		fmt.Fprintln(os.Stderr, "soak: -clients and -duration must be positive, -kill-every not negative")
		return 2
	}
	if cfg.seed == 0 {
		cfg.seed = uint64(time.Now().UnixNano())
	}

	tmp, err := os.MkdirTemp("", "dynago-soak-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	keep := cfg.keep
	defer func() {
		if keep {
			logf("kept %s (data dir, server logs)", tmp)
		} else {
			os.RemoveAll(tmp)
		}
	}()

	if cfg.bin == "" {
		cfg.bin = filepath.Join(tmp, "dynago")
		logf("== building dynago: go build -o %s ./cmd/dynago", cfg.bin)
		cmd := exec.Command("go", "build", "-o", cfg.bin, "./cmd/dynago")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "soak: build:", err)
			return 1
		}
	}
	srv, err := newServer(cfg.bin, filepath.Join(tmp, "data"), tmp,
		[]string{"--ttl-sweep", cfg.ttlSweep.String(), "--stream-rollover", cfg.rollover.String()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	defer srv.kill()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		s, ok := <-sigs
		if !ok {
			return
		}
		fmt.Fprintf(os.Stderr, "soak: %v: killing the server and stopping\n", s)
		srv.kill()
		cancel()
		select {
		case <-sigs:
		case <-time.After(10 * time.Second):
		}
		srv.kill()
		os.Exit(130)
	}()

	code := soak(ctx, &cfg, srv, tmp)
	if code != 0 {
		keep = true
	}
	return code
}

// rssSample is one pre-kill sample.
type rssSample struct {
	gen   int
	age   time.Duration
	bytes int64
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// soak runs the whole thing and returns the exit code.
func soak(ctx context.Context, cfg *config, srv *server, tmp string) int {
	logf("== soak: dynago %s on 127.0.0.1, %d clients, %v of uptime under load, SIGKILL every %v, -seed %d",
		cfg.bin, cfg.clients, cfg.duration, cfg.killEvery, cfg.seed)
	logf("   data dir and server logs in %s", tmp)
	abort := func(format string, args ...any) int {
		fmt.Printf("FAIL: "+format+"\n", args...)
		for _, l := range srv.logFiles() {
			fmt.Printf("--- %s (last lines)\n%s\n", l, tail(l, 15))
		}
		return 1
	}
	if err := srv.start(ctx); err != nil {
		return abort("server did not start: %v", err)
	}
	readyAt := time.Now()
	db, sc, err := newClients(ctx, srv.endpoint(), cfg.clients+4)
	if err != nil {
		return abort("clients: %v", err)
	}
	arn, err := setupTable(ctx, db)
	if err != nil {
		return abort("setup: %v", err)
	}
	viol := newViolations()
	reader := newStreamReader(sc, arn, srv, viol)
	readerCtx, stopReader := context.WithCancel(ctx)
	defer stopReader()
	var readerDone sync.WaitGroup
	readerDone.Add(1)
	go func() { defer readerDone.Done(); reader.run(readerCtx) }()

	// The clients' context outlives the traffic by a grace period, so that
	// unknown outcomes can be resolved after the stop.
	clientCtx, cancelClients := context.WithCancel(ctx)
	defer cancelClients()
	var stop atomic.Bool
	workers := make([]*worker, cfg.clients)
	var wg sync.WaitGroup
	trafficStart := time.Now()
	for i := range workers {
		workers[i] = newWorker(i, cfg, clientCtx, db, srv, viol)
		wg.Add(1)
		go func(w *worker) { defer wg.Done(); w.run(&stop) }(workers[i])
	}

	gens := 1
	if cfg.killEvery > 0 {
		gens = int((cfg.duration + cfg.killEvery - 1) / cfg.killEvery)
	}
	lead := min(time.Second, cfg.killEvery/5)
	var samples []rssSample
	var restarts []time.Duration
	wait := func(until time.Time) error {
		select {
		case <-time.After(time.Until(until)):
			return nil
		case msg := <-srv.died:
			return fmt.Errorf("%s", msg)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for g := 1; g <= gens; g++ {
		life := cfg.duration
		if cfg.killEvery > 0 {
			life = cfg.killEvery
			if g == gens {
				life = cfg.duration - time.Duration(gens-1)*cfg.killEvery
			}
		}
		if cfg.killEvery > 0 && life >= cfg.killEvery {
			if err := wait(readyAt.Add(cfg.killEvery - lead)); err != nil {
				stop.Store(true)
				return abort("%v", err)
			}
			if b, err := srv.rss(); err == nil {
				samples = append(samples, rssSample{gen: g, age: time.Since(readyAt), bytes: b})
			}
		}
		if err := wait(readyAt.Add(life)); err != nil {
			stop.Store(true)
			return abort("%v", err)
		}
		rss := "-"
		if len(samples) > 0 && samples[len(samples)-1].gen == g {
			rss = fmt.Sprintf("%.1f MiB", mib(samples[len(samples)-1].bytes))
		}
		if g == gens {
			logf("t=%5.1fs server %d: %d operations so far, RSS %s; stopping the clients", time.Since(trafficStart).Seconds(), g, progress.Load(), rss)
			break
		}
		t0 := time.Now()
		srv.kill()
		if err := srv.start(ctx); err != nil {
			stop.Store(true)
			return abort("server %d did not come up after the SIGKILL: %v", g+1, err)
		}
		readyAt = time.Now()
		restarts = append(restarts, readyAt.Sub(t0))
		logf("t=%5.1fs server %d: %d operations so far, RSS %s; SIGKILL, server %d up again in %.2f s",
			time.Since(trafficStart).Seconds(), g, progress.Load(), rss, g+1, readyAt.Sub(t0).Seconds())
	}
	stop.Store(true)
	trafficEnd := time.Now()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cancelClients() // unknown outcomes still waiting stay unresolved
		<-done
	case <-ctx.Done():
		return 1
	}
	traffic := trafficEnd.Sub(trafficStart)

	if cfg.sabotage {
		if err := sabotage(ctx, db, workers[0], reader); err != nil {
			return abort("sabotage: %v", err)
		}
	}

	// One more SIGKILL with the clients stopped: the checks read what the
	// server recovers from disk.
	t0 := time.Now()
	srv.kill()
	if err := srv.start(ctx); err != nil {
		return abort("server did not come up after the final SIGKILL: %v", err)
	}
	restarts = append(restarts, time.Since(t0))
	logf("t=%5.1fs clients stopped; final SIGKILL, server %d up again in %.2f s; checking",
		time.Since(trafficStart).Seconds(), gens+1, time.Since(t0).Seconds())

	st := newStats()
	var xfers []*xfer
	for _, w := range workers {
		st.add(w.st)
		xfers = append(xfers, w.xfers...)
	}
	chk := &checker{db: db, srv: srv, viol: viol, st: st}
	table, left, err := chk.quiesce(ctx, cfg.checkTimeout)
	if err != nil {
		return abort("reading the table for the checks: %v", err)
	}
	var results []result
	results = append(results, chk.checkBank(ctx, table, xfers))
	results = append(results, chk.checkModel(ctx, workers))
	sr := chk.checkStream(ctx, reader, table, cfg.checkTimeout)
	if left > 0 {
		sr.detail = append(sr.detail, fmt.Sprintf("(%d expired items still in the table after %v)", left, cfg.checkTimeout))
	}
	results = append(results, sr)
	ixTable := table
	if cfg.sabotage {
		ixTable = dropOne(table, "X#")
	}
	results = append(results, chk.checkIndexes(ctx, ixTable, cfg.checkTimeout))
	results = append(results, checkRSS(cfg, samples))
	results = append(results, checkHealth(srv, st))
	stopReader()
	readerDone.Wait()

	printFigures(cfg, st, traffic, restarts, samples, reader, xfers, len(table))
	fmt.Println("== checks")
	failed := 0
	for _, r := range results {
		verdict := "PASS"
		if !r.pass {
			verdict = "FAIL"
			failed++
		}
		fmt.Printf("%s (%d) %s\n", verdict, r.n, r.name)
		for _, d := range r.detail {
			fmt.Printf("       %s\n", d)
		}
	}
	if failed > 0 {
		fmt.Printf("== soak FAILED: %d of %d checks (-seed %d); data dir and server logs kept in %s\n", failed, len(results), cfg.seed, tmp)
		return 1
	}
	fmt.Printf("== soak passed: %d checks\n", len(results))
	return 0
}

// checkRSS compares the last pre-kill RSS sample with the first steady
// one: the sample of the first restarted server, which like every later
// one opened the data directory that earlier servers wrote (the very
// first server starts empty and also created the table). Every sample is
// taken at the same age of its server, so the series shows growth that a
// restart does not reset: memory that grows with the data or the run.
// The tolerance (64 MiB + 25% by default) covers what may grow with the
// data without any leak: Pebble's memtable (up to 64 MiB, refilled on
// open from the WAL) and block cache (64 MiB) fill as the data grows,
// and the Go heap's size at any instant depends on where the GC cycle is
// (up to twice the live heap with GOGC=100).
func checkRSS(cfg *config, samples []rssSample) result {
	r := result{n: 5, name: "server memory did not grow across the run", pass: true}
	parts := make([]string, len(samples))
	for i, s := range samples {
		parts[i] = fmt.Sprintf("%.1f", mib(s.bytes))
	}
	if len(samples) < 2 {
		r.detail = append(r.detail, fmt.Sprintf("VmRSS (MiB): %s", strings.Join(parts, ", ")))
		r.detail = append(r.detail, "fewer than 2 samples: nothing to compare (needs -kill-every > 0 and -duration >= 2 x -kill-every)")
		return r
	}
	r.detail = append(r.detail, fmt.Sprintf("VmRSS (MiB) of servers 1..%d at %.1f s of age: %s", len(samples), samples[0].age.Seconds(), strings.Join(parts, ", ")))
	base := samples[0]
	if len(samples) >= 3 {
		base = samples[1]
	}
	last := samples[len(samples)-1]
	limit := float64(base.bytes)*(1+cfg.rssGrowth) + cfg.rssTolerance*(1<<20)
	r.detail = append(r.detail, fmt.Sprintf("last %.1f MiB vs first steady (server %d) %.1f MiB: %+.1f MiB; limit %.1f MiB (+%.0f%% + %.0f MiB)",
		mib(last.bytes), base.gen, mib(base.bytes), mib(last.bytes-base.bytes), limit/(1<<20), cfg.rssGrowth*100, cfg.rssTolerance))
	if float64(last.bytes) > limit {
		r.pass = false
	}
	return r
}

// checkHealth: every restart came up (else the run aborted), the logs
// hold no panic, fatal error or ERROR record, no request got a 5xx or an
// error that no request of the soak should get.
func checkHealth(srv *server, st *stats) result {
	r := result{n: 6, name: "server healthy: clean logs, no 5xx, no unexpected errors", pass: true}
	logs := srv.logFiles()
	faults, warns := scanLogs(logs)
	r.detail = append(r.detail, fmt.Sprintf("%d server logs: %d fault lines, %d WARN lines", len(logs), len(faults), len(warns)))
	for i, f := range faults {
		if i == 10 {
			break
		}
		r.pass = false
		r.detail = append(r.detail, "  "+f)
	}
	for i, w := range warns {
		if i == 5 {
			break
		}
		r.detail = append(r.detail, "  "+w)
	}
	for _, k := range st.errs.sorted() {
		if strings.Contains(k, ": HTTP 5") {
			r.pass = false
			r.detail = append(r.detail, fmt.Sprintf("%d x %s", st.errs[k], k))
		}
	}
	for _, k := range st.unexpected.sorted() {
		r.pass = false
		r.detail = append(r.detail, fmt.Sprintf("unexpected: %d x %s", st.unexpected[k], k))
	}
	return r
}

func printFigures(cfg *config, st *stats, traffic time.Duration, restarts []time.Duration, samples []rssSample,
	reader *streamReader, xfers []*xfer, items int) {
	secs := traffic.Seconds()
	fmt.Println("== figures")
	var mean, worst time.Duration
	for _, d := range restarts {
		mean += d
		worst = max(worst, d)
	}
	if len(restarts) > 0 {
		mean /= time.Duration(len(restarts))
	}
	fmt.Printf("traffic %.1f s wall (%v of server uptime), %d clients; %d SIGKILL restarts (the last with the clients stopped), kill to ready: mean %.2f s, max %.2f s\n",
		secs, cfg.duration, cfg.clients, len(restarts), mean.Seconds(), worst.Seconds())
	fmt.Printf("operations that succeeded: %d, %.0f/s; table at the end: %d items\n", st.ok.total(), float64(st.ok.total())/secs, items)
	fmt.Printf("  %-22s %9s %8s  %s\n", "operation", "succeeded", "per s", "pages/items")
	for _, k := range st.ok.sorted() {
		extra := ""
		if p := st.pages[k]; p > 0 {
			extra = fmt.Sprintf("%d pages", p)
		}
		if p := st.pages[k+" items"]; p > 0 {
			extra = fmt.Sprintf("%d items", p)
		}
		fmt.Printf("  %-22s %9d %8.1f  %s\n", k, st.ok[k], float64(st.ok[k])/secs, extra)
	}
	fmt.Printf("errors by kind (failed attempts; every one was retried, resolved or is expected): %d\n", st.errs.total())
	for _, k := range st.errs.sorted() {
		fmt.Printf("  %7d  %s\n", st.errs[k], k)
	}
	fmt.Printf("unknown outcomes (the answer was lost: may or may not have applied): %d, of which %d while the server was not being killed\n", st.unknown.total(), st.liveLost)
	for _, k := range st.unknown.sorted() {
		fmt.Printf("  %-22s %5d: keys or transfers found applied %d, not applied %d, either (expired and swept) %d, unresolved %d\n",
			k, st.unknown[k], st.resApplied[k], st.resNot[k], st.resEither[k], st.unresolved[k])
	}
	fmt.Printf("transfers: %d\n", len(xfers))
	for _, k := range st.xfer.sorted() {
		fmt.Printf("  %7d  %s\n", st.xfer[k], k)
	}
	records, shards, done, events, errs := reader.figures()
	fmt.Printf("stream: %d records read from %d shards (%d closed and read to their end); after a restart, the last record read from an open shard read again %d times\n",
		records, shards, done, reader.verifiedCount())
	for _, k := range events.sorted() {
		fmt.Printf("  %7d  %s\n", events[k], k)
	}
	for _, k := range errs.sorted() {
		fmt.Printf("  %7d  reader error: %s\n", errs[k], k)
	}
	parts := make([]string, len(samples))
	for i, s := range samples {
		parts[i] = fmt.Sprintf("%d:%.1f", s.gen, mib(s.bytes))
	}
	fmt.Printf("server RSS before each kill (server:MiB): %s\n", strings.Join(parts, " "))
}

// sabotage tampers with the data behind the clients' backs, for -sabotage:
// 1 credit to account 0 with no transfer record (check 1), a PutItem over
// a key of client 0 (check 2), and the reader skips the next stream
// record (check 3).
func sabotage(ctx context.Context, db *dynamodb.Client, w *worker, reader *streamReader) error {
	reader.skip.Store(1)
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(tableName), Key: accountKey(0),
		UpdateExpression: aws.String("SET bal = bal + :one"), ExpressionAttributeValues: item{":one": nv(1)},
	}); err != nil {
		return err
	}
	e := w.keys[0]
	m := keyOf(e.pk, e.sk)
	m["w"] = sv("sabotage")
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tableName), Item: m}); err != nil {
		return err
	}
	logf("sabotage: account 0 credited 1 without a transfer, %s overwritten, one stream record skipped, one transfer record hidden from the index check", showKey(e.id()))
	return nil
}

// dropOne returns a copy of table without one item whose PK has prefix.
func dropOne(table map[string]item, prefix string) map[string]item {
	c := make(map[string]item, len(table))
	dropped := false
	for k, v := range table {
		if !dropped && strings.HasPrefix(str(v, "PK"), prefix) {
			dropped = true
			continue
		}
		c[k] = v
	}
	return c
}
