package dataio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// destFor is a destination name for a format (a .csv name for CSV, a
// folder for an export, which Open then detects).
func destFor(dir string, f Format) string {
	switch f {
	case FormatCSV:
		return filepath.Join(dir, "items.csv")
	case FormatExport:
		return filepath.Join(dir, "export")
	}
	return filepath.Join(dir, "items."+string(f))
}

// TestMoviesRoundTrip reads moviedata.json (one JSON array, detected),
// writes it in each format and reads it back: the same items, numbers'
// text exact.
func TestMoviesRoundTrip(t *testing.T) {
	movies := openAll(t, moviesPath, ReadOptions{})
	if len(movies) != 4610 {
		t.Fatalf("%d movies, want 4610", len(movies))
	}
	info := movies[0]["info"].(*types.AttributeValueMemberM).Value
	if n := info["rating"].(*types.AttributeValueMemberN).Value; n != "8.3" {
		t.Fatalf("Rush's rating %q, want 8.3", n)
	}
	for _, f := range []Format{FormatJSON, FormatDynamoDBJSON, FormatExport, FormatCSV} {
		t.Run(string(f), func(t *testing.T) {
			dest := destFor(t.TempDir(), f)
			writeAll(t, dest, WriteOptions{Format: f, ItemsPerFile: 1000}, movies)
			sameItems(t, openAll(t, dest, ReadOptions{}), movies)
		})
	}
}

// TestAllTypesRoundTrip: every type, and the corners of allTypes, through
// the formats that keep types (plain JSON does not: B and sets).
func TestAllTypesRoundTrip(t *testing.T) {
	for _, f := range []Format{FormatDynamoDBJSON, FormatExport, FormatCSV} {
		t.Run(string(f), func(t *testing.T) {
			dest := destFor(t.TempDir(), f)
			writeAll(t, dest, WriteOptions{Format: f}, allTypes())
			sameItems(t, openAll(t, dest, ReadOptions{Format: f}), allTypes())
		})
	}
}

// TestPlainJSONTypes: what plain JSON keeps of each type, with and
// without Sets.
func TestPlainJSONTypes(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "items.json")
	writeAll(t, dest, WriteOptions{Format: FormatJSON}, allTypes()[:1])
	got, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "alltypes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(golden) {
		t.Fatalf("plain JSON of allTypes:\n got %s\nwant %s", got, golden)
	}
	tests := []struct {
		sets bool
		want string // the golden's items as read back
	}{
		{false, `{"Item":{"a:b,":{"S":"odd name"},"b":{"S":"AAEC/w=="},"bs":{"L":[{"S":"AQ=="},{"S":"AgM="}]},"f":{"BOOL":false},"l":{"L":[]},"m":{"M":{"inner":{"L":[{"N":"-1E-130"},{"S":""},{"M":{}}]}}},"mix":{"N":"8.3"},"n":{"N":"12345678901234567890123456789012345678"},"ns":{"L":[{"N":"9.9999999999999999999999999999999999999E+125"},{"N":"0.5"},{"N":"-7"}]},"s":{"S":"hello, \"world\"\r\nnext"},"ss":{"L":[{"S":"b"},{"S":"a"},{"S":"ü"}]},"t":{"BOOL":true},"z":{"NULL":true}}}` + "\n"},
		{true, `{"Item":{"a:b,":{"S":"odd name"},"b":{"S":"AAEC/w=="},"bs":{"SS":["AQ==","AgM="]},"f":{"BOOL":false},"l":{"L":[]},"m":{"M":{"inner":{"L":[{"N":"-1E-130"},{"S":""},{"M":{}}]}}},"mix":{"N":"8.3"},"n":{"N":"12345678901234567890123456789012345678"},"ns":{"NS":["9.9999999999999999999999999999999999999E+125","0.5","-7"]},"s":{"S":"hello, \"world\"\r\nnext"},"ss":{"SS":["b","a","ü"]},"t":{"BOOL":true},"z":{"NULL":true}}}` + "\n"},
	}
	for _, tc := range tests {
		items := openAll(t, dest, ReadOptions{Format: FormatJSON, Sets: tc.sets})
		if len(items) != 1 || canon(t, items[0]) != tc.want {
			t.Errorf("Sets %v: read back %v", tc.sets, items)
		}
	}
}

