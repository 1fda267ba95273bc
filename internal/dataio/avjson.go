package dataio

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/internal/attr"
)

// This file is DynamoDB JSON: an AttributeValue as the object of its one
// type key ({"N":"2013"}), B and BS members in standard base64, N and NS
// members as strings keeping their text.

// maxDepth bounds the nesting of lists and maps read (DynamoDB allows 32
// levels), so that a hostile input cannot exhaust the stack.
const maxDepth = 64

// checkNumber validates s as a DynamoDB number (at most 38 significant
// digits, magnitude from 1E-130 to 9.99…E+125) with internal/attr's
// parser, the server's own; the text itself is kept as written.
func checkNumber(s string) error {
	if _, err := attr.ParseNumber(s); err != nil {
		return fmt.Errorf("invalid number %q: %v", s, err)
	}
	return nil
}

// pathError is an error at an attribute path (info.genres[2]); an error
// that already names its path (a *pathErr) is returned as it is, so that
// a path is said once.
func pathError(path string, err error) error {
	var pe *pathErr
	if path == "" || errors.As(err, &pe) {
		return err
	}
	return &pathErr{path: path, err: err}
}

// pathErr is an error at an attribute path.
type pathErr struct {
	path string
	err  error
}

// Error says attribute PATH: what is wrong (attribute PATH appears
// twice for errTwice).
func (e *pathErr) Error() string {
	if e.err == errTwice {
		return fmt.Sprintf("attribute %s appears twice", e.path)
	}
	return fmt.Sprintf("attribute %s: %v", e.path, e.err)
}

// Unwrap returns what is wrong.
func (e *pathErr) Unwrap() error { return e.err }

// avItemFromJSON reads a decoded object as a map of AttributeValues.
func avItemFromJSON(v any, path string, depth int) (map[string]types.AttributeValue, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, pathError(path, fmt.Errorf("want an object of attribute values, got %s", jsonKind(v)))
	}
	item := make(map[string]types.AttributeValue, len(obj))
	for name, raw := range obj {
		if _, dup := raw.(twice); dup {
			return nil, twiceError(joinPath(path, name))
		}
		av, err := avFromJSON(raw, joinPath(path, name), depth)
		if err != nil {
			return nil, err
		}
		item[name] = av
	}
	return item, nil
}

// joinPath appends an attribute name to a path.
func joinPath(path, name string) string {
	if path == "" {
		return strconv.Quote(name)
	}
	return path + "." + strconv.Quote(name)
}

// avFromJSON reads one decoded DynamoDB JSON AttributeValue.
func avFromJSON(v any, path string, depth int) (types.AttributeValue, error) {
	if depth > maxDepth {
		return nil, pathError(path, fmt.Errorf("nested deeper than %d levels", maxDepth))
	}
	obj, ok := v.(map[string]any)
	if !ok || len(obj) != 1 {
		if ok {
			return nil, pathError(path, fmt.Errorf("an attribute value has exactly one type key, got %d", len(obj)))
		}
		return nil, pathError(path, fmt.Errorf("want an attribute value object like {\"S\":\"x\"}, got %s", jsonKind(v)))
	}
	for key, val := range obj {
		if _, dup := val.(twice); dup {
			return nil, pathError(path, fmt.Errorf("type key %q appears twice", key))
		}
		av, err := avOfType(key, val, path, depth)
		if err != nil {
			return nil, pathError(path, err)
		}
		return av, nil
	}
	panic("unreachable")
}

