package api

import (
	"strconv"
	"strings"

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
