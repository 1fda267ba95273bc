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
	// A GSI's key is key_schema blocks, HASH attributes first and in
	// order, then RANGE: the AWS provider's form for multi-attribute keys
	// (hash_key and range_key are deprecated on a GSI), per
	// https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/dynamodb_table#key_schema
	// (hashicorp/terraform-provider-aws website/docs/r/dynamodb_table.html.markdown,
	// "Basic Example containing Global Secondary Indexes using
	// Multi-attribute keys pattern").
	d := designtest.Load(t, "../../../examples/social.design.yaml")
	gsi := d.Table.Indexes[0]
	gsi.PartitionKey = append(gsi.PartitionKey, design.KeyAttr{Name: "Extra", Type: "S"})
	tf, err := ExportTerraform(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `    key_schema {
      attribute_name = "` + gsi.PartitionKey[0].Name + `"
      key_type       = "HASH"
    }

    key_schema {
      attribute_name = "Extra"
      key_type       = "HASH"
    }

    key_schema {
      attribute_name = "` + gsi.SortKey[0].Name + `"
      key_type       = "RANGE"
    }
`
	if !strings.Contains(string(tf), want) {
		t.Errorf("multi-attribute GSI key: want\n%s\nin\n%s", want, tf)
	}
	if strings.Contains(string(tf), "    hash_key") {
		t.Errorf("a GSI still names its key with the deprecated hash_key:\n%s", tf)
	}
	// The table and an LSI keep hash_key and range_key, one attribute each.
	d.Table.SortKey = append(d.Table.SortKey, design.KeyAttr{Name: "Extra2", Type: "S"})
	if _, err := ExportTerraform(d); err == nil || !strings.Contains(err.Error(), "multi-attribute key") {
		t.Errorf("multi-attribute table key: %v", err)
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
