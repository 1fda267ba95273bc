package console

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestChangedPaths: a MODIFY's changed map or list attribute lists the
// paths inside it that changed, with both values as JSON (a type change
// shows as quotes), absent ones as —, long ones cut.
func TestChangedPaths(t *testing.T) {
	long := strings.Repeat("x", 70)
	for _, tc := range []struct {
		name string
		o, n string
		want []pathChange
	}{
		{"a nested number", `{"M":{"rating":{"N":"8.8"},"plot":{"S":"A bureaucrat"}}}`, `{"M":{"rating":{"N":"8"},"plot":{"S":"A bureaucrat"}}}`,
			[]pathChange{{"info.rating", "8.8", "8"}}},
		{"added and removed keys", `{"M":{"a":{"S":"x"}}}`, `{"M":{"b":{"BOOL":true}}}`,
			[]pathChange{{"info.a", `"x"`, "—"}, {"info.b", "—", "true"}}},
		{"deeper, in a list", `{"M":{"cast":{"L":[{"S":"Pryce"},{"M":{"n":{"N":"1"}}}]}}}`, `{"M":{"cast":{"L":[{"S":"Pryce"},{"M":{"n":{"N":"2"}}},{"NULL":true}]}}}`,
			[]pathChange{{"info.cast[1].n", "1", "2"}, {"info.cast[2]", "—", "null"}}},
		{"a type change", `{"M":{"year":{"N":"1985"}}}`, `{"M":{"year":{"S":"1985"}}}`,
			[]pathChange{{"info.year", "1985", `"1985"`}}},
		{"a long value, cut", `{"M":{"plot":{"S":"a"}}}`, `{"M":{"plot":{"S":"` + long + `"}}}`,
			[]pathChange{{"info.plot", `"a"`, `"` + long[:CellMax-1] + "…"}}},
		{"a map replaced by a list", `{"M":{"x":{"N":"1"}}}`, `{"L":[{"N":"1"}]}`,
			[]pathChange{{"info", `{"x":1}`, "[1]"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := changedPaths("info", json.RawMessage(tc.o), json.RawMessage(tc.n))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
