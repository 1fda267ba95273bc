package design

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestGolden_Worksheet: the worksheet of each seed design in examples/
// matches its golden file.
func TestGolden_Worksheet(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.design.yaml")
	if len(files) != 3 {
		t.Fatalf("want the three seed designs in examples/, found %v", files)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".design.yaml")
		d := loadClean(t, path)
		var ws bytes.Buffer
		if err := Worksheet(&ws, d); err != nil {
			t.Fatal(err)
		}
		golden(t, name+".worksheet.md", ws.Bytes())
	}
}
