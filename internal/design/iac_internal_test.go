package design

import "testing"

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
