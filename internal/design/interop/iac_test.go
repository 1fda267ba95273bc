package interop

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/designtest"
)

// TestGolden_IaC: the CloudFormation and Terraform exports of the seed
// designs, and of the PROVISIONED bench design with the capacity its
// peak rates need, match their golden files.
func TestGolden_IaC(t *testing.T) {
	files, _ := filepath.Glob("../../../examples/*.design.yaml")
	for _, path := range append(files, "../../../bench/orders-hot.design.yaml") {
		d := designtest.Load(t, path)
		name := strings.TrimSuffix(filepath.Base(path), ".design.yaml")
		cfn, err := ExportCloudFormation(d)
		if err != nil {
			t.Fatal(err)
		}
		designtest.Golden(t, "iac/"+name+".cfn.json", cfn)
		tf, err := ExportTerraform(d)
		if err != nil {
			t.Fatal(err)
		}
		designtest.Golden(t, "iac/"+name+".tf", tf)
	}
	// A multi-attribute key has no Terraform form.
	d := designtest.Load(t, "../../../examples/social.design.yaml")
	d.Table.Indexes[0].PartitionKey = append(d.Table.Indexes[0].PartitionKey, design.KeyAttr{Name: "Extra", Type: "S"})
	if _, err := ExportTerraform(d); err == nil || !strings.Contains(err.Error(), "multi-attribute key") {
		t.Errorf("multi-attribute key: %v", err)
	}
}

// TestIaCNames: a table name becomes a logical ID of letters and digits,
// and HCL strings escape what Terraform would interpolate.
func TestIaCNames(t *testing.T) {
	if got := logicalID("my-table.v2"); got != "mytablev2" {
		t.Errorf("logicalID: %s", got)
	}
	if got := strconvQuote("a${b}%{c}\"<d>"); got != `"a$${b}%%{c}\"<d>"` {
		t.Errorf("HCL quoting: %s", got)
	}
}
