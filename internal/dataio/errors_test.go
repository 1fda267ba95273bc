package dataio

import (
	"errors"
	"io"
	"testing"
)

// TestBadInput: each source's bad lines are *BadInputs at their 1-based
// lines, and reading goes on past them (--skip-bad).
func TestBadInput(t *testing.T) {
	tests := []struct {
		name, file, content string
		opts                ReadOptions
		items               int   // good items read
		bad                 []int // lines of the *BadInputs, in order
	}{
		{"dynamodb json", "a.json", `{"Item":{"a":{"S":"ok"}}}
{"a":{"N":5}}
{"a":{"X":"1"}}
{"a":{"S":"x","N":"1"}}
{"a":{"N":"1e200"}}
{"a":{"N":"123456789012345678901234567890123456789"}}
{"a":{"NS":[]}}
{"a":{"SS":["x","x"]}}
{"a":{"B":"not base64!"}}
{"a":{"NULL":false}}

{"Item":{"a":{"N":"1E-131"}}}
{"a":{"S":"ok"}}
{"a":{"S":"trunc`, ReadOptions{Format: FormatDynamoDBJSON}, 2, []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14}},
		{"plain lines", "a.json", `{"a":1}
{"a":1e126}
not json
{"a":[1,2]} extra
{"a":0.1}
[]`, ReadOptions{Format: FormatJSON}, 2, []int{2, 3, 4, 6}},
		{"ion", "a.ion", `$ion_1_0 {Item:{a:1.}}
$ion_1_0 {Item:{a:nan}}
$ion_1_0 {Item:{a:$dynamodb_SS::[1.]}}
$ion_1_0 {Item:{a:"open
$ion_1_0 {Item:{a:2d200}}
$ion_1_0 {Item:{a:sym}}
$ion_1_0 {Item:{a:{{"clob"}}}}
$ion_1_0 {Item:{a:2.}}`, ReadOptions{}, 2, []int{2, 3, 4, 5, 6, 7}},
		{"csv", "a.csv", "a:N,b:BOOL,c\n1,true,x\nx,true,x\n1,yes,x\n1,true\nba\"d,true,x\n2,false,y\n", ReadOptions{}, 2, []int{3, 4, 5, 6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := openTestFile(t, writeFile(t, tc.file, tc.content), tc.name == "ion", tc.opts)
			defer r.Close()
			items, bad := 0, []int{}
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					bad = append(bad, badLine(t, err))
					continue
				}
				items++
			}
			if items != tc.items || len(bad) != len(tc.bad) {
				t.Fatalf("%d items, bad lines %v; want %d, %v", items, bad, tc.items, tc.bad)
			}
			for i := range bad {
				if bad[i] != tc.bad[i] {
					t.Fatalf("bad lines %v, want %v", bad, tc.bad)
				}
			}
		})
	}
}

// openIonFile reads a file of ION export lines, as an export's data file.
func openIonFile(p string) (Reader, error) { return openDataFile(p, decodeIonLine, false) }

// TestJSONArrayErrors: in one JSON array a bad element is a *BadInput at
// its line and reading goes on; a syntax error is a *BadInput that ends
// the reading (the next Next is a plain error).
func TestJSONArrayErrors(t *testing.T) {
	content := "[\n  {\"a\": 1},\n  {\"a\":\n    1e999},\n  {\"a\": 2},\n  {\"a\" 3},\n  {\"a\": 4}\n]\n"
	r, err := Open(writeFile(t, "a.json", content), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); badLine(t, err) != 3 {
		t.Fatalf("bad element at line %d, want 3", badLine(t, err))
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); badLine(t, err) != 6 {
		t.Fatalf("syntax error at line %d, want 6", badLine(t, err))
	}
	_, err = r.Next()
	var b *BadInput
	if err == nil || err == io.EOF || errors.As(err, &b) && err == error(b) {
		t.Fatalf("after a syntax error: %v, want a plain error", err)
	}
}

// TestTruncatedArray: an array cut short is a *BadInput.
func TestTruncatedArray(t *testing.T) {
	r, err := Open(writeFile(t, "a.json", "[{\"a\":1},\n{\"a\""), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Next()
	if _, err := r.Next(); badLine(t, err) != 2 {
		t.Fatalf("line %d", badLine(t, err))
	}
}

// TestProgress: a file read to the end has consumed its size.
func TestProgress(t *testing.T) {
	r, err := Open(moviesPath, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if done, total := r.Progress(); total != 3715842 || done > total {
		t.Fatalf("Progress at the start %d/%d", done, total)
	}
	readAll(t, r)
	if done, total := r.Progress(); done != total {
		t.Fatalf("Progress at the end %d/%d", done, total)
	}
}

// TestOptionErrors: what Open and Create refuse.
func TestOptionErrors(t *testing.T) {
	if _, err := Open("-", ReadOptions{Format: FormatExport}); err == nil {
		t.Error("Open(-, export) succeeded")
	}
	if _, err := Open("x", ReadOptions{Format: "xml"}); err == nil {
		t.Error("Open with an unknown format succeeded")
	}
	if _, err := Create("-", WriteOptions{Format: FormatExport}); err == nil {
		t.Error("Create(-, export) succeeded")
	}
	if _, err := Create("x", WriteOptions{}); err == nil {
		t.Error("Create without a format succeeded")
	}
	if _, err := Open(writeFile(t, "a.csv", "a,b\n"), ReadOptions{CSVTypes: map[string]string{"a": "INT"}}); err == nil {
		t.Error("an unknown CSV type was accepted")
	}
	if _, err := Open(writeFile(t, "a.csv", "a,a\n"), ReadOptions{}); badLine(t, err) != 1 {
		t.Error("a repeated column was accepted")
	}
}

// TestDetectPastABrokenLine: detection skips lines that are not JSON, so
// that a broken first line does not make DynamoDB JSON read as plain.
func TestDetectPastABrokenLine(t *testing.T) {
	r, err := Open(writeFile(t, "a.json", "{\"a\":{\"N\n\n{\"a\":{\"N\":\"1\"}}\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); badLine(t, err) != 1 {
		t.Fatalf("bad line %d, want 1", badLine(t, err))
	}
	item, err := r.Next()
	if err != nil || canon(t, item) != `{"Item":{"a":{"N":"1"}}}`+"\n" {
		t.Fatalf("second item %v, %v", item, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last: %v", err)
	}
}