// avOfType reads the value of type key t.
func avOfType(t string, val any, path string, depth int) (types.AttributeValue, error) {
	switch t {
	case "S":
		s, ok := val.(string)
		if !ok {
			return nil, fmt.Errorf("type S wants a string, got %s", jsonKind(val))
		}
		return &types.AttributeValueMemberS{Value: s}, nil
	case "N":
		s, ok := val.(string)
		if !ok {
			return nil, fmt.Errorf("type N wants a string, got %s", jsonKind(val))
		}
		if err := checkNumber(s); err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberN{Value: s}, nil
	case "B":
		b, err := base64String(val)
		if err != nil {
			return nil, fmt.Errorf("type B: %w", err)
		}
		return &types.AttributeValueMemberB{Value: b}, nil
	case "BOOL":
		b, ok := val.(bool)
		if !ok {
			return nil, fmt.Errorf("type BOOL wants true or false, got %s", jsonKind(val))
		}
		return &types.AttributeValueMemberBOOL{Value: b}, nil
	case "NULL":
		if b, ok := val.(bool); !ok || !b {
			return nil, errors.New("type NULL wants true")
		}
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case "M":
		m, err := avItemFromJSON(val, path, depth+1)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	case "L":
		arr, ok := val.([]any)
		if !ok {
			return nil, fmt.Errorf("type L wants an array, got %s", jsonKind(val))
		}
		l := make([]types.AttributeValue, len(arr))
		for i, e := range arr {
			av, err := avFromJSON(e, fmt.Sprintf("%s[%d]", path, i), depth+1)
			if err != nil {
				return nil, err
			}
			l[i] = av
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case "SS", "NS", "BS":
		return setFromJSON(t, val)
	}
	return nil, fmt.Errorf("unknown type key %q (want one of S N B BOOL NULL M L SS NS BS)", t)
}

// setFromJSON reads the members of a set of type t (SS, NS, BS): a
// non-empty array of strings without duplicates.
func setFromJSON(t string, val any) (types.AttributeValue, error) {
	arr, ok := val.([]any)
	if !ok {
		return nil, fmt.Errorf("%s wants an array, got %s", t, jsonKind(val))
	}
	strs := make([]string, len(arr))
	for i, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s members are strings, got %s", t, jsonKind(e))
		}
		strs[i] = s
	}
	switch t {
	case "SS":
		return newSet(t, strs, func(s string) (string, error) { return s, nil })
	case "NS":
		return newSet(t, strs, func(s string) (string, error) { return s, checkNumber(s) })
	}
	return newSet(t, strs, func(s string) (string, error) {
		b, err := decodeBase64(s)
		return string(b), err
	})
}

// newSet checks the members of a set (non-empty, each valid by check,
// which also gives the member's identity, no two the same) and builds
// the AttributeValue of type t (SS, NS, BS).
func newSet(t string, members []string, check func(string) (string, error)) (types.AttributeValue, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("%s: an empty set", t)
	}
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		id, err := check(m)
		if err != nil {
			return nil, fmt.Errorf("%s member: %v", t, err)
		}
		if t == "NS" {
			id, _ = attr.ParseNumber(m)
		}
		if seen[id] {
			return nil, fmt.Errorf("%s: duplicate member %q", t, m)
		}
		seen[id] = true
	}
	switch t {
	case "SS":
		return &types.AttributeValueMemberSS{Value: members}, nil
	case "NS":
		return &types.AttributeValueMemberNS{Value: members}, nil
	}
	bs := make([][]byte, len(members))
	for i, m := range members {
		bs[i], _ = base64.StdEncoding.DecodeString(m)
	}
	return &types.AttributeValueMemberBS{Value: bs}, nil
}

// base64String decodes a JSON string in standard base64.
func base64String(val any) ([]byte, error) {
	s, ok := val.(string)
	if !ok {
		return nil, fmt.Errorf("want a base64 string, got %s", jsonKind(val))
	}
	return decodeBase64(s)
}

// decodeBase64 decodes s in standard base64 (with padding, as DynamoDB
// JSON and exports write B), saying where it is not.
func decodeBase64(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("invalid base64 at byte %d (standard encoding with padding)", int64(ce)+1)
		}
		return nil, errors.New("invalid base64 (standard encoding with padding)")
	}
	return b, nil
}

// jsonKind names the JSON type of a decoded value, for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case twice:
		return "a name given twice"
	}
	return fmt.Sprintf("%T", v)
}

// appendString appends s as a JSON string.
func appendString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(dst, b...)
}

