package dataio

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/internal/attr"
)

// This file is plain JSON: string S, number N (its text kept), true and
// false BOOL, null NULL, array L (or SS / NS with ReadOptions.Sets),
// object M.

// plainItem reads a decoded plain JSON object as an item.
func plainItem(v any, sets bool) (Item, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON object (an item), got %s", jsonKind(v))
	}
	return plainMap(obj, "", sets, 1)
}

// plainMap reads a plain JSON object as a map of AttributeValues.
func plainMap(obj map[string]any, path string, sets bool, depth int) (map[string]types.AttributeValue, error) {
	m := make(map[string]types.AttributeValue, len(obj))
	for name, val := range obj {
		av, err := plainValue(val, joinPath(path, name), sets, depth)
		if err != nil {
			return nil, err
		}
		m[name] = av
	}
	return m, nil
}

// plainValue reads one plain JSON value as an AttributeValue.
func plainValue(v any, path string, sets bool, depth int) (types.AttributeValue, error) {
	if depth > maxDepth {
		return nil, pathError(path, fmt.Errorf("nested deeper than %d levels", maxDepth))
	}
	switch x := v.(type) {
	case nil:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case string:
		return &types.AttributeValueMemberS{Value: x}, nil
	case json.Number:
		if err := checkNumber(string(x)); err != nil {
			return nil, pathError(path, err)
		}
		return &types.AttributeValueMemberN{Value: string(x)}, nil
	case bool:
		return &types.AttributeValueMemberBOOL{Value: x}, nil
	case twice:
		return nil, twiceError(path)
	case map[string]any:
		m, err := plainMap(x, path, sets, depth+1)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	case []any:
		if sets {
			if av := plainSet(x); av != nil {
				return av, nil
			}
		}
		l := make([]types.AttributeValue, len(x))
		for i, e := range x {
			av, err := plainValue(e, fmt.Sprintf("%s[%d]", path, i), sets, depth+1)
			if err != nil {
				return nil, err
			}
			l[i] = av
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	}
	return nil, pathError(path, fmt.Errorf("unexpected JSON value %T", v))
}

// plainSet returns the set an array reads as with ReadOptions.Sets: a
// non-empty array of only strings is an SS, of only valid numbers an NS,
// if no member repeats (DynamoDB's sets have none); otherwise nil (the
// array stays a list).
func plainSet(arr []any) types.AttributeValue {
	if len(arr) == 0 {
		return nil
	}
	strs := make([]string, len(arr))
	seen := make(map[string]bool, len(arr))
	_, isNum := arr[0].(json.Number)
	for i, e := range arr {
		var s, id string
		switch x := e.(type) {
		case string:
			if isNum {
				return nil
			}
			s, id = x, x
		case json.Number:
			if !isNum {
				return nil
			}
			c, err := attr.ParseNumber(string(x))
			if err != nil {
				return nil
			}
			s, id = string(x), c
		default:
			return nil
		}
		if seen[id] {
			return nil
		}
		seen[id] = true
		strs[i] = s
	}
	if isNum {
		return &types.AttributeValueMemberNS{Value: strs}
	}
	return &types.AttributeValueMemberSS{Value: strs}
}

// decodePlainLine reads one line of plain JSON lines as an item.
func decodePlainLine(line []byte, sets bool) (Item, error) {
	v, err := decodeJSON(line)
	if err != nil {
		return nil, err
	}
	return plainItem(v, sets)
}

// jsonNumber matches JSON's number syntax (RFC 8259 section 6).
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// plainNumber returns a DynamoDB number's text as a JSON number: the text
// itself if it is one, else (DynamoDB also takes "+1", ".5", "5.") its
// canonical form.
func plainNumber(s string) string {
	if jsonNumber.MatchString(s) {
		return s
	}
	if c, err := attr.ParseNumber(s); err == nil && jsonNumber.MatchString(c) {
		return c
	}
	return strconv.Quote(s) // not a number at all: keep the text, as a string
}

// appendPlainMap appends a map of AttributeValues as a plain JSON object,
// names sorted.
func appendPlainMap(dst []byte, m map[string]types.AttributeValue) ([]byte, error) {
	return appendObject(dst, m, appendPlain)
}

// appendPlain appends one AttributeValue as plain JSON: B as a base64
// string, sets as arrays (NS of numbers, BS of base64 strings).
func appendPlain(dst []byte, av types.AttributeValue) ([]byte, error) {
	var err error
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		dst = appendString(dst, v.Value)
	case *types.AttributeValueMemberN:
		dst = append(dst, plainNumber(v.Value)...)
	case *types.AttributeValueMemberB:
		dst = appendString(dst, base64.StdEncoding.EncodeToString(v.Value))
	case *types.AttributeValueMemberBOOL:
		dst = strconv.AppendBool(dst, v.Value)
	case *types.AttributeValueMemberNULL:
		dst = append(dst, "null"...)
	case *types.AttributeValueMemberM:
		return appendPlainMap(dst, v.Value)
	case *types.AttributeValueMemberL:
		dst = append(dst, '[')
		for i, e := range v.Value {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendPlain(dst, e); err != nil {
				return nil, err
			}
		}
		dst = append(dst, ']')
	case *types.AttributeValueMemberSS:
		dst = appendStrings(dst, v.Value)
	case *types.AttributeValueMemberNS:
		dst = append(dst, '[')
		for i, n := range v.Value {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, plainNumber(n)...)
		}
		dst = append(dst, ']')
	case *types.AttributeValueMemberBS:
		dst = appendStrings(dst, base64All(v.Value))
	default:
		return nil, fmt.Errorf("dataio: cannot write attribute value %T", av)
	}
	return dst, nil
}

// encodePlainLine appends an item as one line of plain JSON.
func encodePlainLine(dst []byte, item Item) ([]byte, error) {
	dst, err := appendPlainMap(dst, item)
	if err != nil {
		return nil, err
	}
	return append(dst, '\n'), nil
}
