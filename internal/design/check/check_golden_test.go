package check

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/designtest"
)

// TestGolden_Examples: the check output of each seed design in examples/
// matches its golden file, and check finds no error in them.
func TestGolden_Examples(t *testing.T) {
	files, _ := filepath.Glob("../../../examples/*.design.yaml")
	if len(files) != 3 {
		t.Fatalf("want the three seed designs in examples/, found %v", files)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".design.yaml")
		d, diags, err := design.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(diags) == 0 {
			diags = Check(d, Rules)
		}
		var check bytes.Buffer
		for _, dg := range diags {
			if dg.Severity == design.Error {
				t.Errorf("%s: %s", name, dg)
			}
			dg.Pos.File = filepath.Base(dg.Pos.File)
			check.WriteString(dg.String() + "\n")
		}
		designtest.Golden(t, name+".check.txt", check.Bytes())
	}
}
