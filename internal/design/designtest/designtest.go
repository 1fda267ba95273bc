// Package designtest holds what the tests of internal/design and its
// subpackages share: golden files under the tested package's
// testdata/golden, rewritten with -update, and design files that must
// load without a diagnostic.
package designtest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/dynago/dynago/internal/design"
)

// Update is the -update flag: the golden tests write what they produce
// instead of comparing it (go test ./internal/design/... -update).
var Update = flag.Bool("update", false, "rewrite the golden files in testdata/golden (and examples/gen for gen-go)")

// Golden compares got with testdata/golden/name in the package under
// test, or writes it there with -update.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update in this package)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// Load loads the design file at path and fails t when it cannot be read
// or has a diagnostic.
func Load(t testing.TB, path string) *design.Design {
	t.Helper()
	d, diags, err := design.Load(path)
	if err != nil || len(diags) > 0 {
		t.Fatalf("%s: %v %v", path, err, diags)
	}
	return d
}
