package main

import (
	"encoding/base64"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// Items are compared in a canonical text form: attribute names sorted,
// sets sorted, each value tagged with its type. The soak writes numbers
// in their canonical form only (integers, no leading zeros), so number
// strings compare as they are. The DynamoDB and the DynamoDB Streams
// packages have distinct AttributeValue types; both encode the same way.

// item is an item as the DynamoDB client sends and receives it.
type item = map[string]types.AttributeValue

func canonValue(av types.AttributeValue) string {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return "S" + strconv.Quote(v.Value)
	case *types.AttributeValueMemberN:
		return "N" + v.Value
	case *types.AttributeValueMemberB:
		return "B" + base64.StdEncoding.EncodeToString(v.Value)
	case *types.AttributeValueMemberBOOL:
		return "BOOL" + strconv.FormatBool(v.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		return "SS" + sortedQuoted(v.Value)
	case *types.AttributeValueMemberNS:
		return "NS" + sortedQuoted(v.Value)
	case *types.AttributeValueMemberBS:
		s := make([]string, len(v.Value))
		for i, b := range v.Value {
			s[i] = base64.StdEncoding.EncodeToString(b)
		}
		return "BS" + sortedQuoted(s)
	case *types.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = canonValue(e)
		}
		return "L[" + strings.Join(parts, ",") + "]"
	case *types.AttributeValueMemberM:
		return "M{" + canonItem(v.Value) + "}"
	}
	return "?"
}

func canonStreamValue(av stypes.AttributeValue) string {
	switch v := av.(type) {
	case *stypes.AttributeValueMemberS:
		return "S" + strconv.Quote(v.Value)
	case *stypes.AttributeValueMemberN:
		return "N" + v.Value
	case *stypes.AttributeValueMemberB:
		return "B" + base64.StdEncoding.EncodeToString(v.Value)
	case *stypes.AttributeValueMemberBOOL:
		return "BOOL" + strconv.FormatBool(v.Value)
	case *stypes.AttributeValueMemberNULL:
		return "NULL"
	case *stypes.AttributeValueMemberSS:
		return "SS" + sortedQuoted(v.Value)
	case *stypes.AttributeValueMemberNS:
		return "NS" + sortedQuoted(v.Value)
	case *stypes.AttributeValueMemberBS:
		s := make([]string, len(v.Value))
		for i, b := range v.Value {
			s[i] = base64.StdEncoding.EncodeToString(b)
		}
		return "BS" + sortedQuoted(s)
	case *stypes.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = canonStreamValue(e)
		}
		return "L[" + strings.Join(parts, ",") + "]"
	case *stypes.AttributeValueMemberM:
		return "M{" + canonStreamItem(v.Value) + "}"
	}
	return "?"
}

func sortedQuoted(s []string) string {
	c := make([]string, len(s))
	for i, e := range s {
		c[i] = strconv.Quote(e)
	}
	sort.Strings(c)
	return "<" + strings.Join(c, ",") + ">"
}

// canonItem is the canonical form of an item; "" for no item.
func canonItem(m item) string {
	if m == nil {
		return ""
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString(strconv.Quote(k))
		b.WriteByte('=')
		b.WriteString(canonValue(m[k]))
		b.WriteByte(';')
	}
	return b.String()
}

func canonStreamItem(m map[string]stypes.AttributeValue) string {
	if m == nil {
		return ""
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString(strconv.Quote(k))
		b.WriteByte('=')
		b.WriteString(canonStreamValue(m[k]))
		b.WriteByte(';')
	}
	return b.String()
}

// keyID is the identity of a primary key: PK and SK.
func keyID(pk, sk string) string { return pk + "\x00" + sk }

// itemKey returns the key identity of an item (PK and SK are strings).
func itemKey(m item) string { return keyID(str(m, "PK"), str(m, "SK")) }

func streamKey(m map[string]stypes.AttributeValue) string {
	pk, _ := m["PK"].(*stypes.AttributeValueMemberS)
	sk, _ := m["SK"].(*stypes.AttributeValueMemberS)
	if pk == nil || sk == nil {
		return "?"
	}
	return keyID(pk.Value, sk.Value)
}

// showKey prints a key identity.
func showKey(id string) string { return strings.Replace(id, "\x00", "/", 1) }

// str returns the string attribute name of m, or "".
func str(m item, name string) string {
	if v, ok := m[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// num returns the integer attribute name of m and whether it is there.
func num(m item, name string) (int64, bool) {
	v, ok := m[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	return n, err == nil
}

func sv(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func nv(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// keyOf returns the key attributes of a primary key.
func keyOf(pk, sk string) item { return item{"PK": sv(pk), "SK": sv(sk)} }

// copyItem returns a shallow copy (attribute values are never mutated).
func copyItem(m item) item {
	if m == nil {
		return nil
	}
	c := make(item, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
