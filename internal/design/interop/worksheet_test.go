package interop

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design/designtest"
)

// TestGolden_Worksheet: the worksheet of each seed design in examples/
// matches its golden file.
func TestGolden_Worksheet(t *testing.T) {
	files, _ := filepath.Glob("../../../examples/*.design.yaml")
	if len(files) != 3 {
		t.Fatalf("want the three seed designs in examples/, found %v", files)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".design.yaml")
		d := designtest.Load(t, path)
		var ws bytes.Buffer
		if err := Worksheet(&ws, d); err != nil {
			t.Fatal(err)
		}
		designtest.Golden(t, name+".worksheet.md", ws.Bytes())
	}
}
