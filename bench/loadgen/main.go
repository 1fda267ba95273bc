// Command loadgen drives a DynamoDB-protocol endpoint with PutItem, GetItem
// or Query through aws-sdk-go-v2 and reports client-side latency (p50, p99),
// throughput, errors and the CPU time the server process(es) spent per
// operation, read from /proc before and after the measured window.
//
// It is a measurement tool, not a test: it never fails on slow numbers, only
// on setup errors. Traffic goes to -endpoint only (a loopback address in the
// recipe bench/run.sh).
//
// Usage:
//
//	loadgen -endpoint http://127.0.0.1:8000 -op get -c 16 -duration 10s \
//	    -warmup 2s -server-pid 1234 -label dynago [-quiet-wait 15s] [-json] [-out results.jsonl]
//	loadgen -header                          # print the text table header
//	loadgen -report results.jsonl -baseline ceiling   # combined table
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"time"
)

// config holds the parsed command-line flags.
type config struct {
	endpoint   string
	op         string
	conc       int
	duration   time.Duration
	warmup     time.Duration
	table      string
	items      int
	setup      bool
	pids       pidList
	label      string
	jsonOut    bool
	out        string
	reqTimeout time.Duration
	quietWait  time.Duration
	gsis       int
	rate       float64
	shards     int
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("loadgen: ")
	var cfg config
	flag.StringVar(&cfg.endpoint, "endpoint", "http://127.0.0.1:8000", "DynamoDB-protocol endpoint URL (BaseEndpoint)")
	flag.StringVar(&cfg.op, "op", "get", "operation to drive: put, get, query, query-gsi (the query partition through GSI1; needs -gsis 1 or more), put-open (a small open order whose GSI1PK is STATUS#open, seed 001's hot GSI key; see -shards; needs -gsis 1), update (a conditional UpdateItem of a pre-loaded item), put4 (four PutItems in a row), transact4 (one TransactWriteItems of four Puts) or transact4-hot (one TransactWriteItems of four counter Updates among 10 hot items)")
	flag.Float64Var(&cfg.rate, "rate", 0, "hold the offered load to this many operations a second in all (0: as fast as the workers go); for throttling runs")
	flag.IntVar(&cfg.shards, "shards", 0, "with -op put-open: spread GSI1PK over STATUS#open#0..N-1 (0: every order on STATUS#open)")
	flag.IntVar(&cfg.gsis, "gsis", 0, "create the table with this many GSIs, 0 to 5 (GSIn on GSInPK/GSInSK, projection ALL); the default table name becomes bench_gsiN")
	flag.StringVar(&streamView, "stream", "", "create the table with a DynamoDB stream of this view type (KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES); the default table name gets the suffix _stream")
	flag.IntVar(&cfg.conc, "c", 1, "concurrency: number of workers, each with one request in flight")
	flag.DurationVar(&cfg.duration, "duration", 10*time.Second, "length of the measured window")
	flag.DurationVar(&cfg.warmup, "warmup", 2*time.Second, "length of the unmeasured warm-up before the window")
	flag.StringVar(&cfg.table, "table", "bench", "table name")
	flag.IntVar(&cfg.items, "items", 1000, "number of pre-loaded items for GetItem keys")
	flag.BoolVar(&cfg.setup, "setup", true, "create the table and pre-load items if missing (idempotent)")
	flag.Var(&cfg.pids, "server-pid", "PID of a server process to measure (repeatable or comma-separated; descendants included)")
	flag.StringVar(&cfg.label, "label", "", "label of the output row (default: the endpoint)")
	flag.BoolVar(&cfg.jsonOut, "json", false, "print the result as one JSON line instead of a table row")
	flag.StringVar(&cfg.out, "out", "", "also append the result as a JSON line to this file")
	flag.DurationVar(&cfg.reqTimeout, "request-timeout", 10*time.Second, "timeout of one request")
	flag.DurationVar(&cfg.quietWait, "quiet-wait", 0, "before warming up, wait up to this long for the machine to be idle (0: don't)")
	header := flag.Bool("header", false, "print the header of the text table and exit")
	report := flag.String("report", "", "print a combined table of the JSON lines in this file and exit")
	baseline := flag.String("baseline", "ceiling", "with -report: label whose server CPU/op is the 1.0x reference")
	flag.Parse()

	switch {
	case *header:
		printHeader(os.Stdout, false)
		return
	case *report != "":
		if err := printReport(os.Stdout, *report, *baseline); err != nil {
			log.Fatal(err)
		}
		return
	}
	if cfg.label == "" {
		cfg.label = cfg.endpoint
	}
	switch cfg.op {
	case "put", "get", "query", "query-gsi", "put-open", "update", "put4", "transact4", "transact4-hot":
	default:
		log.Fatalf("-op must be put, get, query, query-gsi, put-open, update, put4, transact4 or transact4-hot, not %q", cfg.op)
	}
	if cfg.gsis < 0 || cfg.gsis > maxGSIs || ((cfg.op == "query-gsi" || cfg.op == "put-open") && cfg.gsis == 0) {
		log.Fatalf("-gsis must be 0 to %d, and at least 1 with -op query-gsi or put-open", maxGSIs)
	}
	if cfg.rate < 0 || cfg.shards < 0 {
		log.Fatal("-rate and -shards must not be negative")
	}
	gsiCount = cfg.gsis
	if cfg.gsis > 0 && cfg.table == "bench" {
		cfg.table = fmt.Sprintf("bench_gsi%d", cfg.gsis)
	}
	if streamView != "" && cfg.table == "bench" {
		cfg.table = "bench_stream"
	}
	if cfg.conc < 1 || cfg.duration <= 0 || cfg.items < 1 {
		log.Fatal("-c, -duration and -items must be positive")
	}
	res, err := run(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	if cfg.jsonOut {
		b, _ := json.Marshal(res)
		fmt.Println(string(b))
	} else {
		printRow(os.Stdout, res, "")
	}
	if cfg.out != "" {
		if err := appendJSON(cfg.out, res); err != nil {
			log.Fatal(err)
		}
	}
}

// run sets up the table if asked, warms up, then measures one window.
func run(ctx context.Context, cfg config) (*result, error) {
	setupClient, err := newClient(ctx, cfg.endpoint, cfg.conc, true)
	if err != nil {
		return nil, err
	}
	if cfg.setup {
		if err := ensureTable(ctx, setupClient, cfg.table); err != nil {
			return nil, fmt.Errorf("setup: %w", err)
		}
		if cfg.op != "put" && cfg.op != "put4" && cfg.op != "transact4" && cfg.op != "put-open" {
			if err := preload(ctx, setupClient, cfg.table, cfg.items); err != nil {
				return nil, fmt.Errorf("pre-load: %w", err)
			}
		}
	}
	client, err := newClient(ctx, cfg.endpoint, cfg.conc, false)
	if err != nil {
		return nil, err
	}
	if cfg.quietWait > 0 && !waitQuiet(cfg.quietWait) {
		log.Printf("%s %s c=%d: machine still busy after %v, measuring anyway", cfg.label, cfg.op, cfg.conc, cfg.quietWait)
	}
	w := newWorkload(client, cfg)
	if cfg.warmup > 0 {
		w.phase(ctx, cfg.warmup, false)
	}
	cpu := newCPUMeter(cfg.pids)
	if err := cpu.start(); err != nil {
		return nil, err
	}
	ph := w.phase(ctx, cfg.duration, true)
	times, err := cpu.stop()
	if err != nil {
		return nil, err
	}
	return summarize(cfg, ph, times), nil
}
