// Package wire reads and writes the JSON of DynamoDB's JSON 1.0 protocol
// (Content-Type application/x-amz-json-1.0).
//
// The Reader is a pull parser over a request body: callers walk the shape
// they expect (objects, arrays, strings, numbers, booleans) and every
// mismatch becomes a SerializationException in the style DynamoDB's Coral
// framework uses ("NUMBER_VALUE cannot be converted to String"). Malformed
// JSON is a SerializationException too. The Reader never panics on any
// input; FuzzReader checks that.
//
// The Writer side is a set of append functions (AppendString and friends)
// that build response bodies without reflection.
package wire

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dynago/dynago/internal/ddberr"
)

// Kind is the kind of the next JSON value.
type Kind uint8

// JSON value kinds.
const (
	Invalid Kind = iota
	Object
	Array
	String
	Number
	Bool
	Null
)

// token returns the Jackson token name of the value at r.pos, of kind k,
// as DynamoDB's messages name it: NUMBER_VALUE for an integer and
// DECIMAL_VALUE for a number with a fraction or an exponent, TRUE_VALUE
// and FALSE_VALUE for the booleans.
func (r *Reader) token(k Kind) string {
	switch k {
	case Object:
		return "START_OBJECT"
	case Array:
		return "START_ARRAY"
	case String:
		return "STRING_VALUE"
	case Number:
		for i := r.pos; i < len(r.data); i++ {
			switch r.data[i] {
			case '.', 'e', 'E':
				return "DECIMAL_VALUE"
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return "NUMBER_VALUE"
			}
		}
		return "NUMBER_VALUE"
	case Bool:
		if r.data[r.pos] == 't' {
			return "TRUE_VALUE"
		}
		return "FALSE_VALUE"
	case Null:
		return "NULL_VALUE"
	}
	return "UNKNOWN"
}

// maxDepth bounds JSON nesting so that hostile input cannot exhaust the
// stack. It is well above what DynamoDB accepts (32 document levels, two
// JSON objects each, plus the request envelope), so that deep documents
// reach attr.Validate and get DynamoDB's own nesting message.
const maxDepth = 256

// Reader pulls JSON values from a byte slice. The zero value is not usable;
// call NewReader. Strings returned by the Reader are copies and stay valid
// after the input slice is reused.
type Reader struct {
	data    []byte
	pos     int
	depth   int
	maxSeen int // the deepest nesting read so far
	// stringIntegers: Int64 also takes a JSON string holding a number.
	stringIntegers bool
}

// NewReader returns a Reader over data. data must not change while the
// Reader is in use.
func NewReader(data []byte) *Reader { return &Reader{data: data} }

// MaxDepth is the deepest nesting of objects and arrays read so far: 1
// for {}, 2 for {"a":[]}.
func (r *Reader) MaxDepth() int { return r.maxSeen }

// AcceptStringIntegers makes Int64 also take a JSON string that holds a
// whole number ("5" for 5), as DynamoDB Local does. DynamoDB itself answers
// such a string with the SerializationException "STRING_VALUE cannot be
// converted to Integer" (or "Long"), which is what a Reader does unless
// this is called. It exists for GUIs such as dynamodb-admin whose forms
// send numbers as strings (serve --accept-string-numbers).
func (r *Reader) AcceptStringIntegers() { r.stringIntegers = true }

// malformed is the error for input that is not JSON: DynamoDB's bare
// {"__type":"com.amazon.coral.service#SerializationException"}, with no
// message (dynalite's connection tests, recorded from DynamoDB, and real
// answers quoted in aws/aws-sdk-php#1185 and aws-amplify/aws-sdk-unity#54;
// docs/dynamodb-behaviour.md §1).
func (r *Reader) malformed() error {
	return ddberr.Serialization("")
}

