package console_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/dataio"
)

// download fetches path and returns the status, the headers and the body.
func download(t *testing.T, e *env, path string) (int, http.Header, []byte) {
	t.Helper()
	res, err := e.client.Get(e.ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

// readBack reads a download with dataio (as dynago load does, the format
// detected from the name and content) and returns its items in DynamoDB
// JSON, sorted.
func readBack(t *testing.T, name string, body []byte) []string {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, name)
	if err := os.WriteFile(in, body, 0o600); err != nil {
		t.Fatal(err)
	}
	rd, err := dataio.Open(in, dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	out := filepath.Join(dir, "back.dynamodb.json")
	wr, err := dataio.Create(out, dataio.WriteOptions{Format: dataio.FormatDynamoDBJSON})
	if err != nil {
		t.Fatal(err)
	}
	for {
		it, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("dataio reads %s: %v", name, err)
		}
		wr.Write(it)
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	var items []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var v struct{ Item map[string]any }
		json.Unmarshal([]byte(line), &v)
		c, _ := json.Marshal(v.Item)
		items = append(items, string(c))
	}
	sort.Strings(items)
	return items
}

// scanned is every item of table Shelf through Scan, in DynamoDB JSON,
// sorted; plain turns sets into lists (what plain JSON keeps of them).
func scanned(t *testing.T, e *env, plain bool) []string {
	t.Helper()
	out := e.api("Scan", `{"TableName":"Shelf"}`)
	var items []string
	for _, it := range out["Items"].([]any) {
		m := it.(map[string]any)
		if plain {
			for k, v := range m {
				if ss, ok := v.(map[string]any)["SS"].([]any); ok {
					var l []any
					for _, s := range ss {
						l = append(l, map[string]any{"S": s})
					}
					m[k] = map[string]any{"L": l}
				}
			}
		}
		c, _ := json.Marshal(m)
		items = append(items, string(c))
	}
	sort.Strings(items)
	return items
}

func TestDownload(t *testing.T) {
	e := shelfEnv(t)
	e.api("PutItem", `{"TableName":"Shelf","Item":{"id":{"S":"bin"},"n":{"N":"3"},"raw":{"B":"AQID"},"nums":{"NS":["1","2.5"]},
		"empty":{"S":""},"cr":{"S":"a\r\nb"},"nil":{"NULL":true},"ok":{"BOOL":false},"l":{"L":[{"N":"1"},{"M":{"x":{"S":"y"}}}]}}}`)
	// With a page of 1 the whole result spans three pages: "all" follows
	// LastEvaluatedKey (API reference, Scan), "page" is the page alone.
	tests := []struct {
		name, query, file string
		plain             bool
	}{
		{"CSV", "format=csv&limit=1", "Shelf.csv", false},
		// JSON Lines are .jsonl (not .json: the file is no one JSON
		// document); dynago load (dataio) detects both by their content.
		{"DynamoDB JSON", "format=dynamodb-json&limit=1", "Shelf.dynamodb.jsonl", false},
		{"plain JSON", "format=json&limit=1", "Shelf.jsonl", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, h, body := download(t, e, "/console/tables/Shelf/download?op=scan&"+tc.query)
			if code != http.StatusOK {
				t.Fatalf("%d %s", code, body)
			}
			if cd := h.Get("Content-Disposition"); cd != `attachment; filename="`+tc.file+`"` {
				t.Errorf("Content-Disposition %q", cd)
			}
			got, want := readBack(t, tc.file, body), scanned(t, e, tc.plain)
			if tc.plain {
				// Plain JSON also has no B: the binary reads back as its
				// base64 text.
				for i, s := range want {
					want[i] = strings.Replace(strings.Replace(s, `{"B":"AQID"}`, `{"S":"AQID"}`, 1), `"nums":{"NS":["1","2.5"]}`, `"nums":{"L":[{"N":"1"},{"N":"2.5"}]}`, 1)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read back:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
	// The links say what the files are.
	_, page := e.get("/console/tables/Shelf?limit=1")
	for _, want := range []string{`id="d-json">JSON lines</a>`, `id="d-dynamodb-json">DynamoDB JSON lines</a>`, `id="d-csv">CSV</a>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks the download link %s", want)
		}
	}
	// The page alone: one item.
	_, _, body := download(t, e, "/console/tables/Shelf/download?op=scan&limit=1&scope=page&format=dynamodb-json")
	if n := strings.Count(strings.TrimSpace(string(body)), "\n") + 1; n != 1 {
		t.Errorf("a page of 1: %d items", n)
	}
	// A query's result, through the builder's parameters.
	_, _, body = download(t, e, "/console/tables/Shelf/download?op=query&pk=book&format=json")
	if s := strings.TrimSpace(string(body)); strings.Count(s, "\n") != 0 || !strings.Contains(s, `"id":"book"`) {
		t.Errorf("the query's download: %s", body)
	}
	for _, bad := range []string{"format=xml", "format=json&limit=x"} {
		if code, _, _ := download(t, e, "/console/tables/Shelf/download?"+bad); code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", bad, code)
		}
	}
	if code, _, _ := download(t, e, "/console/tables/Nope/download?format=json"); code != http.StatusNotFound {
		t.Errorf("unknown table: %d, want 404", code)
	}
}
