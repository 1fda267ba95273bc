package server_test

import (
	"encoding/json"
	"testing"

	"github.com/dynago/dynago/internal/design"
)

// TestCloudFormationCreatesTable: the Properties of the
// AWS::DynamoDB::Table that dynago design export --format cloudformation
// writes for each seed design are a CreateTable request that DynamoDB's
// validation (here, dynago's) accepts, and the table created has the
// design's key schema and indexes. (TimeToLiveSpecification is an
// UpdateTimeToLive, and StreamSpecification gains StreamEnabled, as
// CloudFormation sends them.)
func TestCloudFormationCreatesTable(t *testing.T) {
	files := []string{"../../examples/ecommerce.design.yaml", "../../examples/orders.design.yaml", "../../examples/social.design.yaml", "../../bench/orders-hot.design.yaml"}
	ts := newServer(t)
	for _, path := range files {
		d, diags, err := design.Load(path)
		if err != nil || len(diags) > 0 {
			t.Fatal(err, diags)
		}
		raw, err := design.ExportCloudFormation(d)
		if err != nil {
			t.Fatal(err)
		}
		var tmpl struct {
			Resources map[string]struct {
				Type       string
				Properties map[string]any
			}
		}
		if err := json.Unmarshal(raw, &tmpl); err != nil || len(tmpl.Resources) != 1 {
			t.Fatalf("%s: %v %s", path, err, raw)
		}
		for _, r := range tmpl.Resources {
			props := r.Properties
			delete(props, "TimeToLiveSpecification")
			if ss, ok := props["StreamSpecification"].(map[string]any); ok {
				ss["StreamEnabled"] = true
			}
			body, _ := json.Marshal(props)
			if st, _, out := call(t, ts, "CreateTable", string(body)); st != 200 {
				t.Fatalf("%s: CreateTable %s: %s", path, body, out)
			}
		}
		_, _, out := call(t, ts, "DescribeTable", `{"TableName":"`+d.Table.Name+`"}`)
		var desc struct {
			Table struct {
				KeySchema              []struct{ AttributeName, KeyType string }
				GlobalSecondaryIndexes []struct{ IndexName string }
				LocalSecondaryIndexes  []struct{ IndexName string }
			}
		}
		if err := json.Unmarshal(out, &desc); err != nil {
			t.Fatal(err)
		}
		if desc.Table.KeySchema[0].AttributeName != d.Table.PartitionKey[0].Name {
			t.Errorf("%s: key schema %+v", path, desc.Table.KeySchema)
		}
		if n := len(desc.Table.GlobalSecondaryIndexes) + len(desc.Table.LocalSecondaryIndexes); n != len(d.Table.Indexes) {
			t.Errorf("%s: %d indexes, the design has %d", path, n, len(d.Table.Indexes))
		}
	}
}
