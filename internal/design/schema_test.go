package design

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// TestSchema: schema/design.schema.json accepts every design that parses
// cleanly (the examples and the testdata designs without syntax errors)
// and refuses the testdata design with syntax errors, so that editors
// validating with it agree with dynago.
func TestSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	sch, err := c.Compile("../../schema/design.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("check/testdata/*.design.yaml")
	analyze, _ := filepath.Glob("analyze/testdata/*.design.yaml")
	files = append(files, analyze...)
	examples, _ := filepath.Glob("../../examples/*.design.yaml")
	for _, path := range append(files, examples...) {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := yaml.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		_, syntax := Parse(path, raw)
		verr := sch.Validate(normalize(doc))
		switch {
		case len(syntax) == 0 && verr != nil:
			t.Errorf("%s parses, but the schema refuses it: %v", path, verr)
		case len(syntax) > 0 && verr == nil && strings.Contains(path, "syntax"):
			t.Errorf("%s has syntax errors, but the schema accepts it", path)
		}
	}
}

// normalize turns YAML's decoded values into the JSON data model the
// validator takes (map[string]any, []any, float64 for numbers).
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = normalize(x)
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = normalize(x)
		}
		return v
	case int:
		return float64(v)
	}
	return v
}
