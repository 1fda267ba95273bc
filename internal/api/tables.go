package api

import (
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// KeySchemaElement is one element of a key schema.
type KeySchemaElement struct {
	AttributeName *string
	KeyType       *string
}

// AttributeDefinition declares a key attribute's type.
type AttributeDefinition struct {
	AttributeName *string
	AttributeType *string
}

// ProvisionedThroughput is a table's provisioned capacity.
type ProvisionedThroughput struct {
	ReadCapacityUnits  *int64
	WriteCapacityUnits *int64
}

func decodeKeySchema(r *wire.Reader, dst *[]KeySchemaElement) (bool, error) {
	list := []KeySchemaElement{}
	ok, err := r.Array("List", func(int) error {
		var e KeySchemaElement
		_, err := object(r, "KeySchemaElement", func(k string) error {
			switch k {
			case "AttributeName":
				return readString(r, &e.AttributeName)
			case "KeyType":
				return readString(r, &e.KeyType)
			}
			return r.Skip()
		})
		list = append(list, e)
		return err
	})
	if ok {
		*dst = list
	}
	return ok, err
}

func decodeAttributeDefinitions(r *wire.Reader, dst *[]AttributeDefinition) (bool, error) {
	list := []AttributeDefinition{}
	ok, err := r.Array("List", func(int) error {
		var e AttributeDefinition
		_, err := object(r, "AttributeDefinition", func(k string) error {
			switch k {
			case "AttributeName":
				return readString(r, &e.AttributeName)
			case "AttributeType":
				return readString(r, &e.AttributeType)
			}
			return r.Skip()
		})
		list = append(list, e)
		return err
	})
	if ok {
		*dst = list
	}
	return ok, err
}

// throughputConstraints checks a table's ProvisionedThroughput members:
// both present, each at least 1 (write reported before read, as
// DynamoDB's validator lists them).
func throughputConstraints(c *constraints, pt *ProvisionedThroughput) {
	if pt == nil {
		return
	}
	if pt.ReadCapacityUnits == nil {
		c.add("", true, "provisionedThroughput.readCapacityUnits", "Member must not be null")
	}
	if pt.WriteCapacityUnits == nil {
		c.add("", true, "provisionedThroughput.writeCapacityUnits", "Member must not be null")
	}
	c.min("provisionedThroughput.writeCapacityUnits", pt.WriteCapacityUnits, 1)
	c.min("provisionedThroughput.readCapacityUnits", pt.ReadCapacityUnits, 1)
}

func decodeThroughput(r *wire.Reader, dst **ProvisionedThroughput) error {
	var pt ProvisionedThroughput
	ok, err := object(r, "ProvisionedThroughput", func(k string) error {
		switch k {
		case "ReadCapacityUnits":
			return readInt(r, "Long", &pt.ReadCapacityUnits)
		case "WriteCapacityUnits":
			return readInt(r, "Long", &pt.WriteCapacityUnits)
		}
		return r.Skip()
	})
	if ok {
		*dst = &pt
	}
	return err
}

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

// MaxCapacityUnits bounds provisioned ReadCapacityUnits and
// WriteCapacityUnits.
const MaxCapacityUnits = 1_000_000_000_000

// attributeDefinitionConstraints adds the member constraints of
// AttributeDefinitions (CreateTable and UpdateTable).
func attributeDefinitionConstraints(c *constraints, defs []AttributeDefinition) {
	for i, d := range defs {
		p := "attributeDefinitions." + strconv.Itoa(i+1) + ".member."
		if d.AttributeName == nil {
			c.add("", true, p+"attributeName", "Member must not be null")
		}
		keyAttributeNameLength(c, p+"attributeName", d.AttributeName)
		if d.AttributeType == nil {
			c.add("", true, p+"attributeType", "Member must not be null")
		}
		c.enum(p+"attributeType", d.AttributeType, "B", "N", "S")
	}
}

// keyAttributeNameLength adds the length constraints of a key schema or
// attribute definition name: 1 to 255 characters.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_KeySchemaElement.html
func keyAttributeNameLength(c *constraints, path string, name *string) {
	if name == nil {
		return
	}
	if charLen(*name) < 1 {
		c.add(*name, false, path, "Member must have length greater than or equal to 1")
	}
	if charLen(*name) > 255 {
		c.add(*name, false, path, "Member must have length less than or equal to 255")
	}
}

// Validate implements DynamoDB's CreateTable request checks, in its order:
// a missing TableName, member constraints, then billing and key schema
// rules.
func (in *CreateTableInput) Validate() error {
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

// keySchemaString renders a key schema as DynamoDB echoes it in
// constraint messages (Java toString form).
func keySchemaString(ks []KeySchemaElement) string {
	parts := make([]string, len(ks))
	for i, e := range ks {
		parts[i] = "KeySchemaElement(attributeName=" + deref(e.AttributeName) + ", keyType=" + deref(e.KeyType) + ")"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// TableNameInput is the request of DescribeTable and DeleteTable.
type TableNameInput struct {
	TableName *string
}

// Decode implements Input.
func (in *TableNameInput) Decode(r *wire.Reader) error {
	_, err := object(r, "TableNameInput", func(k string) error {
		if k == "TableName" {
			return readString(r, &in.TableName)
		}
		return r.Skip()
	})
	return err
}

// Validate checks the table name.
func (in *TableNameInput) Validate() error {
	var c constraints
	c.name("tableName", in.TableName, true)
	return c.err()
}

// ListTablesInput is the ListTables request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListTables.html
type ListTablesInput struct {
	ExclusiveStartTableName *string
	Limit                   *int64
}

// Decode implements Input.
func (in *ListTablesInput) Decode(r *wire.Reader) error {
	_, err := object(r, "ListTablesInput", func(k string) error {
		switch k {
		case "ExclusiveStartTableName":
			return readString(r, &in.ExclusiveStartTableName)
		case "Limit":
			return readInt(r, "Integer", &in.Limit)
		}
		return r.Skip()
	})
	return err
}

// Validate checks Limit (1..100) and the start name.
func (in *ListTablesInput) Validate() error {
	var c constraints
	c.min("limit", in.Limit, 1)
	c.max("limit", in.Limit, 100)
	c.name("exclusiveStartTableName", in.ExclusiveStartTableName, false)
	return c.err()
}

// ListTablesOutput is the ListTables response.
type ListTablesOutput struct {
	TableNames             []string
	LastEvaluatedTableName string
}

// AppendJSON appends the response body.
func (o *ListTablesOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"TableNames":[`...)
	for i, n := range o.TableNames {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = wire.AppendString(dst, n)
	}
	dst = append(dst, ']')
	if o.LastEvaluatedTableName != "" {
		dst = append(dst, `,"LastEvaluatedTableName":`...)
		dst = wire.AppendString(dst, o.LastEvaluatedTableName)
	}
	return append(dst, '}')
}

var streamViewTypes = []string{"OLD_IMAGE", "KEYS_ONLY", "NEW_AND_OLD_IMAGES", "NEW_IMAGE"}

// StreamSpecification is a table's stream setting.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_StreamSpecification.html
type StreamSpecification struct {
	StreamEnabled  *bool
	StreamViewType *string
}

func decodeStreamSpecification(r *wire.Reader, dst **StreamSpecification) error {
	var ss StreamSpecification
	ok, err := object(r, "StreamSpecification", func(k string) error {
		switch k {
		case "StreamEnabled":
			return readBool(r, &ss.StreamEnabled)
		case "StreamViewType":
			return readString(r, &ss.StreamViewType)
		}
		return r.Skip()
	})
	if ok {
		*dst = &ss
	}
	return err
}

// SSESpecification is a table's server-side encryption setting.
type SSESpecification struct {
	Enabled        *bool
	SSEType        *string
	KMSMasterKeyID *string
}

func decodeSSESpecification(r *wire.Reader, dst **SSESpecification) error {
	var sse SSESpecification
	ok, err := object(r, "SSESpecification", func(k string) error {
		switch k {
		case "Enabled":
			return readBool(r, &sse.Enabled)
		case "SSEType":
			return readString(r, &sse.SSEType)
		case "KMSMasterKeyId":
			return readString(r, &sse.KMSMasterKeyID)
		}
		return r.Skip()
	})
	if ok {
		*dst = &sse
	}
	return err
}

// OnDemandThroughput caps an on-demand table's request rates.
type OnDemandThroughput struct {
	MaxReadRequestUnits  *int64
	MaxWriteRequestUnits *int64
}

func decodeOnDemandThroughput(r *wire.Reader, dst **OnDemandThroughput) error {
	var o OnDemandThroughput
	ok, err := object(r, "OnDemandThroughput", func(k string) error {
		switch k {
		case "MaxReadRequestUnits":
			return readInt(r, "Long", &o.MaxReadRequestUnits)
		case "MaxWriteRequestUnits":
			return readInt(r, "Long", &o.MaxWriteRequestUnits)
		}
		return r.Skip()
	})
	if ok {
		*dst = &o
	}
	return err
}

// Tag is a resource tag.
type Tag struct {
	Key   *string
	Value *string
}

func decodeTags(r *wire.Reader, dst *[]Tag) error {
	list := []Tag{}
	ok, err := r.Array("List", func(int) error {
		var t Tag
		_, err := object(r, "Tag", func(k string) error {
			switch k {
			case "Key":
				return readString(r, &t.Key)
			case "Value":
				return readString(r, &t.Value)
			}
			return r.Skip()
		})
		list = append(list, t)
		return err
	})
	if ok {
		*dst = list
	}
	return err
}

// Tag limits.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Tagging.html
const (
	maxTags           = 50
	maxTagKeyLength   = 128
	maxTagValueLength = 256
)

func tagConstraints(c *constraints, tags []Tag) {
	for i, t := range tags {
		p := "tags." + strconv.Itoa(i+1) + ".member."
		if t.Key == nil {
			c.add("", true, p+"key", "Member must not be null")
		} else {
			if charLen(*t.Key) < 1 {
				c.add(*t.Key, false, p+"key", "Member must have length greater than or equal to 1")
			}
			if charLen(*t.Key) > maxTagKeyLength {
				c.add(*t.Key, false, p+"key", "Member must have length less than or equal to 128")
			}
		}
		if t.Value == nil {
			c.add("", true, p+"value", "Member must not be null")
		} else if charLen(*t.Value) > maxTagValueLength {
			c.add(*t.Value, false, p+"value", "Member must have length less than or equal to 256")
		}
	}
}

// validateTags applies the tag rules that are not member constraints.
func validateTags(tags []Tag) error {
	if len(tags) > maxTags {
		return ddberr.New(ddberr.LimitExceededException, "Too many tags for the resource")
	}
	for _, t := range tags {
		if strings.HasPrefix(*t.Key, "aws:") {
			return ddberr.Validation("One or more parameter values were invalid: Tag keys starting with 'aws:' are reserved for system use")
		}
	}
	return nil
}
