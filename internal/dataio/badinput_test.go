package dataio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// readResults reads r to its end (or to an error that is not a
// *BadInput), returning the items and the errors met, in order.
func readResults(t testing.TB, r Reader) (items []Item, bad []*BadInput, end error) {
	t.Helper()
	for range 1000 {
		item, err := r.Next()
		if err == io.EOF {
			return items, bad, nil
		}
		var b *BadInput
		if errors.As(err, &b) && err == error(b) {
			bad = append(bad, b)
			continue
		}
		if err != nil {
			return items, bad, err
		}
		items = append(items, item)
	}
	t.Fatal("Next goes on for ever (1000 calls)")
	return
}

// TestLineErrors: what a bad-input trial of issue 26 found in lines of
// JSON and DynamoDB JSON (and checked in Ion): invalid UTF-8 replaced by
// U+FFFD, so that two names became one; a name given twice kept its last
// value; a path said twice in a message; base64's "illegal base64 data".
// Each line is a *BadInput whose message has want.
func TestLineErrors(t *testing.T) {
	tests := []struct {
		name, file, line string
		format           Format
		want             string
	}{
		{"utf8 value", "a.json", "{\"id\":\"x\xff\"}", FormatJSON, "not UTF-8"},
		{"utf8 name", "a.json", "{\"x\xfe\":1}", FormatJSON, "not UTF-8"},
		{"utf8 ddb value", "a.json", "{\"id\":{\"S\":\"x\xff\"}}", FormatDynamoDBJSON, "not UTF-8"},
		{"utf8 ddb name", "a.json", "{\"Item\":{\"x\xfe\":{\"S\":\"a\"}}}", FormatDynamoDBJSON, "not UTF-8"},
		{"utf8 ion", "a.ion", "$ion_1_0 {Item:{id:\"x\xff\"}}", "", "not UTF-8"},
		{"utf8 ion name", "a.ion", "$ion_1_0 {Item:{'x\xff':1.}}", "", "not UTF-8"},
		{"twice", "a.json", `{"id":"a","id":"b"}`, FormatJSON, `attribute "id" appears twice`},
		{"twice nested", "a.json", `{"id":"a","m":{"k":1,"k":2}}`, FormatJSON, `attribute "m"."k" appears twice`},
		{"twice in a list", "a.json", `{"id":"a","l":[{"k":1,"k":1}]}`, FormatJSON, `attribute "l"[0]."k" appears twice`},
		{"twice ddb", "a.json", `{"id":{"S":"a"},"id":{"S":"b"}}`, FormatDynamoDBJSON, `attribute "id" appears twice`},
		{"twice ddb nested", "a.json", `{"Item":{"m":{"M":{"k":{"N":"1"},"k":{"N":"2"}}}}}`, FormatDynamoDBJSON, `attribute "m"."k" appears twice`},
		{"twice type key", "a.json", `{"id":{"S":"a","S":"b"}}`, FormatDynamoDBJSON, `attribute "id": type key "S" appears twice`},
		{"twice Item", "a.json", `{"Item":{"id":{"S":"a"}},"Item":{"id":{"S":"b"}}}`, FormatDynamoDBJSON, `"Item" appears twice`},
		{"twice ion", "a.ion", `$ion_1_0 {Item:{id:"a",id:"b"}}`, "", `field "id" twice`},
		{"path once", "a.json", `{"v":{"M":"x"}}`, FormatDynamoDBJSON, `attribute "v": want an object`},
		{"base64", "a.json", `{"b":{"B":"!!"}}`, FormatDynamoDBJSON, "invalid base64 at byte 1 (standard encoding with padding)"},
		{"base64 set", "a.json", `{"b":{"BS":["AQ"]}}`, FormatDynamoDBJSON, "invalid base64 at byte 1 (standard encoding with padding)"},
		{"base64 ion", "a.ion", `$ion_1_0 {Item:{b:{{!!}}}}`, "", "invalid base64 at byte 1 (standard encoding with padding)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, tc.file, "{\"ok\":{\"S\":\"first\"}}\n"+tc.line+"\n")
			if tc.format == FormatJSON {
				p = writeFile(t, tc.file, "{\"ok\":\"first\"}\n"+tc.line+"\n")
			}
			var r Reader
			var err error
			if strings.HasSuffix(tc.file, ".ion") {
				p = writeFile(t, tc.file, "$ion_1_0 {Item:{ok:\"first\"}}\n"+tc.line+"\n")
				r, err = openIonFile(p)
			} else {
				r, err = Open(p, ReadOptions{Format: tc.format})
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			items, bad, end := readResults(t, r)
			if end != nil || len(items) != 1 || len(bad) != 1 || bad[0].Line != 2 {
				t.Fatalf("items %d, bad %v, end %v; want 1 item and a *BadInput at line 2", len(items), bad, end)
			}
			if msg := bad[0].Error(); !strings.Contains(msg, tc.want) || strings.Count(msg, `attribute "`) > 1 {
				t.Fatalf("message %q, want %q (and one path)", msg, tc.want)
			}
		})
	}
}

