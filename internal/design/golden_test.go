package design

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
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
		t.Fatalf("%v (run go test ./internal/design -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestGolden_Examples: the check output and the worksheet of each seed
// design in examples/ match their golden files, and check finds no
// error in them.
func TestGolden_Examples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.design.yaml")
	if len(files) != 3 {
		t.Fatalf("want the three seed designs in examples/, found %v", files)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".design.yaml")
		d, diags, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(diags) == 0 {
			diags = Check(d, Rules)
		}
		var check bytes.Buffer
		for _, dg := range diags {
			if dg.Severity == Error {
				t.Errorf("%s: %s", name, dg)
			}
			dg.Pos.File = filepath.Base(dg.Pos.File)
			check.WriteString(dg.String() + "\n")
		}
		golden(t, name+".check.txt", check.Bytes())
		var ws bytes.Buffer
		if err := Worksheet(&ws, d); err != nil {
			t.Fatal(err)
		}
		golden(t, name+".worksheet.md", ws.Bytes())
	}
}
