package dataio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// This file decodes one JSON value token by token (json.Decoder.Token,
// numbers as json.Number), so that what encoding/json would let through
// silently is seen: bytes that are not UTF-8 (Decode turns them into
// U+FFFD, so that "x\xff" and "x\xfe" would be one name) and a name
// given twice in one object (Decode keeps the last).

// maxJSONDepth bounds the nesting of JSON arrays and objects decoded, so
// that a hostile line cannot exhaust the stack: DynamoDB JSON spends two
// levels ({"M": {...}}) on each of maxDepth's, and the line's own
// {"Item": ...} two more.
const maxJSONDepth = 2*maxDepth + 4

// twice is the value decodeJSON puts in an object for a name the object
// has more than once, so that the reader of the value names its path in
// its own terms (an attribute's, a type key's) when it meets it.
type twice struct{}

// decodeJSON decodes one JSON value with numbers as json.Number, and
// refuses bytes that are not UTF-8 and trailing data. An object's name
// given twice is the twice value (see hasTwice).
func decodeJSON(data []byte) (any, error) {
	if !utf8.Valid(data) {
		i := invalidUTF8At(data)
		return nil, fmt.Errorf("invalid UTF-8 at byte %d (a string or name that is not UTF-8)", i+1)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, errors.New("invalid JSON: the value is cut off (the line ends before it does)")
		}
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if len(bytes.TrimSpace(data[dec.InputOffset():])) > 0 {
		return nil, errors.New("invalid JSON: data after the value")
	}
	return v, nil
}

// invalidUTF8At returns the offset of the first byte of b that is not
// part of valid UTF-8.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// decodeValue decodes the value whose first token dec reads next, at
// nesting depth.
func decodeValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	if depth >= maxJSONDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	switch d {
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.Token(); err != nil { // ]
			return nil, err
		}
		return arr, nil
	case '{':
		obj := map[string]any{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			name, _ := tok.(string) // Token gives only a string here
			v, err := decodeValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			if _, dup := obj[name]; dup {
				v = twice{}
			}
			obj[name] = v
		}
		if _, err := dec.Token(); err != nil { // }
			return nil, err
		}
		return obj, nil
	}
	return nil, fmt.Errorf("unexpected %v", d) // Token reports a stray ] or } itself
}

// hasTwice reports whether a decoded value holds a name given twice in
// one of its objects.
func hasTwice(v any) bool {
	switch x := v.(type) {
	case twice:
		return true
	case []any:
		for _, e := range x {
			if hasTwice(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if hasTwice(e) {
				return true
			}
		}
	}
	return false
}

// errTwice is what is wrong with an attribute given twice in its object.
var errTwice = errors.New("appears twice")

// twiceError is the error for an attribute path given twice.
func twiceError(path string) error { return &pathErr{path: path, err: errTwice} }
