package check

import "testing"

// TestClosest: "did you mean" suggests a name differing only in case and
// separators, one up to two edits from a name of four characters or
// more, one edit from a name of three; nothing for a name that is a
// candidate or too far from all.
func TestClosest(t *testing.T) {
	names := []string{"User", "UserId", "Order", "GSI1"}
	for _, tc := range []struct{ name, want string }{
		{"user_id", "UserId"},
		{"Usr", "User"},
		{"Oder", "Order"},
		{"GSI2", "GSI1"},
		{"Ab", ""},
		{"Xyz", ""},
		{"Customer", ""},
		{"User", ""},
	} {
		if got := closest(tc.name, names); got != tc.want {
			t.Errorf("closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