// TestDetectSkipsTwice: a first line with a name given twice does not
// decide the format (a bad-input trial of issue 26: it made a DynamoDB
// JSON file read as plain JSON).
func TestDetectSkipsTwice(t *testing.T) {
	r, err := Open(writeFile(t, "a.json", "{\"a\":{\"S\":\"x\"},\"a\":{\"S\":\"y\"}}\n{\"a\":{\"N\":\"1\"}}\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	items, bad, end := readResults(t, r)
	if end != nil || len(bad) != 1 || len(items) != 1 || canon(t, items[0]) != `{"Item":{"a":{"N":"1"}}}`+"\n" {
		t.Fatalf("items %v, bad %v, end %v", items, bad, end)
	}
}

// fixtureExport copies the DynamoDB JSON export fixture (a .json.gz data
// file of 2 items listed first, a .json one of 1) to a temporary folder.
func fixtureExport(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/export-ddbjson/AWSDynamoDB/01604474914028-a1b2c3d4")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestExportBadDataFile: a data file that cannot be opened or
// decompressed is one *BadInput at the file, and reading goes on with the
// next data file (a bad-input trial of issue 26: a zstd stream or an
// empty file named .json.gz was reopened for ever, "gzip: gzip: invalid
// header" each time, so that load --skip-bad never ended); a data file
// whose MD5 does not match is one *BadInput before any of its items.
func TestExportBadDataFile(t *testing.T) {
	zenc, _ := zstd.NewWriter(nil)
	zdata := zenc.EncodeAll([]byte(`{"Item":{"a":{"S":"x"}}}`+"\n"), nil)
	zenc.Close()
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte(strings.Repeat(`{"Item":{"a":{"S":"x"}}}`+"\n", 100)))
	gw.Close()
	corrupt := append([]byte{}, gz.Bytes()...)
	corrupt[len(corrupt)-6] ^= 0xff // the CRC
	tests := []struct {
		name string
		data []byte // nil: keep the file, alter its md5Checksum
		want string
	}{
		{"zstd named .gz", zdata, "not a gzip file (gzip: invalid header)"},
		{"empty", []byte{}, "not a gzip file (an empty file)"},
		{"bad crc", corrupt, "cannot be decompressed"},
		{"md5", nil, "has md5Checksum"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixtureExport(t)
			gzName := filepath.Join(dir, "data", "tdwvqm3n5qzl3lhkhmd5gmvb4e.json.gz")
			if tc.data != nil {
				if err := os.WriteFile(gzName, tc.data, 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				fb, _ := os.ReadFile(filepath.Join(dir, filesName))
				os.WriteFile(filepath.Join(dir, filesName), []byte(strings.Replace(string(fb), `"md5Checksum":"`, `"md5Checksum":"x`, 1)), 0o644)
			}
			r, err := Open(dir, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			items, bad, end := readResults(t, r)
			if end != nil || len(bad) != 1 || len(items) != 1 {
				t.Fatalf("items %d, bad %v, end %v; want 1 *BadInput, then the other file's 1 item", len(items), bad, end)
			}
			if msg := bad[0].Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "gzip: gzip") {
				t.Fatalf("message %q, want %q", msg, tc.want)
			}
			if done, total := r.Progress(); done != total {
				t.Errorf("Progress %d/%d at the end", done, total)
			}
		})
	}
}

// TestWriterAbort: Abort leaves an export without manifests, which Open
// refuses by name (a bad-input trial of issue 26: a dump that failed left
// a folder that could pass for an export); the other formats keep their
// file.
func TestWriterAbort(t *testing.T) {
	for _, f := range []Format{FormatExport, FormatJSON, FormatDynamoDBJSON, FormatCSV} {
		t.Run(string(f), func(t *testing.T) {
			dest := destFor(t.TempDir(), f)
			w, err := Create(dest, WriteOptions{Format: f, ExportID: "x"})
			if err != nil {
				t.Fatal(err)
			}
			for _, item := range allTypes() {
				if err := w.Write(item); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Abort(); err != nil {
				t.Fatalf("Abort: %v", err)
			}
			if f != FormatExport {
				if _, err := os.Stat(dest); err != nil {
					t.Fatal(err)
				}
				return
			}
			dir := filepath.Join(dest, "AWSDynamoDB", "x")
			for _, name := range []string{summaryName, filesName} {
				if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
					t.Errorf("%s written by Abort", name)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "_started")); err != nil {
				t.Error(err)
			}
			_, err = Open(dest, ReadOptions{})
			if err == nil || !strings.Contains(err.Error(), dir+" has no manifest-summary.json") || !strings.Contains(err.Error(), "not an export, or an unfinished one") {
				t.Fatalf("Open of an aborted export: %v", err)
			}
		})
	}
}

// TestCSVQuoteEndsReading: a quoted field in error is a *BadInput, then
// the reading stops with a plain error (a bad-input trial of issue 26: a
// quote not closed took the rest of the file into one field, so that
// skipping it lost every later row without a word); a bare quote and a
// row of the wrong cell count stay skippable.
func TestCSVQuoteEndsReading(t *testing.T) {
	tests := []struct {
		name, content string
		items         int
		bad           []int
		stops         bool
	}{
		{"not closed", "a,b\n1,2\n\"open,2\n3,4\n5,6\n", 1, []int{3}, true},
		{"text after the quote", "a,b\n1,2\n\"x\"y,2\n3,4\n", 1, []int{3}, true},
		{"bare quote", "a,b\n1,2\nx\"y,2\n3,4\n", 2, []int{3}, false},
		{"cell count", "a,b\n1,2\n1\n3,4\n", 2, []int{3}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(writeFile(t, "a.csv", tc.content), ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			items, bad, end := readResults(t, r)
			var lines []int
			for _, b := range bad {
				lines = append(lines, b.Line)
			}
			if len(items) != tc.items || !slices.Equal(lines, tc.bad) || (end != nil) != tc.stops {
				t.Fatalf("items %d, bad lines %v, end %v; want %d, %v, stops %v", len(items), lines, end, tc.items, tc.bad, tc.stops)
			}
			if tc.stops && !strings.Contains(end.Error(), "reading stopped") {
				t.Fatalf("end %q", end)
			}
		})
	}
}

// TestCSVHeaderTypes: a header cell's suffix that looks like a type but
// is not one, and a CSVTypes entry for no column, are errors from Open
// (a bad-input trial of issue 26: v:Q silently became an attribute named
// "v:Q", and a CSVTypes entry for a misspelt column did nothing); a type
// suffix is read in any case.
func TestCSVHeaderTypes(t *testing.T) {
	tests := []struct {
		name, header string
		types        map[string]string
		want         string // in Open's error; "" for none
		cols         []csvColumn
	}{
		{"unknown type", "id,v:Q", nil, `column 2: "v:Q": Q is not a type`, nil},
		{"unknown long type", "id,v:INT", nil, "INT is not a type", nil},
		{"lower case", "id:s,v:bool", nil, "", []csvColumn{{"id", "S"}, {"v", "BOOL"}}},
		{"not a type shape", "t:12,u:item-id,w:", nil, "", []csvColumn{{"t:12", ""}, {"u:item-id", ""}, {"w:", ""}}},
		{"name with a colon", "ns:name:S", nil, "", []csvColumn{{"ns:name", "S"}}},
		{"CSVTypes no column", "id,v", map[string]string{"nosuch": "N"}, "CSVTypes names column nosuch, which the header does not have", nil},
		{"CSVTypes lower case", "id,v", map[string]string{"v": "n"}, "", []csvColumn{{"id", ""}, {"v", "N"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(writeFile(t, "a.csv", tc.header+"\n"), ReadOptions{CSVTypes: tc.types})
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Open: %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if cols := r.(*csvReader).cols; !slices.Equal(cols, tc.cols) {
				t.Fatalf("columns %v, want %v", cols, tc.cols)
			}
		})
	}
}

// TestLongLine: a line over 16 MiB is one *BadInput at its line, and
// reading goes on at the next line, in every line format (a bad-input
// trial of issue 26: a file without newlines was read whole into
// memory).
func TestLongLine(t *testing.T) {
	long := strings.Repeat("x", maxLine+1)
	tests := []struct {
		name, file, content string
		opts                ReadOptions
		at                  int // the long line's
	}{
		{"json", "a.json", "{\"a\":1}\n{\"a\":\"" + long + "\"}\n{\"a\":3}\n", ReadOptions{Format: FormatJSON}, 2},
		{"dynamodb json", "a.json", "{\"a\":{\"N\":\"1\"}}\n{\"a\":{\"S\":\"" + long + "\"}}\n{\"a\":{\"N\":\"3\"}}\n", ReadOptions{Format: FormatDynamoDBJSON}, 2},
		{"no newline at the end", "a.json", "{\"a\":1}\n" + long + "\n{\"a\":3}", ReadOptions{Format: FormatJSON}, 2},
		{"ion", "a.ion", "$ion_1_0 {Item:{a:1.}}\n" + long + "\n$ion_1_0 {Item:{a:3.}}\n", ReadOptions{}, 2},
		{"csv", "a.csv", "a\n1\n" + long + "\n3\n", ReadOptions{}, 3},
		{"csv quoted", "a.csv", "a\n1\n\"" + long + "\"\n3\n", ReadOptions{}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := openTestFile(t, writeFile(t, tc.file, tc.content), tc.file == "a.ion", tc.opts)
			defer r.Close()
			first, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Next()
			if badLine(t, err) != tc.at || !strings.Contains(err.Error(), "is over 16 MiB: not one item") {
				t.Fatalf("second line: %v", err)
			}
			third, err := r.Next()
			if err != nil {
				t.Fatalf("after the long line: %v", err)
			}
			if _, line := r.Position(); line != tc.at+1 || len(first) != 1 || len(third) != 1 {
				t.Fatalf("third item %v at line %d", third, line)
			}
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("at the end: %v", err)
			}
		})
	}
}

// TestDevZero: reading a source of no newlines ends with a *BadInput
// once the limit is passed, in memory bounded by a few times the limit
// (encoding/csv's own buffers for CSV), for a detected JSON
// format (at Open), a given one (at Next) and CSV (its header) (a
// bad-input trial of issue 26).
func TestDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, opts := range []ReadOptions{{}, {Format: FormatDynamoDBJSON}, {Format: FormatCSV}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := Open("/dev/zero", opts)
		if err == nil {
			_, err = r.Next()
			r.Close()
		}
		runtime.ReadMemStats(&after)
		var b *BadInput
		if !errors.As(err, &b) || !strings.Contains(err.Error(), "over 16 MiB") {
			t.Fatalf("%v: %v, want a *BadInput", opts, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 10*maxLine {
			t.Errorf("%v: %d bytes allocated", opts, grew)
		}
	}
}

// TestCompressedJSON: a JSON or DynamoDB JSON source that is gzip or
// zstd is decompressed, its format detected in the decompressed text (a
// bad-input trial of issue 26: items.json.gz was read as text, "invalid
// character '\x1f'" on every line).
func TestCompressedJSON(t *testing.T) {
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	zst := func(s string) string {
		enc, _ := zstd.NewWriter(nil)
		defer enc.Close()
		return string(enc.EncodeAll([]byte(s), nil))
	}
	ddb := "{\"Item\":{\"a\":{\"N\":\"1\"}}}\n{\"a\":{\"N\":\"2\"}}\n"
	tests := []struct {
		name, content string
		opts          ReadOptions
		want          string // the second item; "" for Open's error
	}{
		{"gzip lines", gz("{\"a\":1}\n{\"a\":2}\n"), ReadOptions{}, `{"Item":{"a":{"N":"2"}}}`},
		{"gzip dynamodb json", gz(ddb), ReadOptions{}, `{"Item":{"a":{"N":"2"}}}`},
		{"gzip dynamodb json given", gz(ddb), ReadOptions{Format: FormatDynamoDBJSON}, `{"Item":{"a":{"N":"2"}}}`},
		{"zstd array", zst("[{\"a\":\"x\"},\n{\"a\":\"y\"}]"), ReadOptions{}, `{"Item":{"a":{"S":"y"}}}`},
		{"zstd lines", zst("{\"a\":true}\n{\"a\":false}\n"), ReadOptions{Format: FormatJSON}, `{"Item":{"a":{"BOOL":false}}}`},
		{"gzip cut off", gz("{\"a\":1}\n")[:5], ReadOptions{}, ""},
		{"gzip csv", gz("a:N\n1\n2\n"), ReadOptions{Format: FormatCSV}, `{"Item":{"a":{"N":"2"}}}`},
		{"gzip csv by name", gz("a:N\n1\n2\n"), ReadOptions{}, `{"Item":{"a":{"N":"2"}}}`},
		{"zstd csv", zst("a:S\nx\ny\n"), ReadOptions{Format: FormatCSV}, `{"Item":{"a":{"S":"y"}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := "items.json.gz"
			if strings.HasSuffix(tc.name, "by name") {
				name = "items.csv.gz"
			}
			p := writeFile(t, name, tc.content)
			r, err := Open(p, tc.opts)
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), "not a gzip file") {
					t.Fatalf("Open: %v, want not a gzip file", err)
				}
				badLine(t, err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			items, bad, end := readResults(t, r)
			if len(items) != 2 || len(bad) != 0 || end != nil || canon(t, items[1]) != tc.want+"\n" {
				t.Fatalf("items %v, bad %v, end %v", items, bad, end)
			}
			if done, total := r.Progress(); done != total || total != int64(len(tc.content)) {
				t.Errorf("Progress %d/%d, want %d", done, total, len(tc.content))
			}
		})
	}
}

// TestLongArrayElement: an element of one JSON array longer than maxLine
// (with a margin for the decoder's read-ahead, under 1 MiB) is one
// *BadInput, read no further than that (the decoder would otherwise hold
// it whole), and then the reading stops, as after a syntax error in an
// array (a bad-input trial of issue 26 left elements without a limit).
func TestLongArrayElement(t *testing.T) {
	long := `[{"a": 1}, {"a": "` + strings.Repeat("x", maxLine+1<<20) + `"}, {"a": 3}]`
	r := openTestFile(t, writeFile(t, "a.json", long), false, ReadOptions{})
	defer r.Close()
	if _, err := r.Next(); err != nil {
		t.Fatalf("first element: %v", err)
	}
	_, err := r.Next()
	var bad *BadInput
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "an array element over 16 MiB") {
		t.Fatalf("the long element: %v; want a *BadInput naming the limit", err)
	}
	if _, err := r.Next(); err == nil || errors.As(err, &bad) {
		t.Fatalf("after it: %v; want the reading stopped (not a *BadInput)", err)
	}
}
