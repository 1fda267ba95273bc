package cli

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/internal/dataio"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/inproc"
	"github.com/dynago/dynago/internal/throttle"
)

// startDynago starts an in-process dynago for one test.
func startDynago(t *testing.T, eo engine.Options) *inproc.Server {
	t.Helper()
	srv, err := inproc.Start(inproc.Options{Engine: eo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// runMain runs the command line and returns its exit code, stdout and
// stderr.
func runMain(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Main(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// str, num are item attribute shorthands.
func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func num(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }

// TestLoadDumpMoviesFake: the 4,610 movies load with --create --key
// year:N,title:S (and a GSI), the table then holds 4,610 items, and a
// parallel dump gives back every item equal (numbers exact up to
// DynamoDB's canonical form). The formats are the test's fakes; the same
// through dataio's formats is TestLoadDumpMoviesFormats.
func TestLoadDumpMoviesFake(t *testing.T) {
	movies := movieItems(t)
	sinks := useFakes(t, map[string][]fakeEntry{"movies.json": entries(movies)})
	srv := startDynago(t, engine.Options{})
	ep := srv.Endpoint()
	code, out, errOut := runMain("load", "--endpoint", ep, "--quiet", "--create", "--key", "year:N,title:S",
		"--gsi", "byTitle:title:S", "Movies", "movies.json")
	if code != 0 {
		t.Fatalf("load: exit %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{"items written:   4610\n", "items skipped:   0\n", "write units:", "rate:"} {
		if !strings.Contains(out, want) {
			t.Errorf("load output lacks %q:\n%s", want, out)
		}
	}
	d, err := srv.Client().DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("Movies")})
	if err != nil || d.Table.GlobalSecondaryIndexes[0].IndexStatus != types.IndexStatusActive {
		t.Fatalf("table after --create: %v %+v", err, d)
	}
	for _, segs := range []string{"1", "4"} {
		code, out, errOut = runMain("dump", "--endpoint", ep, "--segments", segs, "--output", "x", "Movies")
		if code != 0 {
			t.Fatalf("dump: exit %d: %s%s", code, out, errOut)
		}
		if !strings.Contains(errOut, "dumped 4610 items of Movies") || !strings.Contains(errOut, "read capacity units") {
			t.Errorf("dump summary: %q", errOut)
		}
		if !sinks["x"].closed {
			t.Error("dump did not close its writer")
		}
		sameItems(t, sinks["x"].items, movies)
	}
	// --create on an existing table fails and says so.
	code, _, errOut = runMain("load", "--endpoint", ep, "--quiet", "--create", "--key", "year:N,title:S", "Movies", "movies.json")
	if code != 1 || !strings.Contains(errOut, "table Movies exists") {
		t.Errorf("--create on an existing table: exit %d, %q", code, errOut)
	}
	// Without --create the table must exist.
	code, _, errOut = runMain("load", "--endpoint", ep, "--quiet", "Nope", "movies.json")
	if code != 1 || !strings.Contains(errOut, "--create") {
		t.Errorf("load into a missing table: exit %d, %q", code, errOut)
	}
}

// TestLoadThrottled: against a server throttling as DynamoDB would at
// 1/100 of its throughput, every movie is written: throttled requests
// (ProvisionedThroughputExceededException / ThrottlingException, retried
// by the SDK's retryer) and UnprocessedItems (retried with backoff) lose
// nothing. Source: BatchWriteItem returns throttled puts in
// UnprocessedItems, or fails with ProvisionedThroughputExceededException
// when none could be processed,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html.
func TestLoadThrottled(t *testing.T) {
	if testing.Short() {
		t.Skip("a throttled load takes seconds")
	}
	// 300 movies (at 1/100 of on-demand's 4,000 write units a second
	// the whole file would take minutes), in a real JSON file.
	movies := movieItems(t)[:300]
	path := filepath.Join(t.TempDir(), "movies.json")
	w, err := dataio.Create(path, dataio.WriteOptions{Format: dataio.FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range movies {
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	srv := startDynago(t, engine.Options{Throttle: &throttle.Options{Scale: 100}})
	code, out, errOut := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "--create", "--key", "year:N,title:S", "Movies", path)
	if code != 0 || !strings.Contains(out, "items written:   300\n") {
		t.Fatalf("load: exit %d: %s%s", code, out, errOut)
	}
	if strings.Contains(out, "retries:         0 ") {
		t.Errorf("the load was not throttled, so this test tests nothing:\n%s", out)
	}
	if n := countItems(t, srv, "Movies"); n != 300 {
		t.Fatalf("table holds %d items, want 300", n)
	}
}

// countItems counts a table's items with Scan Select COUNT.
func countItems(t *testing.T, srv *inproc.Server, table string) int {
	t.Helper()
	p := dynamodb.NewScanPaginator(srv.Client(), &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	n := 0
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n += int(page.Count)
	}
	return n
}

// TestLoadBadInput: each kind of bad input stops the load with exit 1
// and a message with its place (FILE:LINE for what dataio could not
// read, FILE:LINE: item with the key for an item the table cannot take);
// with --skip-bad it is reported, counted, and the other items written.
func TestLoadBadInput(t *testing.T) {
	good := func(year, title string) dataio.Item { return dataio.Item{"year": num(year), "title": str(title)} }
	big := good("2001", "Big")
	// DynamoDB's limit is 400 KB including attribute names:
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-items
	big["plot"] = str(strings.Repeat("x", 400*1024))
	cases := []struct {
		name string
		bad  fakeEntry
		want string
	}{
		{"truncated line", fakeEntry{err: &dataio.BadInput{File: "in.json", Line: 2, Err: errors.New("unexpected end of JSON input")}},
			"in.json:2: unexpected end of JSON input"},
		{"wrong key type", fakeEntry{item: dataio.Item{"year": str("2001"), "title": str("Wrong")}},
			`in.json:2: item (year="2001" title="Wrong"): key attribute year is S, the table's key is N`},
		{"over 400 KB", fakeEntry{item: big},
			`in.json:2: item (year=2001 title="Big"): item is 409619 bytes, over DynamoDB's limit of 409600 (400 KB)`},
		{"missing key attribute", fakeEntry{item: dataio.Item{"year": num("2002")}},
			"in.json:2: item (year=2002): missing key attribute title (S)"},
		{"bad number in key", fakeEntry{item: dataio.Item{"year": num("12x"), "title": str("T")}},
			`in.json:2: item (year=12x title="T"): key attribute year:`},
	}
	srv := startDynago(t, engine.Options{})
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			table := "Bad" + string(rune('A'+i))
			useFakes(t, map[string][]fakeEntry{"in.json": {{item: good("2000", "A")}, tc.bad, {item: good("2003", "C")}}})
			code, _, errOut := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "--create", "--key", "year:N,title:S", table, "in.json")
			if code != 1 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, tc.want)
			}
			code, out, errOut := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "--skip-bad", table, "in.json")
			if code != 0 || !strings.Contains(out, "items written:   2\n") || !strings.Contains(out, "items skipped:   1\n") ||
				!strings.Contains(errOut, "skipped: "+tc.want) {
				t.Errorf("--skip-bad: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			if n := countItems(t, srv, table); n != 2 {
				t.Errorf("table holds %d items, want 2", n)
			}
		})
	}
}

