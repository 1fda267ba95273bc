package api

import (
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// CreateTableInput is the CreateTable request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html
type CreateTableInput struct {
	TableName                 *string
	KeySchema                 []KeySchemaElement
	AttributeDefinitions      []AttributeDefinition
	BillingMode               *string
	ProvisionedThroughput     *ProvisionedThroughput
	DeletionProtectionEnabled *bool
	StreamSpecification       *StreamSpecification
	TableClass                *string
	SSESpecification          *SSESpecification
	Tags                      []Tag
	OnDemandThroughput        *OnDemandThroughput
	GlobalSecondaryIndexes    []SecondaryIndex
	LocalSecondaryIndexes     []SecondaryIndex
	hasKeySchema, hasAttrDefs bool
	hasGSIs, hasLSIs          bool
}

// Decode implements Input.
func (in *CreateTableInput) Decode(r *wire.Reader) error {
	_, err := object(r, "CreateTableInput", func(k string) error {
		var err error
		switch k {
		case "TableName":
			return readString(r, &in.TableName)
		case "KeySchema":
			in.hasKeySchema, err = decodeKeySchema(r, &in.KeySchema)
			return err
		case "AttributeDefinitions":
			in.hasAttrDefs, err = decodeAttributeDefinitions(r, &in.AttributeDefinitions)
			return err
		case "BillingMode":
			return readString(r, &in.BillingMode)
		case "ProvisionedThroughput":
			return decodeThroughput(r, &in.ProvisionedThroughput)
		case "DeletionProtectionEnabled":
			return readBool(r, &in.DeletionProtectionEnabled)
		case "StreamSpecification":
			return decodeStreamSpecification(r, &in.StreamSpecification)
		case "TableClass":
			return readString(r, &in.TableClass)
		case "SSESpecification":
			return decodeSSESpecification(r, &in.SSESpecification)
		case "Tags":
			return decodeTags(r, &in.Tags)
		case "OnDemandThroughput":
			return decodeOnDemandThroughput(r, &in.OnDemandThroughput)
		case "GlobalSecondaryIndexes":
			in.hasGSIs, err = decodeSecondaryIndexes(r, "GlobalSecondaryIndex", &in.GlobalSecondaryIndexes)
			return err
		case "LocalSecondaryIndexes":
			in.hasLSIs, err = decodeSecondaryIndexes(r, "LocalSecondaryIndex", &in.LocalSecondaryIndexes)
			return err
		}
		return r.Skip()
	})
	return err
}

// Prepare implements DynamoDB's CreateTable request checks, in its order:
// a missing TableName, member constraints, then billing and key schema
// rules.
func (in *CreateTableInput) Prepare() error {
	if in.TableName == nil {
		return ddberr.Validation("The parameter 'TableName' is required but was not present in the request")
	}
	var c constraints
	c.name("tableName", in.TableName, true)
	if !in.hasAttrDefs {
		c.add("", true, "attributeDefinitions", "Member must not be null")
	}
	if !in.hasKeySchema {
		c.add("", true, "keySchema", "Member must not be null")
	} else {
		if len(in.KeySchema) < 1 {
			c.add(keySchemaString(in.KeySchema), false, "keySchema", "Member must have length greater than or equal to 1")
		}
		if len(in.KeySchema) > 2 {
			c.add(keySchemaString(in.KeySchema), false, "keySchema", "Member must have length less than or equal to 2")
		}
	}
	for i, e := range in.KeySchema {
		p := "keySchema." + strconv.Itoa(i+1) + ".member."
		if e.AttributeName == nil {
			c.add("", true, p+"attributeName", "Member must not be null")
		}
		keyAttributeNameLength(&c, p+"attributeName", e.AttributeName)
		if e.KeyType == nil {
			c.add("", true, p+"keyType", "Member must not be null")
		}
		c.enum(p+"keyType", e.KeyType, "HASH", "RANGE")
	}
	attributeDefinitionConstraints(&c, in.AttributeDefinitions)
	c.enum("billingMode", in.BillingMode, "PROVISIONED", "PAY_PER_REQUEST")
	c.enum("tableClass", in.TableClass, "STANDARD", "STANDARD_INFREQUENT_ACCESS")
	if ss := in.StreamSpecification; ss != nil {
		if ss.StreamEnabled == nil {
			c.add("", true, "streamSpecification.streamEnabled", "Member must not be null")
		}
		c.enum("streamSpecification.streamViewType", ss.StreamViewType, streamViewTypes...)
	}
	if sse := in.SSESpecification; sse != nil {
		c.enum("sSESpecification.sSEType", sse.SSEType, "AES256", "KMS")
	}
	tagConstraints(&c, in.Tags)
	// GSI errors come before LSI errors, whatever the request's order (the
	// conformance suite's validation-ordering/createTable.test.ts, 2026).
	for i := range in.GlobalSecondaryIndexes {
		in.GlobalSecondaryIndexes[i].constraints(&c, "globalSecondaryIndexes."+strconv.Itoa(i+1)+".member", true)
	}
	for i := range in.LocalSecondaryIndexes {
		in.LocalSecondaryIndexes[i].constraints(&c, "localSecondaryIndexes."+strconv.Itoa(i+1)+".member", false)
	}
	throughputConstraints(&c, in.ProvisionedThroughput)
	if err := c.err(); err != nil {
		return err
	}
	if err := in.validateBilling(); err != nil {
		return err
	}
	if err := in.validateKeySchema(); err != nil {
		return err
	}
	if in.hasIndexes() {
		if err := in.validateIndexes(); err != nil {
			return err
		}
	}
	if ss := in.StreamSpecification; ss != nil {
		// Messages: docs/research-streams.md §1.2 (AWS's own texts name
		// "UpdateViewType").
		if *ss.StreamEnabled && ss.StreamViewType == nil {
			return ddberr.InvalidParam("Table is being created with a stream enabled, UpdateViewType is required")
		}
		if !*ss.StreamEnabled && ss.StreamViewType != nil {
			return ddberr.InvalidParam("Table is being created with a stream disabled, UpdateViewType should not be specified")
		}
	}
	if in.OnDemandThroughput != nil && !in.IsPayPerRequest() {
		return ddberr.InvalidParam("MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED")
	}
	return validateTags(in.Tags)
}

// hasIndexes reports whether the request declares secondary indexes.
func (in *CreateTableInput) hasIndexes() bool { return in.hasGSIs || in.hasLSIs }

// IsPayPerRequest reports whether the table is to be on-demand.
func (in *CreateTableInput) IsPayPerRequest() bool {
	return in.BillingMode != nil && *in.BillingMode == "PAY_PER_REQUEST"
}

func (in *CreateTableInput) validateBilling() error {
	pt := in.ProvisionedThroughput
	if in.IsPayPerRequest() {
		if pt != nil {
			return ddberr.InvalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		return nil
	}
	if pt == nil || pt.ReadCapacityUnits == nil || pt.WriteCapacityUnits == nil {
		return ddberr.InvalidParam("ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
	}
	if *pt.ReadCapacityUnits > MaxCapacityUnits {
		return ddberr.Validationf("Given value %d for ReadCapacityUnits is out of bounds", *pt.ReadCapacityUnits)
	}
	if *pt.WriteCapacityUnits > MaxCapacityUnits {
		return ddberr.Validationf("Given value %d for WriteCapacityUnits is out of bounds", *pt.WriteCapacityUnits)
	}
	return nil
}

// validateKeySchema checks the key schema against the attribute
// definitions. Without secondary indexes the definitions must be exactly
// the key attributes.
func (in *CreateTableInput) validateKeySchema() error {
	defs := make([]string, len(in.AttributeDefinitions))
	seen := map[string]bool{}
	for i, d := range in.AttributeDefinitions {
		defs[i] = *d.AttributeName
		if seen[*d.AttributeName] {
			return ddberr.InvalidParam("Duplicate AttributeName in AttributeDefinitions: " + *d.AttributeName)
		}
		seen[*d.AttributeName] = true
	}
	keys := make([]string, len(in.KeySchema))
	for i, k := range in.KeySchema {
		keys[i] = *k.AttributeName
	}
	if len(keys) > len(defs) {
		return ddberr.Validation("Invalid KeySchema: Some index key attribute have no definition")
	}
	for _, k := range keys {
		if !seen[k] {
			return ddberr.InvalidParam("Some index key attributes are not defined in AttributeDefinitions. Keys: [" +
				strings.Join(keys, ", ") + "], AttributeDefinitions: [" + strings.Join(defs, ", ") + "]")
		}
	}
	if len(keys) == 2 && keys[0] == keys[1] {
		return ddberr.Validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
	}
	if *in.KeySchema[0].KeyType != "HASH" {
		return ddberr.Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(keys) == 2 && *in.KeySchema[1].KeyType != "RANGE" {
		return ddberr.Validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
	}
	if !in.hasIndexes() && len(keys) != len(defs) {
		return ddberr.InvalidParam("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
	}
	return nil
}

// validateIndexes applies CreateTable's index rules after the table's own
// key schema has been checked: list shapes and counts, names, key
// schemas, projections, throughput per billing mode, and that the
// attribute definitions are exactly the key attributes of the table and
// its indexes.
func (in *CreateTableInput) validateIndexes() error {
	if in.hasLSIs && len(in.LocalSecondaryIndexes) == 0 {
		return ddberr.InvalidParam("List of LocalSecondaryIndexes is empty")
	}
	if in.hasGSIs && len(in.GlobalSecondaryIndexes) == 0 {
		return ddberr.InvalidParam("List of GlobalSecondaryIndexes is empty")
	}
	// DynamoDB checks the attribute definitions before anything else
	// about the indexes (docs/research-indexes.md §1).
	if err := in.validateDefinitionsUsed(); err != nil {
		return err
	}
	names := map[string]bool{}
	projected := 0
	tableHash := *in.KeySchema[0].AttributeName
	for i := range in.LocalSecondaryIndexes {
		ix := &in.LocalSecondaryIndexes[i]
		if names[*ix.IndexName] {
			return ddberr.InvalidParam("Duplicate index name: " + *ix.IndexName)
		}
		names[*ix.IndexName] = true
		if err := ix.validateKeySchema(false); err != nil {
			return err
		}
		if len(in.KeySchema) < 2 {
			return ddberr.InvalidParam("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
		}
		if len(ix.KeySchema) < 2 {
			return ddberr.InvalidParam("Index KeySchema does not have a range key for index: " + *ix.IndexName)
		}
		if h := *ix.KeySchema[0].AttributeName; h != tableHash {
			return ddberr.InvalidParam("Index KeySchema does not have the same leading hash key as table KeySchema for index: " +
				*ix.IndexName + ". index hash key: " + h + ", table hash key: " + tableHash)
		}
		if err := ix.validateProjection(); err != nil {
			return err
		}
		if ix.ProvisionedThroughput != nil {
			return ddberr.InvalidParam("ProvisionedThroughput is not supported for a LocalSecondaryIndex: " + *ix.IndexName)
		}
		projected += len(ix.Projection.NonKeyAttributes)
	}
	if len(in.LocalSecondaryIndexes) > MaxLocalSecondaryIndexes {
		return ddberr.InvalidParam("Number of LocalSecondaryIndexes exceeds per-table limit of " + strconv.Itoa(MaxLocalSecondaryIndexes))
	}
	for i := range in.GlobalSecondaryIndexes {
		ix := &in.GlobalSecondaryIndexes[i]
		if names[*ix.IndexName] {
			return ddberr.InvalidParam("Duplicate index name: " + *ix.IndexName)
		}
		names[*ix.IndexName] = true
		if err := ix.validateKeySchema(true); err != nil {
			return err
		}
		if err := ix.validateProjection(); err != nil {
			return err
		}
		if err := ix.validateThroughput(in.IsPayPerRequest()); err != nil {
			return err
		}
		projected += len(ix.Projection.NonKeyAttributes)
	}
	if len(in.GlobalSecondaryIndexes) > MaxGlobalSecondaryIndexes {
		return ddberr.InvalidParam("GlobalSecondaryIndex count exceeds the per-table limit of " + strconv.Itoa(MaxGlobalSecondaryIndexes))
	}
	if projected > MaxProjectedAttributes {
		return ddberr.InvalidParam("Number of projected attributes in all indexes exceeds limit of " + strconv.Itoa(MaxProjectedAttributes))
	}
	return nil
}

// validateDefinitionsUsed checks that every key attribute of the table
// and its indexes is defined, and that every definition is used.
func (in *CreateTableInput) validateDefinitionsUsed() error {
	defined := map[string]bool{}
	var defs []string
	for _, d := range in.AttributeDefinitions {
		defined[*d.AttributeName] = true
		defs = append(defs, *d.AttributeName)
	}
	used := map[string]bool{}
	var usedList []string
	use := func(n string) {
		if !used[n] {
			used[n] = true
			usedList = append(usedList, n)
		}
	}
	for _, k := range in.KeySchema {
		use(*k.AttributeName)
	}
	for _, list := range [][]SecondaryIndex{in.LocalSecondaryIndexes, in.GlobalSecondaryIndexes} {
		for _, ix := range list {
			var keys []string
			for _, k := range ix.KeySchema {
				keys = append(keys, *k.AttributeName)
				use(*k.AttributeName)
			}
			for _, k := range keys {
				if !defined[k] {
					return ddberr.InvalidParam("Some index key attributes are not defined in AttributeDefinitions. Keys: [" +
						strings.Join(keys, ", ") + "], AttributeDefinitions: [" + strings.Join(defs, ", ") + "]")
				}
			}
		}
	}
	if len(used) != len(defined) {
		return ddberr.InvalidParam("Some AttributeDefinitions are not used. AttributeDefinitions: [" + strings.Join(defs, ", ") +
			"], keys used: [" + strings.Join(usedList, ", ") + "]")
	}
	return nil
}