// typeError is the SerializationException for the value at r.pos, of kind
// k, where a value of the Coral type want was expected, in DynamoDB's
// words (docs/dynamodb-behaviour.md §1.1, from dynalite's assertType
// table, run against DynamoDB, and real answers quoted in issues). want
// is one of:
//   - "String", "Boolean", "Integer", "Long", "Double": a scalar member;
//   - "Blob": a base64 member (B, BS);
//   - "List": a list member;
//   - "Map<T>": a map member whose values are T ("String",
//     "AttributeValue", "List<WriteRequest>"...);
//   - "AttributeValue": an attribute value inside an item, list or map;
//   - any other name: a structure of that name.
func (r *Reader) typeError(k Kind, want string) error {
	msg := ""
	switch want {
	case "String", "Boolean", "Integer", "Long", "Double":
		switch {
		case k == Array:
			msg = "Unrecognized collection type class java.lang." + want
		case k == Object:
			msg = "Start of structure or map found where not expected"
		case k == String && want == "Boolean":
			msg = "Unexpected token received from parser"
		default:
			msg = r.token(k) + " cannot be converted to " + want
		}
	case "Blob":
		switch k {
		case Array:
			msg = "Unrecognized collection type class java.nio.ByteBuffer"
		case Object:
			msg = "Start of structure or map found where not expected"
		default:
			msg = "only base-64-encoded strings are convertible to bytes"
		}
	case "List":
		msg = "Unexpected field type"
		if k == Object {
			msg = "Start of structure or map found where not expected"
		}
	case "AttributeValue":
		msg = "Unexpected value type in payload"
		if k == Array {
			msg = "Unrecognized collection type class " + javaType("AttributeValue")
		}
	default:
		msg = "Unexpected field type"
		if sub, ok := strings.CutPrefix(want, "Map<"); ok && k == Array {
			msg = "Unrecognized collection type java.util.Map<java.lang.String, " + javaType(strings.TrimSuffix(sub, ">")) + ">"
		} else if !ok && k == Array {
			msg = "Unrecognized collection type class " + javaType(want)
		}
	}
	return ddberr.Serialization(msg)
}

// javaType is the Java name of a Coral shape: java.lang.String,
// java.util.List<...>, or a class of DynamoDB's model package.
func javaType(shape string) string {
	switch {
	case shape == "String":
		return "java.lang.String"
	case strings.HasPrefix(shape, "List<"):
		return "java.util.List<" + javaType(strings.TrimSuffix(strings.TrimPrefix(shape, "List<"), ">")) + ">"
	}
	return "com.amazonaws.dynamodb.v20120810." + shape
}

func (r *Reader) skipWS() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// Peek returns the kind of the next value without consuming it, or Invalid
// at the end of input or on a byte that cannot start a value.
func (r *Reader) Peek() Kind {
	r.skipWS()
	if r.pos >= len(r.data) {
		return Invalid
	}
	switch c := r.data[r.pos]; {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == '-' || (c >= '0' && c <= '9'):
		return Number
	case c == 't' || c == 'f':
		return Bool
	case c == 'n':
		return Null
	}
	return Invalid
}

// End checks that only whitespace remains.
func (r *Reader) End() error {
	r.skipWS()
	if r.pos != len(r.data) {
		return r.malformed()
	}
	return nil
}

// ReadNull consumes a null and reports whether there was one.
func (r *Reader) ReadNull() (bool, error) {
	if r.Peek() != Null {
		return false, nil
	}
	if !r.literal("null") {
		return false, r.malformed()
	}
	return true, nil
}

func (r *Reader) literal(s string) bool {
	if len(r.data)-r.pos < len(s) || string(r.data[r.pos:r.pos+len(s)]) != s {
		return false
	}
	r.pos += len(s)
	return true
}

// Object reads an object, calling fn for each member with its key; fn must
// consume the member's value (read it or Skip it). want names the expected
// Coral type in type errors. A null is accepted as an absent object (fn is
// never called) and reported by the returned bool being false.
func (r *Reader) Object(want string, fn func(key string) error) (bool, error) {
	switch k := r.Peek(); k {
	case Object:
	case Null:
		r.literal("null")
		return false, nil
	case Invalid:
		return false, r.malformed()
	default:
		return false, r.typeError(k, want)
	}
	r.depth++
	r.maxSeen = max(r.maxSeen, r.depth)
	if r.depth > maxDepth {
		return false, ddberr.Serialization("JSON nesting too deep")
	}
	r.pos++ // '{'
	r.skipWS()
	if r.pos < len(r.data) && r.data[r.pos] == '}' {
		r.pos++
		r.depth--
		return true, nil
	}
	for {
		r.skipWS()
		if r.pos >= len(r.data) || r.data[r.pos] != '"' {
			return false, r.malformed()
		}
		key, err := r.readString()
		if err != nil {
			return false, err
		}
		r.skipWS()
		if r.pos >= len(r.data) || r.data[r.pos] != ':' {
			return false, r.malformed()
		}
		r.pos++
		if r.Peek() == Invalid {
			return false, r.malformed()
		}
		if err := fn(key); err != nil {
			return false, err
		}
		r.skipWS()
		if r.pos >= len(r.data) {
			return false, r.malformed()
		}
		switch r.data[r.pos] {
		case ',':
			r.pos++
		case '}':
			r.pos++
			r.depth--
			return true, nil
		default:
			return false, r.malformed()
		}
	}
}

