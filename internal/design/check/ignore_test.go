package check

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design"
)

// findings renders diagnostics as LINE rule, sorted, for comparison.
func findings(ds []design.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%d %s", d.Line, d.Rule))
	}
	slices.Sort(out)
	return out
}

// checkText parses a design and runs rules over it; a syntax problem
// fails t.
func checkText(t *testing.T, text string, rules []*Rule) []design.Diagnostic {
	t.Helper()
	d, diags := design.Parse("ignore.design.yaml", []byte(text))
	if len(diags) > 0 {
		t.Fatalf("syntax: %v", diags)
	}
	return Check(d, rules)
}

// TestIgnore: a dynago:ignore comment above an entity's name covers the
// entity, one at the end of a line covers that line only, one at the end
// of a pattern's first line or on the line above it covers the pattern;
// a comment that covers nothing
// and one naming no rule are warnings. The same file without its
// comments has every finding the comments silence.
func TestIgnore(t *testing.T) {
	raw, err := os.ReadFile("testdata/ignore/ignore.design.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := checkText(t, string(raw), Rules)
	want := []string{"25 limits", "37 ignore", "41 ignore"}
	if !slices.Equal(findings(got), want) {
		t.Errorf("with the comments: %v, want %v\n%v", findings(got), want, got)
	}
	for _, d := range got {
		if d.Line == 41 && !strings.Contains(d.Message, `no rule "key-conditon" (did you mean key-condition?)`) {
			t.Errorf("misspelt rule: %s", d)
		}
		if d.Line == 37 && !strings.Contains(d.Message, "dynago:ignore hot-keys silences nothing here") {
			t.Errorf("stale ignore: %s", d)
		}
	}
	plain := regexp.MustCompile(`(?m) *# dynago:ignore.*$`).ReplaceAllString(string(raw), "")
	want = []string{"15 limits", "24 limits", "25 limits", "34 key-condition", "45 key-condition", "49 key-condition"}
	if got := findings(checkText(t, plain, Rules)); !slices.Equal(got, want) {
		t.Errorf("without the comments: %v, want %v", got, want)
	}
	// Only the rules that ran can make an ignore stale: without hot-keys,
	// its ignore is not reported.
	rules, err := Without([]string{"hot-keys"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := findings(checkText(t, string(raw), rules)), []string{"25 limits", "41 ignore"}; !slices.Equal(got, want) {
		t.Errorf("without hot-keys: %v, want %v", got, want)
	}
}

// TestIgnore_Malformed: an ignore comment without a rule or a reason is
// a syntax error at its line; a comment that only mentions the word is
// not a directive.
func TestIgnore_Malformed(t *testing.T) {
	const base = "version: 1\ntable: {name: shop, partitionKey: {name: PK, type: S}}\nentities:\n  User:\n    attributes: {UserId: S}\n    keys: {PK: USER#<UserId>}\npatterns:\n  - id: get-user%s\n    key: PK = USER#<UserId>\n    returns: [User]\n"
	for _, tc := range []struct{ comment, want string }{
		{" # dynago:ignore", "names the rule it silences"},
		{" # dynago:ignore key-condition", "needs a reason after the rule"},
		{" # see the docs on dynago:ignore", ""},
		{" # dynago:ignore key-condition,inputs two rules, one reason", ""},
	} {
		_, diags := design.Parse("x.design.yaml", []byte(fmt.Sprintf(base, tc.comment)))
		switch {
		case tc.want == "" && len(diags) > 0:
			t.Errorf("%q: %v", tc.comment, diags)
		case tc.want != "" && (len(diags) != 1 || diags[0].Line != 8 || diags[0].Rule != "syntax" || !strings.Contains(diags[0].Message, tc.want)):
			t.Errorf("%q: %v, want a syntax error at line 8 with %q", tc.comment, diags, tc.want)
		}
	}
}

// TestWithout: --disable drops the named rules and refuses a name that
// is no rule, listing the rules.
func TestWithout(t *testing.T) {
	rules, err := Without([]string{"key-condition", "limits"})
	if err != nil || len(rules) != len(Rules)-2 || slices.Contains(rules, KeyConditionRule) || slices.Contains(rules, LimitsRule) {
		t.Errorf("Without: %d rules, %v", len(rules), err)
	}
	if _, err := Without([]string{"hot-key"}); err == nil || !strings.Contains(err.Error(), `no rule "hot-key" (did you mean hot-keys?); the rules are templates, key-condition`) {
		t.Errorf("unknown rule: %v", err)
	}
}
