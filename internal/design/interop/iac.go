package interop

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// Infrastructure-as-code exports of a design's table: a CloudFormation
// template (AWS::DynamoDB::Table) and a Terraform resource
// (aws_dynamodb_table). A PROVISIONED design gets the capacity
// dynago design analyze computes for its peak rates (at least 1 unit), so
// that the table starts able to take the declared load.
//
// Sources: https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-dynamodb-table.html,
// https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/dynamodb_table

// provisionedUnits is the provisioned read and write units of the table
// ("") or a GSI in d's peak capacity (at least 1).
func provisionedUnits(read, write []design.IndexUnits, space string) (r, w int64) {
	r, w = 1, 1
	for _, u := range read {
		if u.Index == space {
			r = int64(u.Units)
		}
	}
	for _, u := range write {
		if u.Index == space {
			w = int64(u.Units)
		}
	}
	return r, w
}

func cfnKeySchema(pk, sk []design.KeyAttr) []map[string]string {
	var ks []map[string]string
	for _, k := range pk {
		ks = append(ks, map[string]string{"AttributeName": k.Name, "KeyType": "HASH"})
	}
	for _, k := range sk {
		ks = append(ks, map[string]string{"AttributeName": k.Name, "KeyType": "RANGE"})
	}
	return ks
}

func cfnProjection(ix *design.Index) map[string]any {
	p := map[string]any{"ProjectionType": cmp.Or(ix.Projection, "ALL")}
	if len(ix.Include) > 0 {
		p["NonKeyAttributes"] = ix.Include
	}
	return p
}

// logicalID is a CloudFormation logical ID (and Terraform resource name)
// from the table name: letters and digits, starting with a letter.
func logicalID(name string) string {
	id := regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(name, "")
	if id == "" || !(id[0] >= 'A' && id[0] <= 'Z' || id[0] >= 'a' && id[0] <= 'z') {
		id = "Table" + id
	}
	return id
}

