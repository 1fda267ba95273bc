package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/dynago/dynago/internal/dataio"
)

// sourceOptions are how load reads its files (dataio.ReadOptions).
type sourceOptions struct {
	format   dataio.Format // "" detects
	sets     bool
	csvTypes map[string]string
}

// openSource opens one input of dynago load with dataio (a variable so
// that tests can give load readers of their own).
var openSource = func(path string, o sourceOptions) (dataio.Reader, error) {
	return dataio.Open(path, dataio.ReadOptions{Format: o.format, Sets: o.sets, CSVTypes: o.csvTypes})
}

// loadOptions are dynago load's flags.
type loadOptions struct {
	endpoint string
	format   string
	sets     bool
	csvTypes string
	create   bool
	key      string
	gsis     []string
	billing  string
	capacity string
	workers  int
	skipBad  bool
	quiet    bool
}

// batchSize is BatchWriteItem's limit of 25 put requests.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
const batchSize = 25

// Retries of a batch's UnprocessedItems and of throttled requests:
// exponential backoff with full jitter from retryBase up to retryCap
// (stallGuard decides when to give up).
const (
	retryBase = 50 * time.Millisecond
	retryCap  = 5 * time.Second
)

// newLoadCommand is dynago load.
func newLoadCommand(stdout, stderr io.Writer) *cobra.Command {
	var o loadOptions
	cmd := &cobra.Command{
		Use:   "load TABLE FILE...",
		Short: "Write the items of files into a table with BatchWriteItem",
		Long: `Load writes the items of FILEs ("-" is standard input) into TABLE at any
DynamoDB endpoint, 25 to a BatchWriteItem, from several workers.

--endpoint defaults to a local dynago serve (http://127.0.0.1:8000); --endpoint ""
uses the AWS SDK's own endpoint resolution (real DynamoDB). Credentials and region
come from the SDK's usual chain (environment, shared config, SSO, ...); for a
loopback endpoint the instance metadata service is not asked and, when no
credentials are found, dummy ones are used.

Each item is checked before it is sent: against the table's key schema and its
indexes' keys (from DescribeTable), DynamoDB's rules for names, nesting and sets,
and the 400 KB item size limit. A bad item is reported as
FILE:LINE: item (its key): what is wrong, and unreadable input as FILE:LINE: what
is wrong (in an export, FILE is the data file). Either stops the load with exit
status 1, unless --skip-bad, which reports it on stderr, counts it and goes on.
Items already written stay written; the batches read before a stop are written.
A syntax error inside a JSON array or an unclosed CSV quote ends the reading
even with --skip-bad: nothing after it can be read.

Ctrl-C stops the load (a second Ctrl-C at once); the summary then names the
items whose requests were in flight, which may or may not have been written.

Items with one key in one batch are sent in separate batches, in file order;
items with one key in different batches go through different workers, so which
of them is left in the table is not defined (use --workers 1 to keep file order).

--create creates TABLE (--key, --gsi, --billing) and waits until it and its
indexes are ACTIVE; it fails if the table exists. Without --create the table
must exist.

At the end load prints, on standard output, the items written and skipped, the
write capacity units consumed, the time and the rate. Progress goes to stderr:
a bar on a terminal, a line every 5 s otherwise, nothing with --quiet.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageError{errors.New("load needs a TABLE and at least one FILE")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLoad(cmd.Context(), o, args, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.endpoint, "endpoint", defaultDataEndpoint, endpointHelp)
	f.StringVar(&o.format, "format", "", "input format: json, dynamodb-json, export or csv (default: detected)")
	f.BoolVar(&o.sets, "sets", false, "read JSON lists of only strings or only numbers as string or number sets")
	f.StringVar(&o.csvTypes, "csv-types", "", "CSV column types, NAME:TYPE,... (TYPE S, N, B, BOOL, NULL, SS, NS, BS, L, M); a column with no type here or in its header cell (NAME:TYPE) is inferred cell by cell: a number in canonical form (12, -3.5) is N, true/false BOOL, anything else (01234, 1e3) S")
	f.BoolVar(&o.create, "create", false, "create the table (with --key) and wait until it is ACTIVE; fails if it exists")
	f.StringVar(&o.key, "key", "", "with --create: the primary key, PK:TYPE[,SK:TYPE] (TYPE S, N or B), e.g. year:N,title:S")
	f.StringArrayVar(&o.gsis, "gsi", nil, "with --create: a global secondary index NAME:PK:TYPE[,SK:TYPE], projecting ALL (repeatable)")
	f.StringVar(&o.billing, "billing", "PAY_PER_REQUEST", "with --create: PAY_PER_REQUEST or PROVISIONED")
	f.StringVar(&o.capacity, "capacity", "5:5", "with --billing PROVISIONED: READ:WRITE capacity units of the table and each index")
	f.IntVar(&o.workers, "workers", 8, "concurrent BatchWriteItem requests")
	f.BoolVar(&o.skipBad, "skip-bad", false, "report bad items and unreadable input on stderr, count them and go on")
	f.BoolVar(&o.quiet, "quiet", false, "no progress report")
	return cmd
}

// loadPlan is a load's checked command line.
type loadPlan struct {
	table  string
	files  []string
	source sourceOptions
	create *dynamodb.CreateTableInput // nil without --create
}

// planLoad checks load's flags (usage errors).
func planLoad(o loadOptions, args []string) (loadPlan, error) {
	p := loadPlan{table: args[0], files: args[1:]}
	if !tableName().MatchString(p.table) {
		return p, usageError{fmt.Errorf("table name %q: a table name has 3 to 255 letters, digits, '_', '-' or '.'", p.table)}
	}
	switch dataio.Format(o.format) {
	case "", dataio.FormatJSON, dataio.FormatDynamoDBJSON, dataio.FormatExport, dataio.FormatCSV:
		p.source.format = dataio.Format(o.format)
	default:
		return p, usageError{fmt.Errorf("--format must be json, dynamodb-json, export or csv, not %q", o.format)}
	}
	p.source.sets = o.sets
	if o.csvTypes != "" {
		p.source.csvTypes = map[string]string{}
		for _, c := range strings.Split(o.csvTypes, ",") {
			name, typ, ok := strings.Cut(c, ":")
			if !ok || name == "" || typ == "" {
				return p, usageError{fmt.Errorf("--csv-types %q: %q is not NAME:TYPE", o.csvTypes, c)}
			}
			typ = strings.ToUpper(typ)
			if !dataio.IsCSVType(typ) {
				return p, usageError{fmt.Errorf("--csv-types %q: %q is not a type (want one of S, N, B, BOOL, NULL, SS, NS, BS, L, M, AV)", o.csvTypes, typ)}
			}
			p.source.csvTypes[name] = typ
		}
		if dataio.Format(o.format) != "" && dataio.Format(o.format) != dataio.FormatCSV {
			return p, usageError{fmt.Errorf("--csv-types is for CSV input, not --format %s", o.format)}
		}
	}
	if dataio.Format(o.format) == dataio.FormatExport && slices.Contains(p.files, "-") {
		return p, usageError{errors.New("--format export reads a folder, not standard input (-)")}
	}
	if o.workers < 1 {
		return p, usageError{fmt.Errorf("--workers must be at least 1, not %d", o.workers)}
	}
	if !o.create {
		if o.key != "" || len(o.gsis) > 0 {
			return p, usageError{errors.New("--key and --gsi need --create")}
		}
		return p, nil
	}
	if o.key == "" {
		return p, usageError{errors.New("--create needs --key PK:TYPE[,SK:TYPE]")}
	}
	in, err := createTableInput(p.table, o)
	p.create = in
	return p, err
}

// runLoad is dynago load.
func runLoad(ctx context.Context, o loadOptions, args []string, stdout, stderr io.Writer) error {
	p, err := planLoad(o, args)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	var release func()
	if slices.Contains(p.files, "-") {
		release = func() { os.Stdin.Close() } // a read blocked on it returns
	}
	ctx, stop := onInterrupt(ctx, stderr, release)
	defer stop()
	readers := make([]dataio.Reader, len(p.files))
	defer func() {
		for _, r := range readers {
			if r != nil {
				r.Close()
			}
		}
	}()
	for i, f := range p.files {
		if readers[i], err = openSource(f, p.source); err != nil {
			return err
		}
	}
	c, err := newDataClient(ctx, o.endpoint, o.workers)
	if err != nil {
		return err
	}
	defer c.close()
	if p.create != nil {
		if err := createTable(ctx, c, p.create); err != nil {
			return err
		}
	}
	keys, desc, err := tableKeys(ctx, c, p.table)
	if err != nil {
		if isNotFound(err) && p.create == nil {
			return fmt.Errorf("%w (--create --key PK:TYPE creates it)", err)
		}
		return err
	}
	l := &loader{client: c, table: p.table, keys: keys, indexKeys: indexKeys(desc, keys), files: p.files, readers: readers,
		skipBad: o.skipBad, stderr: stderr, workers: o.workers, stall: newStallGuard()}
	var total int64
	for _, r := range readers {
		_, t := r.Progress()
		total += t
	}
	l.bytesTotal.Store(total)
	start := time.Now()
	prog := startProgress(progressKindFor(stderr, o.quiet), stderr, "loaded", true, l.sample)
	err = l.run(ctx)
	prog.stop()
	elapsed := time.Since(start)
	written := l.written.Load()
	fmt.Fprintf(stdout, "items written:   %d\n", written)
	fmt.Fprintf(stdout, "items skipped:   %d\n", l.skipped.Load())
	fmt.Fprintf(stdout, "write units:     %s\n", formatUnits(l.consumed()))
	fmt.Fprintf(stdout, "retries:         %d (throttled requests and rounds of unprocessed items)\n", l.stall.retries.Load())
	fmt.Fprintf(stdout, "elapsed:         %s\n", elapsed.Round(time.Millisecond))
	fmt.Fprintf(stdout, "rate:            %.0f items/s\n", float64(written)/max(elapsed.Seconds(), 1e-9))
	if n := l.inflight.Load(); n > 0 {
		fmt.Fprintf(stdout, "items in flight: %d (sent when the load was interrupted: each may or may not have been written)\n", n)
	}
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return errors.New("interrupted: the load is incomplete")
	}
	return err
}

// loader is one load's state, shared by its reading goroutine and its
// workers.
type loader struct {
	client dataClient
	table  string
	keys   []keyAttr
	// indexKeys are the secondary indexes' key attributes (checkItem).
	indexKeys []indexKeyAttr
	files     []string
	readers   []dataio.Reader
	skipBad   bool
	stderr    io.Writer
	workers   int
	stall     *stallGuard

	written, skipped, queued atomic.Int64
	// inflight counts the items of BatchWriteItem requests under way; after
	// an interruption, those whose requests were cancelled.
	inflight atomic.Int64
	// bytesDone and bytesTotal are the readers' Progress, published
	// by the reading goroutine (a Reader is not safe for concurrent use).
	bytesDone, bytesTotal atomic.Int64

	mu  sync.Mutex // guards wcu and stderr's reports
	wcu float64
}

// sample is the loader's progress, for the progress report.
func (l *loader) sample() progressSample {
	return progressSample{items: l.written.Load(), done: l.bytesDone.Load(), total: l.bytesTotal.Load()}
}

// consumed is the write capacity units consumed so far.
func (l *loader) consumed() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.wcu
}

// addUnits adds consumed write capacity units.
func (l *loader) addUnits(units float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.wcu += units
}

// run reads every file into batches and writes them from l.workers
// workers; the first error stops the reading and is returned. The batches
// already read when the reading stops are still written (with ctx, which
// only an interruption cancels), so that "items written" is what the
// table got.
func (l *loader) run(ctx context.Context) error {
	g, readCtx := errgroup.WithContext(ctx)
	batches := make(chan []types.WriteRequest, l.workers)
	g.Go(func() error {
		defer close(batches)
		return l.read(readCtx, batches)
	})
	for range l.workers {
		g.Go(func() error {
			for b := range batches {
				if err := l.write(ctx, b); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// flushAfter is how long a partly filled batch waits for more items
// before it is sent anyway, so that items from a slow source (a pipe fed
// a line at a time) are written as they come rather than when 25 have
// gathered.
const flushAfter = time.Second

// keyedPut is one checked item on its way to a batch, with its key (no
// key twice in one batch).
type keyedPut struct {
	key string
	req types.WriteRequest
}

// read reads the files in order (readItems, in a goroutine of its own)
// and sends batches of at most 25 with no key twice, a partly filled one
// after flushAfter without a new item.
func (l *loader) read(ctx context.Context, batches chan<- []types.WriteRequest) error {
	items := make(chan keyedPut, batchSize)
	readErr := make(chan error, 1)
	go func() {
		defer close(items)
		readErr <- l.readItems(ctx, items)
	}()
	err := l.batch(ctx, items, batches)
	if rerr := <-readErr; rerr != nil {
		return rerr
	}
	return err
}

// batch gathers items into batches for the workers until items is closed
// (the batch then sent) or ctx is done.
func (l *loader) batch(ctx context.Context, items <-chan keyedPut, batches chan<- []types.WriteRequest) error {
	var batch []types.WriteRequest
	inBatch := map[string]bool{}
	send := func() error {
		if len(batch) == 0 {
			return nil
		}
		select {
		case batches <- batch:
		case <-ctx.Done():
			return ctx.Err()
		}
		batch, inBatch = nil, map[string]bool{}
		return nil
	}
	flush := time.NewTimer(flushAfter)
	defer flush.Stop()
	for {
		select {
		case p, ok := <-items:
			if !ok {
				return send()
			}
			if inBatch[p.key] || len(batch) == batchSize {
				if err := send(); err != nil {
					return err
				}
			}
			if len(batch) == 0 {
				flush.Reset(flushAfter)
			}
			inBatch[p.key] = true
			batch = append(batch, p.req)
		case <-flush.C:
			if err := send(); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// readItems reads the files in order, checks each item and hands the good
// ones to items; bad ones end the reading or, with --skip-bad, are
// reported and counted.
func (l *loader) readItems(ctx context.Context, items chan<- keyedPut) error {
	var before int64 // bytes of the files already read
	for i, r := range l.readers {
		for {
			if err := ctx.Err(); err != nil { // Ctrl-C, or a failed write
				return err
			}
			item, err := r.Next()
			done, _ := r.Progress()
			l.bytesDone.Store(before + done)
			if err == io.EOF {
				break
			}
			var bad *dataio.BadInput
			if errors.As(err, &bad) {
				if err := l.bad(bad); err != nil {
					return err
				}
				continue
			}
			if err != nil {
				return fmt.Errorf("%s: %w", l.files[i], err)
			}
			key, err := checkItem(item, l.keys, l.indexKeys)
			if err != nil {
				file, line := r.Position()
				where := fmt.Sprintf("%s:%d: item", file, line)
				if k := describeKey(item, l.keys); k != "" {
					where += " (" + k + ")"
				}
				if err := l.bad(fmt.Errorf("%s: %w", where, err)); err != nil {
					return err
				}
				continue
			}
			select {
			case items <- keyedPut{key, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}}}:
			case <-ctx.Done():
				return ctx.Err()
			}
			l.queued.Add(1)
		}
		_, t := r.Progress()
		before += t
		if err := r.Close(); err != nil {
			return fmt.Errorf("%s: %w", l.files[i], err)
		}
		l.readers[i] = nil
	}
	return nil
}

// bad handles a bad item or bad input: the load's error, or with
// --skip-bad a report on stderr and a count.
func (l *loader) bad(err error) error {
	if !l.skipBad {
		return err
	}
	l.skipped.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.stderr, "skipped: %v\n", err)
	return nil
}

// write writes one batch, retrying its UnprocessedItems with exponential
// backoff and jitter; throttling errors of the request itself are retried
// by the SDK's retryer (newDataClient) and then here likewise. The load
// goes on while any of its writes get through; a batch that meets only
// throttling for stallTimeout, or any other error, fails it.
//
// Source: BatchWriteItem returns the requests it did not process in
// UnprocessedItems and AWS advises retrying them with exponential backoff;
// it fails with ProvisionedThroughputExceededException when it could
// process none
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html).
func (l *loader) write(ctx context.Context, reqs []types.WriteRequest) error {
	for attempt := 0; ; attempt++ {
		l.inflight.Add(int64(len(reqs)))
		out, err := l.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems:           map[string][]types.WriteRequest{l.table: reqs},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		if err == nil || ctx.Err() == nil {
			l.inflight.Add(-int64(len(reqs))) // answered: their outcome is known
		}
		if err != nil && isThrottle(err) {
			if err := l.stall.retry(ctx, attempt, fmt.Errorf("BatchWriteItem: %w", err)); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("BatchWriteItem: %w", err)
		}
		var units float64
		for _, cc := range out.ConsumedCapacity {
			units += aws.ToFloat64(cc.CapacityUnits)
		}
		l.addUnits(units)
		left := out.UnprocessedItems[l.table]
		if len(left) < len(reqs) {
			l.written.Add(int64(len(reqs) - len(left)))
			l.stall.progressed()
		}
		if len(left) == 0 {
			return nil
		}
		reqs = left
		cause := fmt.Errorf("BatchWriteItem: %d items still unprocessed", len(left))
		if err := l.stall.retry(ctx, attempt, cause); err != nil {
			return err
		}
	}
}

// backoff is the wait before retry attempt+1: a random duration up to
// retryBase doubled attempt times, at most retryCap ("full jitter").
func backoff(attempt int) time.Duration {
	d := retryCap
	if attempt < 16 {
		d = min(retryCap, retryBase<<attempt)
	}
	return time.Duration(rand.Int64N(int64(d)) + 1)
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