// Array reads an array, calling fn for each element; fn must consume the
// element. A null is accepted as an absent array (returned bool false).
func (r *Reader) Array(want string, fn func(i int) error) (bool, error) {
	switch k := r.Peek(); k {
	case Array:
	case Null:
		r.literal("null")
		return false, nil
	case Invalid:
		return false, r.malformed()
	default:
		return false, r.typeError(k, want)
	}
	r.depth++
	r.maxSeen = max(r.maxSeen, r.depth)
	if r.depth > maxDepth {
		return false, ddberr.Serialization("JSON nesting too deep")
	}
	r.pos++ // '['
	r.skipWS()
	if r.pos < len(r.data) && r.data[r.pos] == ']' {
		r.pos++
		r.depth--
		return true, nil
	}
	for i := 0; ; i++ {
		if r.Peek() == Invalid {
			return false, r.malformed()
		}
		if err := fn(i); err != nil {
			return false, err
		}
		r.skipWS()
		if r.pos >= len(r.data) {
			return false, r.malformed()
		}
		switch r.data[r.pos] {
		case ',':
			r.pos++
		case ']':
			r.pos++
			r.depth--
			return true, nil
		default:
			return false, r.malformed()
		}
	}
}

// String reads a string. A null yields ("", false, nil).
func (r *Reader) String() (string, bool, error) { return r.StringOf("String") }

// StringOf is String for a member of Coral type want whose JSON form is a
// string ("String", or "Blob" for base64 members), so that a value of
// another type is refused in that type's words.
func (r *Reader) StringOf(want string) (string, bool, error) {
	switch k := r.Peek(); k {
	case String:
		s, err := r.readString()
		return s, err == nil, err
	case Null:
		r.literal("null")
		return "", false, nil
	case Invalid:
		return "", false, r.malformed()
	default:
		return "", false, r.typeError(k, want)
	}
}

// Bool reads a boolean. A null yields (false, false, nil).
func (r *Reader) Bool() (bool, bool, error) {
	switch k := r.Peek(); k {
	case Bool:
		if r.literal("true") {
			return true, true, nil
		}
		if r.literal("false") {
			return false, true, nil
		}
		return false, false, r.malformed()
	case Null:
		r.literal("null")
		return false, false, nil
	case Invalid:
		return false, false, r.malformed()
	default:
		return false, false, r.typeError(k, "Boolean")
	}
}

// Int64 reads a number and truncates it toward zero, as DynamoDB's
// TruncatingBigNumber does for integer members. want is "Integer" (32
// bits) or "Long" (64 bits); a value outside its range is a
// SerializationException, never a clamped or wrapped value. A null
// yields (0, false, nil).
func (r *Reader) Int64(want string) (int64, bool, error) {
	switch k := r.Peek(); k {
	case Number:
	case Null:
		r.literal("null")
		return 0, false, nil
	case Invalid:
		return 0, false, r.malformed()
	case String:
		if r.stringIntegers {
			return r.stringInt64(want)
		}
		return 0, false, r.typeError(k, want)
	default:
		return 0, false, r.typeError(k, want)
	}
	raw, err := r.readNumber()
	if err != nil {
		return 0, false, err
	}
	return r.int64From(raw, want)
}

// stringInt64 reads a JSON string holding a whole number in decimal, with
// an optional sign and leading zeros ("5", "+5", "-05"), as Java's
// Long.parseLong (and so DynamoDB Local) reads one; any other string, or
// one out of the member's range, is the SerializationException DynamoDB
// gives for a string.
func (r *Reader) stringInt64(want string) (int64, bool, error) {
	s, _, err := r.String()
	if err != nil {
		return 0, false, err
	}
	// ParseInt in base 10 takes exactly an optional sign and digits.
	n, perr := strconv.ParseInt(s, 10, 64)
	if perr != nil {
		return 0, false, r.typeError(String, want)
	}
	if want == "Integer" && (n < math.MinInt32 || n > math.MaxInt32) {
		return 0, false, r.typeError(String, want)
	}
	return n, true, nil
}

