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
