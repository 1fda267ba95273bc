package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// sinkOptions are how dump writes its destination (dataio.WriteOptions):
// the format, and for an export's manifest the table's ARN and id.
type sinkOptions struct {
	format            dataio.Format
	tableArn, tableID string
}

// createSink creates dynago dump's destination with dataio (a variable
// so that tests can give dump writers of their own).
var createSink = func(dest string, o sinkOptions) (dataio.Writer, error) {
	return dataio.Create(dest, dataio.WriteOptions{Format: o.format, TableArn: o.tableArn, TableID: o.tableID})
}

// dumpOptions are dynago dump's flags.
type dumpOptions struct {
	endpoint   string
	output     string
	format     string
	segments   int
	consistent bool
	quiet      bool
}

// newDumpCommand is dynago dump.
func newDumpCommand(stderr io.Writer) *cobra.Command {
	var o dumpOptions
	cmd := &cobra.Command{
		Use:   "dump TABLE",
		Short: "Write every item of a table to a file with a parallel Scan",
		Long: `Dump scans TABLE at any DynamoDB endpoint (--endpoint as for load) in
--segments parallel segments and writes its items to --output ("-", standard
output, by default) in --format:

  dynamodb-json  one {"Item": {...}} a line (default; keeps every type)
  json           plain JSON objects, one a line (sets become lists, binary base64)
  csv            a header row, then one item a row
  export         a DynamoDB export to S3 folder (--output names the folder),
                 which ImportTable loads and dynago load reads

With more than one segment the items come in a different order on every run
(each segment's pages interleave); --segments 1 gives the Scan's own order.

Ctrl-C (or a failure) stops the scan and abandons the output, which then holds
only part of the table: an export folder gets no manifests, so that neither
dynago load nor ImportTable takes it for the whole table (the command exits with
status 1; a second Ctrl-C stops it at once). Segments are scanned at most 16 at
a time. A summary (items, read capacity units
consumed, time) goes to stderr unless --quiet, as does the progress: a bar on a
terminal (of DescribeTable's ItemCount, which DynamoDB updates about every six
hours, so it may be stale), a line every 5 s otherwise.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{errors.New("dump needs exactly one TABLE")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDump(cmd.Context(), o, args[0], stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.endpoint, "endpoint", defaultDataEndpoint, endpointHelp)
	f.StringVarP(&o.output, "output", "o", "-", `destination file ("-" is standard output), or folder for --format export`)
	f.StringVar(&o.format, "format", string(dataio.FormatDynamoDBJSON), "output format: dynamodb-json, json, csv or export")
	f.IntVar(&o.segments, "segments", 4, "parallel Scan segments")
	f.BoolVar(&o.consistent, "consistent", false, "strongly consistent reads (twice the read capacity)")
	f.BoolVar(&o.quiet, "quiet", false, "no progress report and no summary")
	return cmd
}

// maxSegments is Scan's TotalSegments limit.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html
const maxSegments = 1000000

// checkDump checks dump's flags (usage errors).
func checkDump(o dumpOptions, table string) error {
	if !tableName().MatchString(table) {
		return usageError{fmt.Errorf("table name %q: a table name has 3 to 255 letters, digits, '_', '-' or '.'", table)}
	}
	if o.output == "" {
		return usageError{errors.New(`--output must name a file, a folder for --format export, or "-" for standard output`)}
	}
	switch dataio.Format(o.format) {
	case dataio.FormatJSON, dataio.FormatDynamoDBJSON, dataio.FormatCSV:
	case dataio.FormatExport:
		if o.output == "-" || o.output == "" {
			return usageError{errors.New("--format export writes a folder: give it with --output DIR")}
		}
	default:
		return usageError{fmt.Errorf("--format must be dynamodb-json, json, csv or export, not %q", o.format)}
	}
	if o.segments < 1 || o.segments > maxSegments {
		return usageError{fmt.Errorf("--segments must be 1 to %d, not %d", maxSegments, o.segments)}
	}
	return nil
}

// runDump is dynago dump.
func runDump(ctx context.Context, o dumpOptions, table string, stderr io.Writer) error {
	if err := checkDump(o, table); err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := onInterrupt(ctx, stderr, nil)
	defer stop()
	c, err := newDataClient(ctx, o.endpoint, min(o.segments, maxConcurrentScans))
	if err != nil {
		return err
	}
	defer c.close()
	_, desc, err := tableKeys(ctx, c, table)
	if err != nil {
		if isNotFound(err) {
			return fmt.Errorf("%w (ListTables shows the tables at %s)", err, o.endpoint)
		}
		return err
	}
	w, err := createSink(o.output, sinkOptions{format: dataio.Format(o.format),
		tableArn: aws.ToString(desc.TableArn), tableID: aws.ToString(desc.TableId)})
	if err != nil {
		return err
	}
	d := &dumper{client: c, table: table, w: w, segments: o.segments, consistent: o.consistent, count: aws.ToInt64(desc.ItemCount), stall: newStallGuard()}
	start := time.Now()
	prog := startProgress(progressKindFor(stderr, o.quiet), stderr, "dumped", false, d.sample)
	err = d.run(ctx)
	prog.stop()
	if err != nil {
		// Unfinished: an export gets no manifests, so that neither load
		// nor ImportTable takes a part of the table for all of it.
		w.Abort()
	} else if cerr := w.Close(); cerr != nil {
		err = fmt.Errorf("%s: %w", o.output, cerr)
	}
	elapsed := time.Since(start)
	if !o.quiet {
		n := d.items.Load()
		fmt.Fprintf(stderr, "dumped %d items of %s in %s (%.0f items/s), %s read capacity units\n",
			n, table, elapsed.Round(time.Millisecond), float64(n)/max(elapsed.Seconds(), 1e-9), formatUnits(d.consumed()))
	}
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		where := o.output
		if where == "-" {
			where = "standard output"
		}
		return fmt.Errorf("interrupted: %s holds only part of %s", where, table)
	}
	return err
}

// dumper is one dump's state, shared by its segments' goroutines.
type dumper struct {
	client     dataClient
	table      string
	segments   int
	consistent bool
	count      int64 // DescribeTable's ItemCount
	stall      *stallGuard

	items atomic.Int64

	mu  sync.Mutex // guards w and rcu
	w   dataio.Writer
	rcu float64
}

// sample is the dump's progress, for the progress report.
func (d *dumper) sample() progressSample {
	n := d.items.Load()
	return progressSample{items: n, done: n, total: d.count}
}

// consumed is the read capacity units consumed so far.
func (d *dumper) consumed() float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rcu
}

// maxConcurrentScans bounds the segments scanned at once: more segments
// than this wait their turn, so that --segments 10000 does not open ten
// thousand connections (a bad-input trial of issue 26 met the server's
// connection limit that way).
const maxConcurrentScans = 16

// run scans every segment, at most maxConcurrentScans at once; the first
// error stops them all.
func (d *dumper) run(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(maxConcurrentScans)
	for seg := range d.segments {
		g.Go(func() error { return d.scan(ctx, seg) })
	}
	return g.Wait()
}

// scan scans one segment to its end, page by page (LastEvaluatedKey),
// writing its items to the one writer; throttled pages are retried as
// load retries (stallGuard).
//
// Source: a parallel Scan gives each worker a Segment of TotalSegments,
// and a page ends with LastEvaluatedKey until the segment's last
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html).
func (d *dumper) scan(ctx context.Context, seg int) error {
	in := &dynamodb.ScanInput{
		TableName:              aws.String(d.table),
		ConsistentRead:         aws.Bool(d.consistent),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	}
	if d.segments > 1 {
		in.Segment, in.TotalSegments = aws.Int32(int32(seg)), aws.Int32(int32(d.segments))
	}
	for attempt := 0; ; attempt++ {
		out, err := d.client.Scan(ctx, in)
		if err != nil && isThrottle(err) {
			if err := d.stall.retry(ctx, attempt, fmt.Errorf("scan of segment %d: %w", seg, err)); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("scan of segment %d: %w", seg, err)
		}
		if err := d.emit(ctx, out); err != nil {
			return err
		}
		d.stall.progressed()
		attempt = -1
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// emit writes one page's items and counts its capacity; it stops at the
// first item after ctx is done (Ctrl-C stops the writing at once, not
// after the pages already fetched).
func (d *dumper) emit(ctx context.Context, out *dynamodb.ScanOutput) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if out.ConsumedCapacity != nil {
		d.rcu += aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
	}
	for _, item := range out.Items {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := d.w.Write(item); err != nil {
			return err
		}
		d.items.Add(1)
	}
	return nil
}
