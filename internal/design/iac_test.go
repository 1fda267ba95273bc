package design_test

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
	files, _ := filepath.Glob("../../examples/*.design.yaml")
	for _, path := range append(files, "../../bench/orders-hot.design.yaml") {
		d := designtest.Load(t, path)
		name := strings.TrimSuffix(filepath.Base(path), ".design.yaml")
		cfn, err := design.ExportCloudFormation(d)
		if err != nil {
			t.Fatal(err)
		}
		designtest.Golden(t, "iac/"+name+".cfn.json", cfn)
		tf, err := design.ExportTerraform(d)
		if err != nil {
			t.Fatal(err)
		}
		designtest.Golden(t, "iac/"+name+".tf", tf)
	}
	// A multi-attribute key has no Terraform form.
	d := designtest.Load(t, "../../examples/social.design.yaml")
	d.Table.Indexes[0].PartitionKey = append(d.Table.Indexes[0].PartitionKey, design.KeyAttr{Name: "Extra", Type: "S"})
	if _, err := design.ExportTerraform(d); err == nil || !strings.Contains(err.Error(), "multi-attribute key") {
		t.Errorf("multi-attribute key: %v", err)
	}
}
