package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestDesignCommands: check exits 0 on a clean design and 1 with its
// findings on a broken one (text and JSON); worksheet writes Markdown;
// usage errors exit 2.
func TestDesignCommands(t *testing.T) {
	const ok = "../design/testdata/ok.design.yaml"
	const hot = "../design/testdata/hotkeys.design.yaml"
	for _, tc := range []struct {
		args       []string
		code       int
		out, err   string
		jsonErrors int
	}{
		{[]string{"design", "check", ok}, 0, "ok.design.yaml: 0 errors, 0 warnings (2 entities, 5 access patterns)\n", "", -1},
		{[]string{"design", "check", hot}, 1, "hotkeys.design.yaml:22:15: error: hot partition key: GSI1PK = ALL_POSTS", "", -1},
		{[]string{"design", "check", "--format", "json", hot}, 1, `"rule": "hot-keys"`, "", 3},
		{[]string{"design", "check", "--format", "json", ok}, 0, `"diagnostics": []`, "", 0},
		{[]string{"design", "worksheet", ok}, 0, "| get-user | Get a user's profile | Base table: PK = `USER#<UserId>`, SK = `PROFILE` |", "", -1},
		{[]string{"design", "worksheet", "../design/testdata/syntax.design.yaml"}, 1, "", "(fix the file, then write its worksheet)", -1},
		{[]string{"design", "check"}, 2, "", "check takes one design file, got 0 arguments", -1},
		{[]string{"design", "check", "--format", "xml", ok}, 2, "", "--format must be text or json", -1},
		{[]string{"design", "check", "/nonexistent.design.yaml"}, 1, "", "open /nonexistent.design.yaml", -1},
	} {
		var out, errOut bytes.Buffer
		code := Main(tc.args, &out, &errOut)
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errOut.String(), tc.err) {
			t.Errorf("%v: exit %d\nstdout %s\nstderr %s\nwant exit %d, stdout with %q, stderr with %q", tc.args, code, out.String(), errOut.String(), tc.code, tc.out, tc.err)
		}
		if tc.jsonErrors >= 0 {
			var rep struct {
				Errors      int
				Diagnostics []map[string]any
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Errors != tc.jsonErrors || len(rep.Diagnostics) != tc.jsonErrors {
				t.Errorf("%v: JSON %s (%v)", tc.args, out.String(), err)
			}
		}
	}
}
