package check

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design"
)

// wantMarker finds `# want "regexp" ...` comments: each quoted regexp
// must match a diagnostic reported on that line (as go/analysis's
// analysistest does).
var wantMarker = regexp.MustCompile(`#\s*want\s+((?:"(?:[^"\\]|\\.)*"\s*)+)$`)

// wants returns the expected diagnostics of a file by line.
func wants(t *testing.T, path string) map[int][]*regexp.Regexp {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]*regexp.Regexp{}
	quoted := regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	for i, line := range strings.Split(string(raw), "\n") {
		m := wantMarker.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, q := range quoted.FindAllString(m[1], -1) {
			s, err := strconv.Unquote(q)
			if err != nil {
				t.Fatalf("%s:%d: bad want %s", path, i+1, q)
			}
			out[i+1] = append(out[i+1], regexp.MustCompile(s))
		}
	}
	return out
}

// TestRules runs every rule over each design in testdata: each
// diagnostic must be wanted by a marker on its line, and each marker
// matched.
func TestRules(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.design.yaml")
	if len(files) == 0 {
		t.Fatal("no testdata designs")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			d, diags, err := design.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(diags) == 0 {
				// Rules run on a file that parses (as design check does).
				diags = Check(d, Rules)
			}
			want := wants(t, path)
			for _, dg := range diags {
				res := want[dg.Line]
				i := 0
				for i < len(res) && !res[i].MatchString(dg.Message+" ["+dg.Rule+"]") {
					i++
				}
				if i == len(res) {
					t.Errorf("%s: unexpected %s", path, dg)
					continue
				}
				want[dg.Line] = append(res[:i], res[i+1:]...)
			}
			for line, res := range want {
				for _, re := range res {
					t.Errorf("%s:%d: no diagnostic matching %q", path, line, re)
				}
			}
		})
	}
}

// TestRulesDocumented: every rule has a name and a doc, and the names
// are distinct.
func TestRulesDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if r.Name == "" || len(r.Doc) < 40 || seen[r.Name] {
			t.Errorf("rule %q: want a unique name and a doc", r.Name)
		}
		seen[r.Name] = true
	}
}
