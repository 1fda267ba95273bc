package api

import (
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// Projection is an index's Projection: which attributes the index holds
// besides the key attributes.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Projection.html
type Projection struct {
	ProjectionType   *string
	NonKeyAttributes []string
	hasNonKey        bool
}

// SecondaryIndex is a GlobalSecondaryIndex or LocalSecondaryIndex of a
// CreateTable request, or the Create action of an UpdateTable
// GlobalSecondaryIndexUpdates entry.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GlobalSecondaryIndex.html
type SecondaryIndex struct {
	IndexName             *string
	KeySchema             []KeySchemaElement
	Projection            *Projection
	ProvisionedThroughput *ProvisionedThroughput
	OnDemandThroughput    *OnDemandThroughput
	hasKeySchema          bool
}

func decodeProjection(r *wire.Reader, dst **Projection) error {
	var p Projection
	ok, err := object(r, "Projection", func(k string) error {
		var err error
		switch k {
		case "ProjectionType":
			return readString(r, &p.ProjectionType)
		case "NonKeyAttributes":
			p.hasNonKey, err = readStringList(r, &p.NonKeyAttributes)
			return err
		}
		return r.Skip()
	})
	if ok {
		*dst = &p
	}
	return err
}

func decodeSecondaryIndex(r *wire.Reader, typ string, ix *SecondaryIndex) (bool, error) {
	return object(r, typ, func(k string) error {
		var err error
		switch k {
		case "IndexName":
			return readString(r, &ix.IndexName)
		case "KeySchema":
			ix.hasKeySchema, err = decodeKeySchema(r, &ix.KeySchema)
			return err
		case "Projection":
			return decodeProjection(r, &ix.Projection)
		case "ProvisionedThroughput":
			return decodeThroughput(r, &ix.ProvisionedThroughput)
		case "OnDemandThroughput":
			return decodeOnDemandThroughput(r, &ix.OnDemandThroughput)
		}
		return r.Skip()
	})
}

func decodeSecondaryIndexes(r *wire.Reader, typ string, dst *[]SecondaryIndex) (bool, error) {
	list := []SecondaryIndex{}
	ok, err := r.Array("List", func(int) error {
		var ix SecondaryIndex
		_, err := decodeSecondaryIndex(r, typ, &ix)
		list = append(list, ix)
		return err
	})
	if ok {
		*dst = list
	}
	return ok, err
}

// Index limits.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-secondary-indexes
const (
	MaxGlobalSecondaryIndexes = 20
	MaxLocalSecondaryIndexes  = 5
	// MaxProjectedAttributes bounds the NonKeyAttributes of all of a
	// table's indexes together, an attribute projected into two indexes
	// counting twice.
	//
	// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Projection.html
	MaxProjectedAttributes = 100
	// MaxIndexKeyAttributes bounds each of the partition and sort parts
	// of a multi-attribute GSI key schema.
	MaxIndexKeyAttributes = 4
)

// constraints adds the member constraints of one index at path (e.g.
// "globalSecondaryIndexes.1.member").
func (ix *SecondaryIndex) constraints(c *constraints, path string, global bool) {
	c.name(path+".indexName", ix.IndexName, true)
	if !ix.hasKeySchema {
		c.add("", true, path+".keySchema", "Member must not be null")
	} else {
		maxLen := 2
		if global {
			maxLen = 2 * MaxIndexKeyAttributes
		}
		if len(ix.KeySchema) < 1 {
			c.add(keySchemaString(ix.KeySchema), false, path+".keySchema", "Member must have length greater than or equal to 1")
		}
		if len(ix.KeySchema) > maxLen {
			c.add(keySchemaString(ix.KeySchema), false, path+".keySchema", "Member must have length less than or equal to "+strconv.Itoa(maxLen))
		}
	}
	for i, e := range ix.KeySchema {
		p := path + ".keySchema." + strconv.Itoa(i+1) + ".member."
		if e.AttributeName == nil {
			c.add("", true, p+"attributeName", "Member must not be null")
		}
		keyAttributeNameLength(c, p+"attributeName", e.AttributeName)
		if e.KeyType == nil {
			c.add("", true, p+"keyType", "Member must not be null")
		}
		c.enum(p+"keyType", e.KeyType, "HASH", "RANGE")
	}
	if ix.Projection == nil {
		c.add("", true, path+".projection", "Member must not be null")
	} else {
		c.enum(path+".projection.projectionType", ix.Projection.ProjectionType, "ALL", "KEYS_ONLY", "INCLUDE")
		if ix.Projection.hasNonKey {
			n := len(ix.Projection.NonKeyAttributes)
			if n < 1 {
				c.add("[]", false, path+".projection.nonKeyAttributes", "Member must have length greater than or equal to 1")
			}
			if n > 20 {
				c.add("["+strings.Join(ix.Projection.NonKeyAttributes, ", ")+"]", false, path+".projection.nonKeyAttributes", "Member must have length less than or equal to 20")
			}
			for _, a := range ix.Projection.NonKeyAttributes {
				if len(a) < 1 || len(a) > 255 {
					c.add("["+strings.Join(ix.Projection.NonKeyAttributes, ", ")+"]", false, path+".projection.nonKeyAttributes",
						"Member must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 1]")
					break
				}
			}
		}
	}
	if pt := ix.ProvisionedThroughput; pt != nil {
		if pt.ReadCapacityUnits == nil {
			c.add("", true, path+".provisionedThroughput.readCapacityUnits", "Member must not be null")
		}
		if pt.WriteCapacityUnits == nil {
			c.add("", true, path+".provisionedThroughput.writeCapacityUnits", "Member must not be null")
		}
		c.min(path+".provisionedThroughput.writeCapacityUnits", pt.WriteCapacityUnits, 1)
		c.min(path+".provisionedThroughput.readCapacityUnits", pt.ReadCapacityUnits, 1)
	}
}

// HashKeys returns the names of the index's partition key attributes.
func (ix *SecondaryIndex) HashKeys() []string { return keyNames(ix.KeySchema, "HASH") }

// RangeKeys returns the names of the index's sort key attributes.
func (ix *SecondaryIndex) RangeKeys() []string { return keyNames(ix.KeySchema, "RANGE") }

func keyNames(ks []KeySchemaElement, typ string) []string {
	var out []string
	for _, e := range ks {
		if *e.KeyType == typ {
			out = append(out, *e.AttributeName)
		}
	}
	return out
}

// validateKeySchema checks an index's key schema shape: for an LSI one
// HASH then one RANGE; for a GSI one to four HASH elements, then up to
// four RANGE elements, no attribute twice.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html
// (multi-attribute keys, November 2025).
func (ix *SecondaryIndex) validateKeySchema(global bool) error {
	name := *ix.IndexName
	ks := ix.KeySchema
	if *ks[0].KeyType != "HASH" {
		return ddberr.Validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	_ = name
	if !global {
		if len(ks) == 2 && *ks[1].KeyType != "RANGE" {
			return ddberr.Validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
		}
		if len(ks) == 2 && *ks[0].AttributeName == *ks[1].AttributeName {
			return ddberr.Validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
		}
		return nil
	}
	seen := map[string]bool{}
	ranges := false
	for _, e := range ks {
		if seen[*e.AttributeName] {
			return ddberr.Validation("The KeySchema contains multiple key attributes with the same name")
		}
		seen[*e.AttributeName] = true
		if *e.KeyType == "RANGE" {
			ranges = true
		} else if ranges {
			return ddberr.InvalidParam("All HASH key attributes must precede RANGE key attributes in the KeySchema")
		}
	}
	if len(ix.HashKeys()) > MaxIndexKeyAttributes {
		return ddberr.InvalidParam("The KeySchema exceeds the maximum allowed number of HASH key attributes")
	}
	if len(ix.RangeKeys()) > MaxIndexKeyAttributes {
		return ddberr.InvalidParam("The KeySchema exceeds the maximum allowed number of RANGE key attributes")
	}
	return nil
}

// validateProjection checks the Projection rules that are not member
// constraints.
func (ix *SecondaryIndex) validateProjection() error {
	p := ix.Projection
	if p.ProjectionType == nil {
		return ddberr.InvalidParam("Unknown ProjectionType: null")
	}
	switch *p.ProjectionType {
	case "INCLUDE":
		if !p.hasNonKey {
			return ddberr.InvalidParam("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
		}
	default:
		if p.hasNonKey {
			return ddberr.InvalidParam("ProjectionType is " + *p.ProjectionType + ", but NonKeyAttributes is specified")
		}
	}
	seen := map[string]bool{}
	for _, a := range p.NonKeyAttributes {
		if seen[a] {
			return ddberr.InvalidParam("Duplicate element in NonKeyAttributes: " + a)
		}
		seen[a] = true
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

// validateThroughput checks an index's ProvisionedThroughput against the
// table's billing mode.
func (ix *SecondaryIndex) validateThroughput(payPerRequest bool) error {
	pt := ix.ProvisionedThroughput
	if payPerRequest {
		if pt != nil {
			return ddberr.InvalidParam("ProvisionedThroughput should not be specified for index: " + *ix.IndexName + " when BillingMode is PAY_PER_REQUEST")
		}
		return nil
	}
	if ix.OnDemandThroughput != nil {
		return ddberr.InvalidParam("OnDemandThroughput should not be specified for index: " + *ix.IndexName + " when BillingMode is PROVISIONED")
	}
	if pt == nil {
		return ddberr.InvalidParam("ProvisionedThroughput is not specified for index: " + *ix.IndexName)
	}
	if *pt.ReadCapacityUnits > MaxCapacityUnits {
		return ddberr.Validationf("Given value %d for ReadCapacityUnits is out of bounds for index %s", *pt.ReadCapacityUnits, *ix.IndexName)
	}
	if *pt.WriteCapacityUnits > MaxCapacityUnits {
		return ddberr.Validationf("Given value %d for WriteCapacityUnits is out of bounds for index %s", *pt.WriteCapacityUnits, *ix.IndexName)
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

// IndexDescription is a GlobalSecondaryIndexDescription or
// LocalSecondaryIndexDescription in a TableDescription.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GlobalSecondaryIndexDescription.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_LocalSecondaryIndexDescription.html
type IndexDescription struct {
	IndexName        string
	IndexArn         string
	Local            bool
	KeySchema        [][2]string // name, key type
	ProjectionType   string
	NonKeyAttributes []string
	// The rest is for GSIs only.
	IndexStatus                               string
	Backfilling                               *bool // omitted when nil
	ReadCapacityUnits, WriteCapacityUnits     int64
	Throughput                                ThroughputHistory
	WarmRead, WarmWrite                       int64 // WarmThroughput, omitted when WarmRead is 0
	MaxReadRequestUnits, MaxWriteRequestUnits int64 // OnDemandThroughput, omitted when both are 0
	IndexSizeBytes, ItemCount                 int64
}

// AppendJSON appends the description as a JSON object.
func (d *IndexDescription) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"IndexName":`...)
	dst = wire.AppendString(dst, d.IndexName)
	dst = append(dst, `,"KeySchema":`...)
	dst = appendKeySchema(dst, d.KeySchema)
	dst = append(dst, `,"Projection":{"ProjectionType":`...)
	dst = wire.AppendString(dst, d.ProjectionType)
	if d.NonKeyAttributes != nil {
		dst = append(dst, `,"NonKeyAttributes":[`...)
		for i, a := range d.NonKeyAttributes {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = wire.AppendString(dst, a)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, '}')
	if !d.Local {
		dst = append(dst, `,"IndexStatus":`...)
		dst = wire.AppendString(dst, d.IndexStatus)
		if d.Backfilling != nil {
			dst = append(dst, `,"Backfilling":`...)
			dst = wire.AppendBool(dst, *d.Backfilling)
		}
		dst = append(dst, `,"ProvisionedThroughput":`...)
		dst = d.Throughput.appendJSON(dst, d.ReadCapacityUnits, d.WriteCapacityUnits)
		if d.MaxReadRequestUnits != 0 || d.MaxWriteRequestUnits != 0 {
			dst = append(dst, `,"OnDemandThroughput":{"MaxReadRequestUnits":`...)
			dst = wire.AppendInt(dst, orMinusOne(d.MaxReadRequestUnits))
			dst = append(dst, `,"MaxWriteRequestUnits":`...)
			dst = wire.AppendInt(dst, orMinusOne(d.MaxWriteRequestUnits))
			dst = append(dst, '}')
		}
		if d.WarmRead != 0 {
			dst = append(dst, `,"WarmThroughput":{"ReadUnitsPerSecond":`...)
			dst = wire.AppendInt(dst, d.WarmRead)
			dst = append(dst, `,"WriteUnitsPerSecond":`...)
			dst = wire.AppendInt(dst, d.WarmWrite)
			dst = append(dst, `,"Status":`...)
			dst = wire.AppendString(dst, d.IndexStatus)
			dst = append(dst, '}')
		}
	}
	dst = append(dst, `,"IndexSizeBytes":`...)
	dst = wire.AppendInt(dst, d.IndexSizeBytes)
	dst = append(dst, `,"ItemCount":`...)
	dst = wire.AppendInt(dst, d.ItemCount)
	dst = append(dst, `,"IndexArn":`...)
	dst = wire.AppendString(dst, d.IndexArn)
	return append(dst, '}')
}

// appendKeySchema appends a key schema as a JSON array.
func appendKeySchema(dst []byte, ks [][2]string) []byte {
	dst = append(dst, '[')
	for i, k := range ks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"AttributeName":`...)
		dst = wire.AppendString(dst, k[0])
		dst = append(dst, `,"KeyType":`...)
		dst = wire.AppendString(dst, k[1])
		dst = append(dst, '}')
	}
	return append(dst, ']')
}
