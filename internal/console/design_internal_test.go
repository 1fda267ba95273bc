package console

import "testing"

// TestShellWord: the run command's file and endpoint are pasted into a
// shell, quoted where they need it.
func TestShellWord(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"examples/orders.design.yaml", "examples/orders.design.yaml"},
		{"http://127.0.0.1:8000", "http://127.0.0.1:8000"},
		{"my designs/a.yaml", "'my designs/a.yaml'"},
		{"it's.yaml", `'it'\''s.yaml'`},
		{"", "''"},
	} {
		if got := shellWord(tc.in); got != tc.want {
			t.Errorf("shellWord(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