// TestLoadDuplicateKeys: DynamoDB rejects a whole BatchWriteItem whose
// requests include two items with identical hash and range keys (among
// the conditions the API reference lists for rejecting the entire batch,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html;
// the message is "Provided list of item keys contains duplicates"); load
// sends such items in separate batches, and with one worker the last one
// stays. 1 and 1.0 are one number key (DynamoDB compares numbers by
// value).
func TestLoadDuplicateKeys(t *testing.T) {
	var es []fakeEntry
	for i := range 60 {
		es = append(es, fakeEntry{item: dataio.Item{"id": num([]string{"1", "1.0", "2"}[i%3]), "n": num(string(rune('0' + i%10)))}})
	}
	es = append(es, fakeEntry{item: dataio.Item{"id": num("1"), "n": num("42")}})
	useFakes(t, map[string][]fakeEntry{"dup.json": es})
	srv := startDynago(t, engine.Options{})
	code, out, errOut := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "--workers", "1", "--create", "--key", "id:N", "Dup", "dup.json")
	if code != 0 || !strings.Contains(out, "items written:   61\n") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	if n := countItems(t, srv, "Dup"); n != 2 {
		t.Errorf("table holds %d items, want 2", n)
	}
	got, err := srv.Client().GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("Dup"), Key: dataio.Item{"id": num("1")}})
	if err != nil || canon(t, got.Item["n"]) != "N42" {
		t.Errorf("id 1 holds %v (%v), want the last item's n=42", got, err)
	}
}

