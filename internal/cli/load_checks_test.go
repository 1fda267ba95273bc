package cli

// Tests of what a bad-input trial of issue 26 found in load and dump.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/dataio"
	"github.com/dynago/dynago/internal/engine"
)

// writeLines writes lines as a file in a temporary directory.
func writeLines(t *testing.T, name string, lines []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadChecksWhatTheServerWouldRefuse: an item the table would refuse
// for something other than its own key (a secondary index key of the
// wrong type or empty, an empty attribute name, nesting past 32 levels)
// is a bad item at its line, so that --skip-bad writes the others; before,
// the server's ValidationException failed the whole batch and the load.
//
// Sources: an index key attribute must have the type of the index's key
// and a key's string or binary may not be empty
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html);
// attribute names are 1 to 65,535 bytes and nesting is at most 32 levels
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-attributes).
func TestLoadChecksWhatTheServerWouldRefuse(t *testing.T) {
	deep := `"x"`
	for range 33 {
		deep = "[" + deep + "]"
	}
	path := writeLines(t, "in.json", []string{
		`{"id": "ok1", "g": "a"}`,
		`{"id": "gnum", "g": 5}`,
		`{"id": "gempty", "g": ""}`,
		`{"id": "noname", "": "x"}`,
		`{"id": "deep", "v": ` + deep + `}`,
		`{"id": "ok2"}`,
	})
	srv := startDynago(t, engine.Options{})
	code, out, errOut := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "--skip-bad", "--create", "--key", "id:S", "--gsi", "ByG:g:S", "Checks", path)
	for _, want := range []string{
		path + `:2: item (id="gnum"): attribute g is N, the key of index ByG is S`,
		path + `:3: item (id="gempty"): attribute g, a key of index ByG, is empty`,
		path + `:4: item (id="noname"): ValidationException: Empty attribute name`,
		path + `:5: item (id="deep"): ValidationException: Nesting Levels have exceeded supported limits`,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if code != 0 || !strings.Contains(out, "items written:   2\n") || !strings.Contains(out, "items skipped:   4\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if n := countItems(t, srv, "Checks"); n != 2 {
		t.Errorf("table holds %d items, want 2", n)
	}
}

// TestLoadCountsWhatWasWritten: a load stopped by bad input still writes
// the batches it had read before, and "items written" is what the table
// holds (it reported 150 fewer: batches in flight were cancelled with the
// reading and counted as unwritten though the server had applied them).
func TestLoadCountsWhatWasWritten(t *testing.T) {
	lines := make([]string, 0, 5001)
	for i := range 5000 {
		lines = append(lines, fmt.Sprintf(`{"id": "i%05d"}`, i))
	}
	path := writeLines(t, "in.json", append(lines, `{bad`))
	srv := startDynago(t, engine.Options{})
	code, out, _ := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "--create", "--key", "id:S", "Counted", path)
	n := countItems(t, srv, "Counted")
	if code != 1 || !strings.Contains(out, fmt.Sprintf("items written:   %d\n", n)) {
		t.Fatalf("exit %d, the table holds %d items; summary:\n%s", code, n, out)
	}
}

// TestLoadDumpUsageErrorsFromTheTrial: command-line mistakes found by the trial exit
// 2, as the other usage errors do.
func TestLoadDumpUsageErrorsFromTheTrial(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"load", "Tab", "x.csv", "--csv-types", "v:Q"}, `"Q" is not a type`},
		{[]string{"load", "Tab", "x.json", "--format", "json", "--csv-types", "v:N"}, "--csv-types is for CSV input"},
		{[]string{"load", "Tab", "-", "--format", "export"}, "not standard input"},
		{[]string{"dump", "Tab", "-o", ""}, "--output must name a file"},
	} {
		if code, _, errOut := runMain(tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestDumpManySegments: more segments than the scans run at once
// (maxConcurrentScans) still dump every item once.
func TestDumpManySegments(t *testing.T) {
	lines := make([]string, 0, 500)
	for i := range 500 {
		lines = append(lines, fmt.Sprintf(`{"id": "i%03d"}`, i))
	}
	path := writeLines(t, "in.json", lines)
	srv := startDynago(t, engine.Options{})
	if code, out, errOut := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "--create", "--key", "id:S", "Segs", path); code != 0 {
		t.Fatalf("load: exit %d\n%s%s", code, out, errOut)
	}
	dest := filepath.Join(t.TempDir(), "out.json")
	if code, _, errOut := runMain("dump", "--endpoint", srv.Endpoint(), "--quiet", "--segments", "100", "--format", "json", "-o", dest, "Segs"); code != 0 {
		t.Fatalf("dump: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 500 {
		t.Fatalf("dumped %d items, want 500", n)
	}
}

// slowReader yields its items, then blocks until more is closed, as a
// pipe fed by a slow producer does, then ends.
type slowReader struct {
	fakeReader
	more chan struct{}
}

func (r *slowReader) Next() (dataio.Item, error) {
	if r.pos == len(r.entries) {
		<-r.more
	}
	return r.fakeReader.Next()
}

// TestLoadFlushesASlowSource: items from a source that stops short of a
// full batch (a pipe a producer writes a line at a time) are written
// after flushAfter, while the source is still open, not when 25 have
// gathered or the source ends (a bad-input trial of issue 26 saw five
// items wait unsent for as long as the pipe stayed open).
func TestLoadFlushesASlowSource(t *testing.T) {
	srv := startDynago(t, engine.Options{})
	if code, out, errOut := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "--create", "--key", "id:S", "Slow", writeLines(t, "none.json", nil)); code != 0 {
		t.Fatalf("create: exit %d\n%s%s", code, out, errOut)
	}
	more := make(chan struct{})
	old := openSource
	t.Cleanup(func() { openSource = old })
	openSource = func(path string, o sourceOptions) (dataio.Reader, error) {
		items := []fakeEntry{{item: dataio.Item{"id": str("a")}}, {item: dataio.Item{"id": str("b")}}, {item: dataio.Item{"id": str("c")}}}
		return &slowReader{fakeReader{name: path, entries: items}, more}, nil
	}
	done := make(chan int)
	go func() {
		code, _, _ := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "Slow", "-")
		done <- code
	}()
	for deadline := time.Now().Add(30 * time.Second); countItems(t, srv, "Slow") < 3; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			close(more)
			t.Fatalf("%d of 3 items written after 30 s with the source still open", countItems(t, srv, "Slow"))
		}
	}
	close(more)
	if code := <-done; code != 0 {
		t.Fatalf("load: exit %d", code)
	}
}