// ExportCloudFormation writes a CloudFormation template (JSON) with d's
// table as one AWS::DynamoDB::Table resource.
func ExportCloudFormation(d *design.Design) ([]byte, error) {
	peakRead, peakWrite := d.PeakCapacity(d.PatternCosts())
	provisioned := d.Table.BillingMode == "PROVISIONED"
	props := map[string]any{
		"TableName":   d.Table.Name,
		"BillingMode": cmp.Or(d.Table.BillingMode, "PAY_PER_REQUEST"),
		"KeySchema":   cfnKeySchema(d.Table.PartitionKey, d.Table.SortKey),
	}
	var defs []map[string]string
	for _, k := range d.AttributeDefinitions() {
		defs = append(defs, map[string]string{"AttributeName": k.Name, "AttributeType": k.Type})
	}
	props["AttributeDefinitions"] = defs
	if provisioned {
		r, w := provisionedUnits(peakRead, peakWrite, "")
		props["ProvisionedThroughput"] = map[string]int64{"ReadCapacityUnits": r, "WriteCapacityUnits": w}
	}
	var gsis, lsis []map[string]any
	for _, ix := range d.Table.Indexes {
		m := map[string]any{"IndexName": ix.Name, "Projection": cfnProjection(ix)}
		if ix.Local {
			m["KeySchema"] = cfnKeySchema(d.Table.PartitionKey, ix.SortKey)
			lsis = append(lsis, m)
			continue
		}
		m["KeySchema"] = cfnKeySchema(ix.PartitionKey, ix.SortKey)
		if provisioned {
			r, w := provisionedUnits(peakRead, peakWrite, ix.Name)
			m["ProvisionedThroughput"] = map[string]int64{"ReadCapacityUnits": r, "WriteCapacityUnits": w}
		}
		gsis = append(gsis, m)
	}
	if gsis != nil {
		props["GlobalSecondaryIndexes"] = gsis
	}
	if lsis != nil {
		props["LocalSecondaryIndexes"] = lsis
	}
	if d.Table.TTL != "" {
		props["TimeToLiveSpecification"] = map[string]any{"AttributeName": d.Table.TTL, "Enabled": true}
	}
	if d.Table.Stream != "" {
		props["StreamSpecification"] = map[string]string{"StreamViewType": d.Table.Stream}
	}
	tmpl := map[string]any{
		"AWSTemplateFormatVersion": "2010-09-09",
		"Description":              "Table " + d.Table.Name + " from the single-table design " + d.FileName() + " (dynago design export)",
		"Resources": map[string]any{
			logicalID(d.Table.Name): map[string]any{"Type": "AWS::DynamoDB::Table", "Properties": props},
		},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(tmpl)
	return b.Bytes(), err
}

// ExportTerraform writes d's table as a Terraform aws_dynamodb_table
// resource (HCL). The table and its LSIs name their keys with hash_key
// and range_key (one attribute each: a multi-attribute key there is an
// error, as it is in DynamoDB); each GSI with key_schema blocks
// (attribute_name, key_type HASH or RANGE, up to four of each), the
// provider's form since it took multi-attribute keys, which deprecates a
// GSI's hash_key and range_key.
//
// Source: https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/dynamodb_table#key_schema
// (hashicorp/terraform-provider-aws, website/docs/r/dynamodb_table.html.markdown:
// "Multi-attribute keys for GSIs use the key_schema block instead of
// hash_key/range_key").
func ExportTerraform(d *design.Design) ([]byte, error) {
	one := func(what string, ks []design.KeyAttr) (string, error) {
		switch len(ks) {
		case 0:
			return "", nil
		case 1:
			return ks[0].Name, nil
		}
		return "", fmt.Errorf("%s has a multi-attribute key: aws_dynamodb_table's hash_key and range_key hold one attribute", what)
	}
	peakRead, peakWrite := d.PeakCapacity(d.PatternCosts())
	provisioned := d.Table.BillingMode == "PROVISIONED"
	var b strings.Builder
	q := func(s string) string { return strconvQuote(s) }
	fmt.Fprintf(&b, "# Table %s from the single-table design %s (dynago design export).\n", d.Table.Name, d.FileName())
	fmt.Fprintf(&b, "resource \"aws_dynamodb_table\" %s {\n", q(logicalID(d.Table.Name)))
	fmt.Fprintf(&b, "  name         = %s\n", q(d.Table.Name))
	fmt.Fprintf(&b, "  billing_mode = %s\n", q(cmp.Or(d.Table.BillingMode, "PAY_PER_REQUEST")))
	hash, err := one("the table", d.Table.PartitionKey)
	if err != nil {
		return nil, err
	}
	rng, err := one("the table", d.Table.SortKey)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "  hash_key     = %s\n", q(hash))
	if rng != "" {
		fmt.Fprintf(&b, "  range_key    = %s\n", q(rng))
	}
	if provisioned {
		r, w := provisionedUnits(peakRead, peakWrite, "")
		fmt.Fprintf(&b, "  read_capacity  = %d\n  write_capacity = %d\n", r, w)
	}
	for _, k := range d.AttributeDefinitions() {
		fmt.Fprintf(&b, "\n  attribute {\n    name = %s\n    type = %s\n  }\n", q(k.Name), q(k.Type))
	}
	for _, ix := range d.Table.Indexes {
		block := "global_secondary_index"
		if ix.Local {
			block = "local_secondary_index"
		}
		fmt.Fprintf(&b, "\n  %s {\n    name            = %s\n", block, q(ix.Name))
		if ix.Local {
			r, err := one("index "+ix.Name, ix.SortKey)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "    range_key       = %s\n", q(r))
		} else {
			// A GSI's key is key_schema blocks, HASH attributes first, in
			// their order: the provider's form since multi-attribute keys
			// (hash_key and range_key are deprecated there).
			for _, ks := range []struct {
				attrs []design.KeyAttr
				typ   string
			}{{ix.PartitionKey, "HASH"}, {ix.SortKey, "RANGE"}} {
				for _, k := range ks.attrs {
					fmt.Fprintf(&b, "\n    key_schema {\n      attribute_name = %s\n      key_type       = %s\n    }\n", q(k.Name), q(ks.typ))
				}
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "    projection_type = %s\n", q(cmp.Or(ix.Projection, "ALL")))
		if len(ix.Include) > 0 {
			quoted := make([]string, len(ix.Include))
			for i, n := range ix.Include {
				quoted[i] = q(n)
			}
			fmt.Fprintf(&b, "    non_key_attributes = [%s]\n", strings.Join(quoted, ", "))
		}
		if provisioned && !ix.Local {
			r, w := provisionedUnits(peakRead, peakWrite, ix.Name)
			fmt.Fprintf(&b, "    read_capacity   = %d\n    write_capacity  = %d\n", r, w)
		}
		b.WriteString("  }\n")
	}
	if d.Table.TTL != "" {
		fmt.Fprintf(&b, "\n  ttl {\n    attribute_name = %s\n    enabled        = true\n  }\n", q(d.Table.TTL))
	}
	if d.Table.Stream != "" {
		fmt.Fprintf(&b, "\n  stream_enabled   = true\n  stream_view_type = %s\n", q(d.Table.Stream))
	}
	b.WriteString("}\n")
	return []byte(b.String()), nil
}

// strconvQuote is an HCL string literal: JSON's quoting, with ${ and %{
// escaped so that names are never read as interpolation.
func strconvQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.NewReplacer("${", "$${", "%{", "%%{").Replace(strings.TrimSuffix(b.String(), "\n"))
}