// TestLoadDumpUsageErrors: mistakes in the command line exit 2 before
// anything is sent (the endpoint is a closed port).
func TestLoadDumpUsageErrors(t *testing.T) {
	useFakes(t, map[string][]fakeEntry{"f.json": nil})
	ep := "http://127.0.0.1:1"
	cases := [][]string{
		{"load", "T1x"},
		{"load", "--endpoint", ep, "--format", "xml", "Tab", "f.json"},
		{"load", "--endpoint", ep, "--create", "Tab", "f.json"},
		{"load", "--endpoint", ep, "--create", "--key", "year", "Tab", "f.json"},
		{"load", "--endpoint", ep, "--create", "--key", "year:X", "Tab", "f.json"},
		{"load", "--endpoint", ep, "--create", "--key", "a:S,b:N,c:S", "Tab", "f.json"},
		{"load", "--endpoint", ep, "--create", "--key", "a:S", "--gsi", "g", "Tab", "f.json"},
		{"load", "--endpoint", ep, "--create", "--key", "a:S", "--gsi", "g:a:N", "Tab", "f.json"},
		{"load", "--endpoint", ep, "--create", "--key", "a:S", "--billing", "FREE", "Tab", "f.json"},
		{"load", "--endpoint", ep, "--create", "--key", "a:S", "--billing", "PROVISIONED", "--capacity", "5", "Tab", "f.json"},
		{"load", "--endpoint", ep, "--key", "a:S", "Tab", "f.json"},
		{"load", "--endpoint", ep, "--workers", "0", "Tab", "f.json"},
		{"load", "--endpoint", ep, "--csv-types", "a", "Tab", "f.json"},
		{"load", "--endpoint", "ftp://x", "Tab", "f.json"},
		{"load", "--no-such-flag", "Tab", "f.json"},
		{"load", "--endpoint", ep, "x", "f.json"},
		{"dump"},
		{"dump", "--endpoint", ep, "--format", "xml", "Tab"},
		{"dump", "--endpoint", ep, "--format", "export", "Tab"},
		{"dump", "--endpoint", ep, "--segments", "0", "Tab"},
		{"dump", "--endpoint", ep, "A", "B"},
	}
	for _, args := range cases {
		if code, out, errOut := runMain(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2: %s%s", args, code, out, errOut)
		}
	}
}