// int64From converts the text of a JSON number for an Integer or Long
// member: truncated toward zero, out of range a SerializationException.
func (r *Reader) int64From(raw, want string) (int64, bool, error) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if want == "Integer" {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	outOfRange := ddberr.Serialization("NUMBER_VALUE cannot be converted to " + want)
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		if n < lo || n > hi {
			return 0, false, outOfRange
		}
		return n, true, nil
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false, r.malformed()
	}
	f = math.Trunc(f)
	if math.IsInf(f, 0) || f < float64(lo) || f >= float64(hi)+1 {
		return 0, false, outOfRange
	}
	return int64(f), true, nil
}

// Float64 reads a number as a float64 (for Double members).
func (r *Reader) Float64() (float64, bool, error) {
	switch k := r.Peek(); k {
	case Number:
	case Null:
		r.literal("null")
		return 0, false, nil
	case Invalid:
		return 0, false, r.malformed()
	default:
		return 0, false, r.typeError(k, "Double")
	}
	raw, err := r.readNumber()
	if err != nil {
		return 0, false, err
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false, r.malformed()
	}
	return f, true, nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// Skip consumes the next value, whatever it is.
func (r *Reader) Skip() error {
	switch r.Peek() {
	case Object:
		_, err := r.Object("", func(string) error { return r.Skip() })
		return err
	case Array:
		_, err := r.Array("", func(int) error { return r.Skip() })
		return err
	case String:
		_, err := r.readString()
		return err
	case Number:
		_, err := r.readNumber()
		return err
	case Bool:
		if r.literal("true") || r.literal("false") {
			return nil
		}
	case Null:
		if r.literal("null") {
			return nil
		}
	}
	return r.malformed()
}

// readNumber consumes a JSON number and returns its text.
func (r *Reader) readNumber() (string, error) {
	start := r.pos
	d := r.data
	i := r.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return "", r.malformed()
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return "", r.malformed()
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return "", r.malformed()
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	r.pos = i
	return string(d[start:i]), nil
}

// readString consumes a JSON string (the reader is at its opening quote)
// and returns its decoded value. Invalid UTF-8 is rejected, as DynamoDB
// stores only valid Unicode.
func (r *Reader) readString() (string, error) {
	d := r.data
	i := r.pos + 1
	// Fast path: no escapes, all ASCII or valid UTF-8.
	start := i
	for i < len(d) {
		c := d[i]
		if c == '"' {
			s := d[start:i]
			if !utf8.Valid(s) {
				r.pos = i
				return "", ddberr.Serialization("Invalid UTF-8 in string")
			}
			r.pos = i + 1
			return string(s), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		i++
	}
	// Slow path with escapes.
	buf := make([]byte, 0, i-start+16)
	buf = append(buf, d[start:i]...)
	for {
		if i >= len(d) {
			r.pos = i
			return "", r.malformed()
		}
		c := d[i]
		switch {
		case c == '"':
			if !utf8.Valid(buf) {
				r.pos = i
				return "", ddberr.Serialization("Invalid UTF-8 in string")
			}
			r.pos = i + 1
			return string(buf), nil
		case c < 0x20:
			r.pos = i
			return "", r.malformed()
		case c != '\\':
			buf = append(buf, c)
			i++
			continue
		}
		i++
		if i >= len(d) {
			r.pos = i
			return "", r.malformed()
		}
		switch d[i] {
		case '"', '\\', '/':
			buf = append(buf, d[i])
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			rn, ok := hex4(d, i+1)
			if !ok {
				r.pos = i
				return "", r.malformed()
			}
			i += 4
			if utf16.IsSurrogate(rn) {
				// A high surrogate must be followed by \uDC00-\uDFFF.
				if i+2 < len(d) && d[i+1] == '\\' && d[i+2] == 'u' {
					if lo, ok := hex4(d, i+3); ok {
						if dec := utf16.DecodeRune(rn, lo); dec != utf8.RuneError {
							buf = utf8.AppendRune(buf, dec)
							i += 6 + 1
							continue
						}
					}
				}
				r.pos = i
				return "", ddberr.Serialization("Invalid UTF-16 surrogate in string")
			}
			buf = utf8.AppendRune(buf, rn)
		default:
			r.pos = i
			return "", r.malformed()
		}
		i++
	}
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var v rune
	for _, c := range d[i : i+4] {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			v |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			v |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return v, true
}