// sortedNames returns an item's attribute names in order, so that the
// output is deterministic.
func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// appendAVItem appends an item as a DynamoDB JSON map, names sorted.
func appendAVItem(dst []byte, item map[string]types.AttributeValue) ([]byte, error) {
	return appendObject(dst, item, appendAV)
}

// appendObject appends m as a JSON object, names sorted, each value
// written by value (DynamoDB JSON's appendAV, plain JSON's appendPlain).
func appendObject(dst []byte, m map[string]types.AttributeValue, value func([]byte, types.AttributeValue) ([]byte, error)) ([]byte, error) {
	dst = append(dst, '{')
	for i, name := range sortedNames(m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(appendString(dst, name), ':')
		var err error
		if dst, err = value(dst, m[name]); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendAV appends one AttributeValue as DynamoDB JSON. The error is for
// a nil or unknown AttributeValue (the caller's, not the input's).
func appendAV(dst []byte, av types.AttributeValue) ([]byte, error) {
	var err error
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		dst = appendString(append(dst, `{"S":`...), v.Value)
	case *types.AttributeValueMemberN:
		dst = appendString(append(dst, `{"N":`...), v.Value)
	case *types.AttributeValueMemberB:
		dst = appendString(append(dst, `{"B":`...), base64.StdEncoding.EncodeToString(v.Value))
	case *types.AttributeValueMemberBOOL:
		dst = strconv.AppendBool(append(dst, `{"BOOL":`...), v.Value)
	case *types.AttributeValueMemberNULL:
		dst = append(dst, `{"NULL":true`...)
	case *types.AttributeValueMemberM:
		if dst, err = appendAVItem(append(dst, `{"M":`...), v.Value); err != nil {
			return nil, err
		}
	case *types.AttributeValueMemberL:
		dst = append(dst, `{"L":[`...)
		for i, e := range v.Value {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendAV(dst, e); err != nil {
				return nil, err
			}
		}
		dst = append(dst, ']')
	case *types.AttributeValueMemberSS:
		dst = appendStrings(append(dst, `{"SS":`...), v.Value)
	case *types.AttributeValueMemberNS:
		dst = appendStrings(append(dst, `{"NS":`...), v.Value)
	case *types.AttributeValueMemberBS:
		dst = appendStrings(append(dst, `{"BS":`...), base64All(v.Value))
	default:
		return nil, fmt.Errorf("dataio: cannot write attribute value %T", av)
	}
	return append(dst, '}'), nil
}

// appendStrings appends a JSON array of strings.
func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

// base64All encodes each of bs in standard base64.
func base64All(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = base64.StdEncoding.EncodeToString(b)
	}
	return out
}

// decodeDynamoDBJSONLine reads one line of DynamoDB JSON: {"Item": {...}}
// (tried first) or a bare map of AttributeValues.
func decodeDynamoDBJSONLine(line []byte) (Item, error) {
	v, err := decodeJSON(line)
	if err != nil {
		return nil, err
	}
	return dynamoDBJSONItem(v)
}

// dynamoDBJSONItem reads a decoded line of DynamoDB JSON. A line whose
// only key is "Item" is the {"Item": {...}} form if its value reads as an
// item; otherwise (an attribute named Item) the line is a bare map.
func dynamoDBJSONItem(v any) (Item, error) {
	if obj, ok := v.(map[string]any); ok && len(obj) == 1 {
		if inner, ok := obj["Item"]; ok {
			if _, dup := inner.(twice); dup {
				return nil, errors.New(`the key "Item" appears twice`)
			}
			item, err := avItemFromJSON(inner, "", 1)
			if err == nil {
				return item, nil
			}
			if bare, err2 := avItemFromJSON(v, "", 1); err2 == nil {
				return bare, nil
			}
			return nil, err
		}
	}
	return avItemFromJSON(v, "", 1)
}

// encodeDynamoDBJSONLine appends an item as a {"Item": {...}} line.
func encodeDynamoDBJSONLine(dst []byte, item Item) ([]byte, error) {
	dst, err := appendAVItem(append(dst, `{"Item":`...), item)
	if err != nil {
		return nil, err
	}
	return append(dst, '}', '\n'), nil
}