// TestDumpMissingTable: a dump of a table that does not exist fails
// (exit 1) with DynamoDB's ResourceNotFoundException.
func TestDumpMissingTable(t *testing.T) {
	useFakes(t, nil)
	srv := startDynago(t, engine.Options{})
	code, _, errOut := runMain("dump", "--endpoint", srv.Endpoint(), "Nope")
	if code != 1 || !strings.Contains(errOut, "ResourceNotFoundException") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// TestProgressPlain: without a terminal the progress report is plain
// lines (forced here by calling update; the 5 s ticker is not waited
// for), with the share done and the time left when the total is known.
func TestProgressPlain(t *testing.T) {
	var buf bytes.Buffer
	cases := []struct {
		s    progressSample
		want string
	}{
		{progressSample{items: 10, done: 50, total: 100}, "50% done, about"},
		{progressSample{items: 10, done: 10, total: 0}, "loaded 10 items in"},
	}
	for _, tc := range cases {
		buf.Reset()
		p := &progress{kind: progressPlain, w: &buf, verb: "loaded", bytes: true}
		p.update(tc.s)
		if !strings.Contains(buf.String(), tc.want) {
			t.Errorf("%+v: %q lacks %q", tc.s, buf.String(), tc.want)
		}
	}
	if k := progressKindFor(&buf, false); k != progressPlain {
		t.Errorf("a buffer gets progress kind %d", k)
	}
	if k := progressKindFor(&buf, true); k != progressNone {
		t.Errorf("--quiet gets progress kind %d", k)
	}
}

// TestProgressBar: on a terminal the bar's end is the total, set when
// it becomes known and moved when the count passes it (a stale
// ItemCount); an unknown total keeps the spinner it started with
// (wantMax 0: the bar's end is not changed).
func TestProgressBar(t *testing.T) {
	cases := []struct {
		samples []progressSample
		wantMax int64
	}{
		{[]progressSample{{items: 1, done: 50, total: 100}}, 100},
		{[]progressSample{{items: 1, done: 5}, {items: 2, done: 10, total: 100}}, 100},
		{[]progressSample{{items: 120, done: 120, total: 100}}, 120},
		{[]progressSample{{items: 3, done: 3}}, 0},
	}
	for i, tc := range cases {
		var buf bytes.Buffer
		first := tc.samples[0]
		p := startProgress(progressBar, &buf, "loaded", i%2 == 0, func() progressSample { return first })
		want := tc.wantMax
		if want == 0 {
			want = p.bar.GetMax64()
		}
		for _, s := range tc.samples {
			p.update(s)
		}
		if got := p.bar.GetMax64(); got != want {
			t.Errorf("case %d: bar max %d, want %d", i, got, want)
		}
		p.stop()
	}
}

// cancelWriter is a memWriter that cancels the dump's context at its
// n-th item, as Ctrl-C would (signal.NotifyContext cancels the same way).
type cancelWriter struct {
	memWriter
	n      int
	cancel context.CancelFunc
}

func (w *cancelWriter) Write(it dataio.Item) error {
	w.memWriter.Write(it)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.items) == w.n {
		w.cancel()
	}
	return nil
}

// TestDumpInterrupted: a dump whose context ends (Ctrl-C) stops its
// segments' scans, abandons the writer (Abort, not Close: a bad-input
// trial found an interrupted export with its manifests, which load then
// took for the whole table) and fails naming the partial output.
func TestDumpInterrupted(t *testing.T) {
	movies := movieItems(t)
	useFakes(t, map[string][]fakeEntry{"movies.json": entries(movies)})
	srv := startDynago(t, engine.Options{})
	if code, out, errOut := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "--create", "--key", "year:N,title:S", "Movies", "movies.json"); code != 0 {
		t.Fatalf("load: exit %d: %s%s", code, out, errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &cancelWriter{n: 100, cancel: cancel}
	createSink = func(string, sinkOptions) (dataio.Writer, error) { return w, nil }
	var errOut bytes.Buffer
	err := runDump(ctx, dumpOptions{endpoint: srv.Endpoint(), output: "part.json", format: "json", segments: 4}, "Movies", &errOut)
	if err == nil || !strings.Contains(err.Error(), "interrupted: part.json holds only part of Movies") {
		t.Fatalf("error %v", err)
	}
	if !w.aborted || w.closed || len(w.items) >= len(movies) {
		t.Errorf("aborted %v, closed %v, %d items", w.aborted, w.closed, len(w.items))
	}

	// The same into a real export: the folder gets no manifests, and
	// load refuses it.
	dir := filepath.Join(t.TempDir(), "export")
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	createSink = func(dest string, o sinkOptions) (dataio.Writer, error) {
		real, err := dataio.Create(dest, dataio.WriteOptions{Format: dataio.FormatExport})
		return &cancelAfter{Writer: real, n: 100, cancel: cancel}, err
	}
	if err := runDump(ctx, dumpOptions{endpoint: srv.Endpoint(), output: dir, format: "export", segments: 4}, "Movies", &errOut); err == nil {
		t.Fatal("an interrupted export dump succeeded")
	}
	if _, err := dataio.Open(dir, dataio.ReadOptions{}); err == nil || !strings.Contains(err.Error(), "no manifest-summary.json") {
		t.Fatalf("opening the interrupted export: %v; want it refused for its missing manifest", err)
	}
}

// cancelAfter is a dataio.Writer that cancels the dump's context at its
// n-th item.
type cancelAfter struct {
	dataio.Writer
	mu     sync.Mutex
	seen   int
	n      int
	cancel context.CancelFunc
}

func (w *cancelAfter) Write(it dataio.Item) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen++; w.seen == w.n {
		w.cancel()
	}
	return w.Writer.Write(it)
}
