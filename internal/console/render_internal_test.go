package console

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestPagesParse parses every page template with the layout and checks
// each defines the title and content the layout calls for (pages are
// parsed lazily at serve time, so a broken one would only show there).
func TestPagesParse(t *testing.T) {
	ps := mustParsePages()
	if len(ps) == 0 {
		t.Fatal("no pages")
	}
	for name, tmpl := range ps {
		for _, def := range []string{"layout", "title", "content"} {
			if tmpl.Lookup(def) == nil {
				t.Errorf("page %s defines no %q", name, def)
			}
		}
	}
}

// rawjson indents JSON as json.Indent does, unless indenting would make
// it far longer than it is: then it is shown as it came.
func TestRawJSON(t *testing.T) {
	rawjson := funcs["rawjson"].(func([]byte) string)
	deep := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	wide := strings.Repeat("[", 60) + strings.Repeat("1,", 300000) + "1" + strings.Repeat("]", 60)
	tests := []struct {
		name, in string
		indent   bool
	}{
		{"an item", `{"Item":{"pk":{"S":"a,b:[c]"},"m":{"M":{"x":{"L":[{"N":"1"},{"S":"\"]"}]}}},"e":{"L":[]}}}`, true},
		{"a page of items", `{"Items":[` + strings.Repeat(`{"pk":{"S":"a"},"n":{"N":"1"}},`, 5000) + `{}]}`, true},
		{"not JSON", `{"a":`, false},
		{"9,000 levels deep", deep, false},
		{"wide at 60 levels", wide, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := rawjson([]byte(tc.in))
			var want bytes.Buffer
			if tc.indent {
				if err := json.Indent(&want, []byte(tc.in), "", "  "); err != nil {
					t.Fatal(err)
				}
				if n := indentedLen([]byte(tc.in), math.MaxInt); n < want.Len() {
					t.Errorf("indentedLen %d, less than the indented %d", n, want.Len())
				}
			} else {
				want.WriteString(tc.in)
			}
			if got != want.String() {
				t.Errorf("got %.200q, want %.200q", got, want.String())
			}
		})
	}
}