// TestDetect: ReadOptions.Format "" by name and by the first item.
func TestDetect(t *testing.T) {
	tests := []struct {
		name, file, content string
		want                string // canon of the first item
	}{
		{"plain lines", "a.txt", `{"year":2013,"title":"Rush"}` + "\n", `{"Item":{"title":{"S":"Rush"},"year":{"N":"2013"}}}` + "\n"},
		{"plain array", "a.json", "\n\n [ {\"a\":{\"S\":\"x\"}} ]", `{"Item":{"a":{"M":{"S":{"S":"x"}}}}}` + "\n"},
		{"dynamodb item", "a.json", `{"Item":{"year":{"N":"2013"}}}`, `{"Item":{"year":{"N":"2013"}}}` + "\n"},
		{"dynamodb bare", "a.json", `{"year":{"N":"2013"}}`, `{"Item":{"year":{"N":"2013"}}}` + "\n"},
		{"attribute named Item", "a.json", `{"Item":{"M":{"a":{"S":"x"}}}}`, `{"Item":{"Item":{"M":{"a":{"S":"x"}}}}}` + "\n"},
		{"plain with object", "a.json", `{"year":{"N":2013}}`, `{"Item":{"year":{"M":{"N":{"N":"2013"}}}}}` + "\n"},
		{"csv", "a.CSV", "year,title,ok\n2013,Rush,true\n", `{"Item":{"ok":{"BOOL":true},"title":{"S":"Rush"},"year":{"N":"2013"}}}` + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			items := openAll(t, writeFile(t, tc.file, tc.content), ReadOptions{})
			if len(items) != 1 || canon(t, items[0]) != tc.want {
				t.Fatalf("read %d items: %v", len(items), items)
			}
		})
	}
}

// TestCSVTyping: CSVTypes over name:TYPE header cells over inference.
// Inference takes a number only in its canonical form, so that a zip code
// or an id with a leading zero keeps it (a new user's trial of issue 26
// found 01234 read as 1234).
func TestCSVTyping(t *testing.T) {
	inferred := openAll(t, writeFile(t, "i.csv", "a,b,c,d,e,f,g,h\n01234,1e3,1.50,+7,12,-3.5,0.25,false\n"), ReadOptions{})
	want := `{"Item":{"a":{"S":"01234"},"b":{"S":"1e3"},"c":{"S":"1.50"},"d":{"S":"+7"},"e":{"N":"12"},"f":{"N":"-3.5"},"g":{"N":"0.25"},"h":{"BOOL":false}}}`
	if got := strings.TrimSpace(canon(t, inferred[0])); got != want {
		t.Errorf("inferred\n got %s\nwant %s", got, want)
	}
	content := "zip,n:S,when,tags:SS,raw:AV,name:with:colon\n01234,5,true,\"[\"\"a\"\"]\",\"{\"\"S\"\":\"\"\"\"}\",x\n"
	items := openAll(t, writeFile(t, "t.csv", content), ReadOptions{CSVTypes: map[string]string{"zip": "S"}})
	got := canon(t, items[0])
	if !strings.Contains(got, `"zip":{"S":"01234"}`) || !strings.Contains(got, `"n":{"S":"5"}`) || !strings.Contains(got, `"when":{"BOOL":true}`) ||
		!strings.Contains(got, `"tags":{"SS":["a"]}`) || !strings.Contains(got, `"raw":{"S":""}`) || !strings.Contains(got, `"name:with:colon":{"S":"x"}`) {
		t.Fatalf("got %s", got)
	}
}

// TestPosition: Position names the file and the line each item starts on
// (blank lines counted, a pretty-printed array's elements by their first
// line, a CSV row after its header, an export's data file), so that dynago
// load can name the place of an item the table refuses (issue 26: "a bad
// line is reported with its file and line number").
func TestPosition(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	export := filepath.Join(dir, "export")
	writeAll(t, export, WriteOptions{Format: FormatExport}, []Item{{"k": &types.AttributeValueMemberS{Value: "a"}}, {"k": &types.AttributeValueMemberS{Value: "b"}}})
	for _, tc := range []struct {
		name  string
		path  string
		lines []int
	}{
		{"JSON lines", write("a.json", "{\"k\": 1}\n\n{\"k\": 2}\n{\"k\": 3}\n"), []int{1, 3, 4}},
		{"JSON array", write("b.json", "[\n  {\"k\": 1},\n  {\n    \"k\": 2\n  }\n]\n"), []int{2, 3}},
		{"DynamoDB JSON", write("c.json", "{\"Item\": {\"k\": {\"N\": \"1\"}}}\n{\"Item\": {\"k\": {\"N\": \"2\"}}}\n"), []int{1, 2}},
		{"CSV", write("d.csv", "k:N,v\n1,x\n2,y\n"), []int{2, 3}},
		{"export", export, []int{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(tc.path, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, line := r.Position(); line != 0 {
				t.Errorf("line %d before the first item, want 0", line)
			}
			for i, want := range tc.lines {
				if _, err := r.Next(); err != nil {
					t.Fatal(err)
				}
				file, line := r.Position()
				if line != want {
					t.Errorf("item %d: line %d, want %d", i+1, line, want)
				}
				if tc.name == "export" {
					if !strings.HasSuffix(file, ".json.gz") {
						t.Errorf("item %d: file %s, want the data file", i+1, file)
					}
				} else if file != tc.path {
					t.Errorf("item %d: file %s, want %s", i+1, file, tc.path)
				}
			}
		})
	}
}
