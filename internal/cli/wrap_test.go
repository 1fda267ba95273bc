package cli

import (
	"strings"
	"testing"
)

// TestWrap: long finding lines are broken at spaces with a hanging
// indent when check writes to a terminal; width 0 (not a terminal) keeps
// each finding on one line for scripts and editors.
func TestWrap(t *testing.T) {
	const line = "x.design.yaml:12:5: error: pattern user-orders: begins_with on SK, whose template starts with a variable [keycondition]"
	for _, tc := range []struct {
		width int
		want  string
	}{
		{0, line},
		{200, line},
		{12, line}, // too narrow to wrap sensibly
		{60, "x.design.yaml:12:5: error: pattern user-orders: begins_with\n    on SK, whose template starts with a variable\n    [keycondition]"},
		{40, "x.design.yaml:12:5: error: pattern\n    user-orders: begins_with on SK,\n    whose template starts with a\n    variable [keycondition]"},
	} {
		if got := wrap(line, tc.width, "    "); got != tc.want {
			t.Errorf("width %d:\n%s\nwant\n%s", tc.width, got, tc.want)
		}
		if tc.width > 12 {
			for _, l := range strings.Split(wrap(line, tc.width, "    "), "\n") {
				if len(l) > tc.width {
					t.Errorf("width %d: line %q is longer", tc.width, l)
				}
			}
		}
	}
	if got := wrap("a verylongwordthatdoesnotfitanywhere b", 20, "  "); got != "a\n  verylongwordthatdoesnotfitanywhere\n  b" {
		t.Errorf("a long word: %q", got)
	}
}
