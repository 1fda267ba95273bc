package cli

// End-to-end tests of load and dump through internal/dataio's real
// formats.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/dataio"
	"github.com/dynago/dynago/internal/engine"
)

// readAll reads every item of a file with dataio.
func readAll(t *testing.T, path string, f dataio.Format) []dataio.Item {
	t.Helper()
	r, err := dataio.Open(path, dataio.ReadOptions{Format: f})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var items []dataio.Item
	for {
		it, err := r.Next()
		if err == io.EOF {
			return items
		}
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
}

// TestLoadDumpMoviesFormats: the movies file loads with --create --key
// year:N,title:S; the table dumps back equal item for item (numbers
// exact, up to DynamoDB's canonical form, see canon) in json and
// dynamodb-json; and the dump in the export layout loads into a new table
// that dumps back equal too.
func TestLoadDumpMoviesFormats(t *testing.T) {
	movies := movieItems(t)
	srv := startDynago(t, engine.Options{})
	ep := srv.Endpoint()
	dir := t.TempDir()
	code, out, errOut := runMain("load", "--endpoint", ep, "--quiet", "--create", "--key", "year:N,title:S", "Movies", moviesFile)
	if code != 0 || !strings.Contains(out, "items written:   4610\n") {
		t.Fatalf("load: exit %d: %s%s", code, out, errOut)
	}
	for _, f := range []dataio.Format{dataio.FormatJSON, dataio.FormatDynamoDBJSON} {
		path := filepath.Join(dir, "movies."+string(f))
		if code, _, errOut := runMain("dump", "--endpoint", ep, "--quiet", "--format", string(f), "--output", path, "Movies"); code != 0 {
			t.Fatalf("dump %s: exit %d: %s", f, code, errOut)
		}
		sameItems(t, readAll(t, path, f), movies)
	}
	export := filepath.Join(dir, "export")
	if code, _, errOut := runMain("dump", "--endpoint", ep, "--quiet", "--format", "export", "--output", export, "Movies"); code != 0 {
		t.Fatalf("dump export: exit %d: %s", code, errOut)
	}
	code, out, errOut = runMain("load", "--endpoint", ep, "--quiet", "--format", "export", "--create", "--key", "year:N,title:S", "Movies2", export)
	if code != 0 || !strings.Contains(out, "items written:   4610\n") {
		t.Fatalf("load export: exit %d: %s%s", code, out, errOut)
	}
	back := filepath.Join(dir, "back.json")
	if code, _, errOut := runMain("dump", "--endpoint", ep, "--quiet", "--output", back, "Movies2"); code != 0 {
		t.Fatalf("dump Movies2: exit %d: %s", code, errOut)
	}
	sameItems(t, readAll(t, back, dataio.FormatDynamoDBJSON), movies)
	// A CSV dump (typed NAME:TYPE header) loads back equal too.
	csv := filepath.Join(dir, "movies.csv")
	if code, _, errOut := runMain("dump", "--endpoint", ep, "--quiet", "--format", "csv", "--output", csv, "Movies"); code != 0 {
		t.Fatalf("dump csv: exit %d: %s", code, errOut)
	}
	code, out, errOut = runMain("load", "--endpoint", ep, "--quiet", "--create", "--key", "year:N,title:S", "Movies3", csv)
	if code != 0 || !strings.Contains(out, "items written:   4610\n") {
		t.Fatalf("load csv: exit %d: %s%s", code, out, errOut)
	}
	if code, _, errOut := runMain("dump", "--endpoint", ep, "--quiet", "--output", back, "Movies3"); code != 0 {
		t.Fatalf("dump Movies3: exit %d: %s", code, errOut)
	}
	sameItems(t, readAll(t, back, dataio.FormatDynamoDBJSON), movies)
}

// TestLoadBadInputFormats: in a JSON-lines file, a truncated line is
// reported as FILE:LINE (dataio's BadInput), an item with a wrong key
// type, over 400 KB, or missing a key attribute as FILE:LINE: item with
// its key (issue 26: "a bad line is reported with its file and line
// number"); each exits 1, and --skip-bad counts them and writes the rest.
func TestLoadBadInputFormats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.json")
	lines := []string{
		`{"year": 2000, "title": "A"}`,
		`{"year": 2001, "title": "Trunc`,
		`{"year": "2002", "title": "Wrong"}`,
		fmt.Sprintf(`{"year": 2003, "title": "Big", "plot": "%s"}`, strings.Repeat("x", 400*1024)),
		`{"title": "NoYear"}`,
		`{"year": 2005, "title": "F"}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startDynago(t, engine.Options{})
	code, _, errOut := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "--format", "json", "--create", "--key", "year:N,title:S", "Bad", path)
	if code != 1 || !strings.Contains(errOut, path+":2:") {
		t.Errorf("truncated line: exit %d, %q", code, errOut)
	}
	code, out, errOut := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "--format", "json", "--skip-bad", "Bad", path)
	for _, want := range []string{path + ":2:", path + `:3: item (year="2002" title="Wrong"): key attribute year is S`,
		path + `:4: item (year=2003 title="Big"): item is`, path + `:5: item (title="NoYear"): missing key attribute year`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("--skip-bad stderr lacks %q:\n%.2000s", want, errOut)
		}
	}
	if code != 0 || !strings.Contains(out, "items written:   2\n") || !strings.Contains(out, "items skipped:   4\n") {
		t.Errorf("--skip-bad: exit %d: %s", code, out)
	}
}

// TestLoadSkipBadStopsAtABrokenArray: a syntax error inside one JSON array
// cannot be read past, so load stops there with exit 1 even with
// --skip-bad, after the element before it and without the one after (a
// new user's trial of issue 26 found --skip-bad repeating the error for
// ever).
func TestLoadSkipBadStopsAtABrokenArray(t *testing.T) {
	path := filepath.Join(t.TempDir(), "arr.json")
	body := "[\n{\"year\": 1, \"title\": \"a\"},\n{\"year\": 2, \"title\": \"b\",\n{\"year\": 3, \"title\": \"c\"}\n]\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startDynago(t, engine.Options{})
	code, _, errOut := runMain("load", "--endpoint", srv.Endpoint(), "--quiet", "--skip-bad", "--create", "--key", "year:N,title:S", "Arr", path)
	if code != 1 || strings.Count(errOut, "skipped: ") != 1 || !strings.Contains(errOut, path+":3: invalid JSON") ||
		!strings.Contains(errOut, "reading stopped at the syntax error in the JSON array") {
		t.Fatalf("exit %d, stderr %.2000q; want exit 1, the error at line 3 skipped once, then the stop", code, errOut)
	}
	if n := countItems(t, srv, "Arr"); n > 1 {
		t.Fatalf("table holds %d items, want at most the one before the error", n)
	}
}
