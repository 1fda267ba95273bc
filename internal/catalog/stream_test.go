package catalog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/storage/pebble"
)

// TestListStreams: streams list by table name then label; a table filter
// does not catch tables whose names extend it, and listing resumes after
// a given stream.
func TestListStreams(t *testing.T) {
	st, err := pebble.Open(pebble.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	tx, _ := st.Begin(ctx, storage.ReadWrite)
	for _, s := range []struct{ table, label string }{
		{"ab", "2026-01-01T00:00:02.000"}, {"ab", "2026-01-01T00:00:01.000"}, {"abc", "2026-01-01T00:00:00.000"}, {"a", "2026-01-01T00:00:03.000"},
	} {
		if err := catalog.PutStream(tx, &catalog.Stream{Table: s.table, Label: s.label}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	list := func(table, afterTable, afterLabel string) string {
		tx, _ := st.Begin(ctx, storage.ReadOnly)
		defer tx.Rollback()
		streams, err := catalog.ListStreams(tx, table, afterTable, afterLabel)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range streams {
			out = append(out, s.Table+"/"+s.Label[17:19])
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct{ table, afterTable, afterLabel, want string }{
		{"", "", "", "a/03 ab/01 ab/02 abc/00"},
		{"ab", "", "", "ab/01 ab/02"},
		{"ab", "ab", "2026-01-01T00:00:01.000", "ab/02"},
		{"", "ab", "2026-01-01T00:00:02.000", "abc/00"},
		{"none", "", "", ""},
	} {
		if got := list(tc.table, tc.afterTable, tc.afterLabel); got != tc.want {
			t.Errorf("ListStreams(%q, after %q %q) = %q, want %q", tc.table, tc.afterTable, tc.afterLabel, got, tc.want)
		}
	}
}
