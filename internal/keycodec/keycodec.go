// Package keycodec turns DynamoDB keys into order-preserving storage keys.
//
// Every item of a table (and, later, every entry of a secondary index)
// lives under one storage key:
//
//	'i' | table number (8 bytes BE) | index number (2 bytes BE) |
//	hash of partition key (8 bytes BE) | partition key | sort key...
//
// The hash leads so that, as in DynamoDB, a Scan walks partitions in hash
// order and a parallel Scan can split the table into TotalSegments equal
// ranges of the 64-bit hash space: each item falls in exactly one segment.
// Within a partition, items follow their sort key in DynamoDB's order
// (strings by UTF-8 bytes, numbers numerically, binary by unsigned bytes),
// so a Query is one ordered range scan in either direction.
//
// Each key value encoding is self-delimiting and order-preserving:
//
//   - S and B: the bytes with 0x00 escaped as 0x00 0xFF, then 0x00 0x01.
//     Escaping preserves prefixes, so begins_with is a range scan too.
//   - N: 0x02 for zero; 0x03, exponent byte, digits (d+1), 0x00 for
//     positive numbers; 0x01, complemented exponent, complemented digits,
//     0xFF for negative numbers. Numbers are DynamoDB-canonical (at most
//     38 digits, exponent within [-129, 126] in 0.D×10^E form), so the
//     exponent fits a byte.
//
// FuzzRoundTrip and FuzzOrder check both properties.
package keycodec

import (
	"encoding/binary"
	"errors"

	"github.com/cespare/xxhash/v2"

	"github.com/dynago/dynago/internal/attr"
)

// Prefix bytes of the top-level key spaces.
const (
	// ItemPrefix starts every item and index entry key.
	ItemPrefix = 'i'
)

// Space identifies one ordered key space: a table's items (Index 0) or one
// of its secondary indexes.
type Space struct {
	Table uint64
	Index uint16
}

// spaceLen is the length of an encoded Space with its prefix byte.
const spaceLen = 1 + 8 + 2

// SpaceLen is the length of the prefix AppendSpace writes: a key's
// position within its space starts after it, with the partition hash.
const SpaceLen = spaceLen

// AppendSpace appends the prefix shared by every key of s.
func AppendSpace(dst []byte, s Space) []byte {
	dst = append(dst, ItemPrefix)
	dst = binary.BigEndian.AppendUint64(dst, s.Table)
	return binary.BigEndian.AppendUint16(dst, s.Index)
}

// SpaceBounds returns [lower, upper) covering every key of s.
func SpaceBounds(s Space) (lower, upper []byte) {
	lower = AppendSpace(nil, s)
	upper = AppendSpace(nil, Space{Table: s.Table, Index: s.Index + 1})
	if s.Index == ^uint16(0) {
		upper = AppendSpace(nil, Space{Table: s.Table + 1})
	}
	return lower, upper
}

// TableBounds returns [lower, upper) covering every key of every space of
// table (its items and all its indexes).
func TableBounds(table uint64) (lower, upper []byte) {
	return AppendSpace(nil, Space{Table: table}), AppendSpace(nil, Space{Table: table + 1})
}

// Hash returns the partition hash of an encoded partition key value.
func Hash(encodedPK []byte) uint64 { return xxhash.Sum64(encodedPK) }

// AppendPartition appends the key prefix of the item collection with
// partition key pk in s: space, hash, encoded pk. Every item of the
// partition starts with it.
func AppendPartition(dst []byte, s Space, pk attr.Value) []byte {
	dst = AppendSpace(dst, s)
	hashAt := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	pkAt := len(dst)
	dst = AppendValue(dst, pk)
	binary.BigEndian.PutUint64(dst[hashAt:], Hash(dst[pkAt:]))
	return dst
}

// AppendPartitionValues is AppendPartition for a partition key made of
// several attributes (a multi-attribute GSI key): the hash covers the
// concatenated encodings, which follow it in order. With one value it
// equals AppendPartition.
func AppendPartitionValues(dst []byte, s Space, pks ...attr.Value) []byte {
	dst = AppendSpace(dst, s)
	hashAt := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	pkAt := len(dst)
	for _, v := range pks {
		dst = AppendValue(dst, v)
	}
	binary.BigEndian.PutUint64(dst[hashAt:], Hash(dst[pkAt:]))
	return dst
}

// AppendKey appends the full key of an item in s: its partition prefix and
// then each sort component (the sort key; index entries add the table's
// key after the index key).
func AppendKey(dst []byte, s Space, pk attr.Value, sort ...attr.Value) []byte {
	dst = AppendPartition(dst, s, pk)
	for _, v := range sort {
		dst = AppendValue(dst, v)
	}
	return dst
}

// HashBound returns the first key of s whose hash is ≥ h. Together with
// HashBound(s, h2) it bounds one parallel-scan segment.
func HashBound(s Space, h uint64) []byte {
	dst := AppendSpace(nil, s)
	return binary.BigEndian.AppendUint64(dst, h)
}

// KeySpace returns the space of a key built by AppendSpace.
func KeySpace(key []byte) (Space, bool) {
	if len(key) < spaceLen || key[0] != ItemPrefix {
		return Space{}, false
	}
	return Space{Table: binary.BigEndian.Uint64(key[1:]), Index: binary.BigEndian.Uint16(key[9:])}, true
}

// KeyHash returns the partition hash stored in a key built by AppendKey.
func KeyHash(key []byte) (uint64, bool) {
	if len(key) < spaceLen+8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(key[spaceLen:]), true
}

// AppendValue appends the order-preserving encoding of a key value. v must
// be S, N (canonical) or B; other kinds append nothing.
func AppendValue(dst []byte, v attr.Value) []byte {
	switch v.Kind() {
	case attr.S, attr.B:
		return appendBytes(dst, v.Text())
	case attr.N:
		return appendNumber(dst, v.Text())
	}
	return dst
}

// AppendPrefixValue appends the encoding of a begins_with prefix: like
// AppendValue for S or B but without the terminator, so that every value
// starting with the prefix has an encoding starting with the result.
func AppendPrefixValue(dst []byte, v attr.Value) []byte {
	s := v.Text()
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			dst = append(dst, 0, 0xFF)
		} else {
			dst = append(dst, s[i])
		}
	}
	return dst
}

func appendBytes(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			dst = append(dst, 0, 0xFF)
		} else {
			dst = append(dst, s[i])
		}
	}
	return append(dst, 0, 1)
}

// Number encoding tags.
const (
	tagNeg  = 0x01
	tagZero = 0x02
	tagPos  = 0x03
)

func appendNumber(dst []byte, canonical string) []byte {
	neg, digits, exp := splitNumber(canonical)
	if digits == "" {
		return append(dst, tagZero)
	}
	e := byte(exp + 129)
	if neg {
		dst = append(dst, tagNeg, 255-e)
		for i := 0; i < len(digits); i++ {
			dst = append(dst, 0xFE-(digits[i]-'0'))
		}
		return append(dst, 0xFF)
	}
	dst = append(dst, tagPos, e)
	for i := 0; i < len(digits); i++ {
		dst = append(dst, digits[i]-'0'+1)
	}
	return append(dst, 0)
}

// splitNumber splits canonical number text into sign, significant digits
// (no leading or trailing zeros) and exponent E of 0.D×10^E.
func splitNumber(s string) (neg bool, digits string, exp int) {
	if len(s) > 0 && s[0] == '-' {
		neg = true
		s = s[1:]
	}
	intPart, frac := s, ""
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			intPart, frac = s[:i], s[i+1:]
			break
		}
	}
	if intPart == "0" {
		intPart = ""
	}
	all := intPart + frac
	exp = len(intPart)
	lead := 0
	for lead < len(all) && all[lead] == '0' {
		lead++
	}
	all = all[lead:]
	exp -= lead
	end := len(all)
	for end > 0 && all[end-1] == '0' {
		end--
	}
	return neg, all[:end], exp
}

// ErrCorrupt is returned when decoding bytes that no encoder produced.
var ErrCorrupt = errors.New("keycodec: corrupt key")

// DecodeValue decodes one key value of kind k (S, N or B) from the start of
// src and returns it with the remaining bytes.
func DecodeValue(src []byte, k attr.Kind) (attr.Value, []byte, error) {
	switch k {
	case attr.S, attr.B:
		var out []byte
		for i := 0; i < len(src); i++ {
			if src[i] != 0 {
				out = append(out, src[i])
				continue
			}
			if i+1 >= len(src) {
				return attr.Value{}, nil, ErrCorrupt
			}
			switch src[i+1] {
			case 0xFF:
				out = append(out, 0)
				i++
			case 1:
				if k == attr.S {
					return attr.Str(string(out)), src[i+2:], nil
				}
				return attr.Bin(out), src[i+2:], nil
			default:
				return attr.Value{}, nil, ErrCorrupt
			}
		}
		return attr.Value{}, nil, ErrCorrupt
	case attr.N:
		return decodeNumber(src)
	}
	return attr.Value{}, nil, ErrCorrupt
}

func decodeNumber(src []byte) (attr.Value, []byte, error) {
	if len(src) == 0 {
		return attr.Value{}, nil, ErrCorrupt
	}
	switch src[0] {
	case tagZero:
		return attr.Num("0"), src[1:], nil
	case tagPos, tagNeg:
	default:
		return attr.Value{}, nil, ErrCorrupt
	}
	if len(src) < 2 {
		return attr.Value{}, nil, ErrCorrupt
	}
	neg := src[0] == tagNeg
	e := src[1]
	if neg {
		e = 255 - e
	}
	exp := int(e) - 129
	var digits []byte
	i := 2
	for ; i < len(src); i++ {
		c := src[i]
		if neg {
			if c == 0xFF {
				break
			}
			if c < 0xFE-9 {
				return attr.Value{}, nil, ErrCorrupt
			}
			digits = append(digits, '0'+(0xFE-c))
		} else {
			if c == 0 {
				break
			}
			if c > 10 {
				return attr.Value{}, nil, ErrCorrupt
			}
			digits = append(digits, '0'+c-1)
		}
	}
	if i >= len(src) || len(digits) == 0 {
		return attr.Value{}, nil, ErrCorrupt
	}
	text := "0." + string(digits) + "E" + itoa(exp)
	if neg {
		text = "-" + text
	}
	canon, err := attr.ParseNumber(text)
	if err != nil {
		return attr.Value{}, nil, ErrCorrupt
	}
	return attr.Num(canon), src[i+1:], nil
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// DecodeValues decodes values of the given kinds from the start of src,
// returning them and the bytes that follow.
func DecodeValues(src []byte, kinds ...attr.Kind) ([]attr.Value, []byte, error) {
	vals := make([]attr.Value, 0, len(kinds))
	for _, k := range kinds {
		v, rest, err := DecodeValue(src, k)
		if err != nil {
			return nil, nil, err
		}
		vals, src = append(vals, v), rest
	}
	return vals, src, nil
}

// DecodeKey decodes a key built by AppendKey: its space, partition key and
// sort components of the given kinds.
func DecodeKey(key []byte, pkKind attr.Kind, sortKinds ...attr.Kind) (Space, attr.Value, []attr.Value, error) {
	if len(key) < spaceLen+8 || key[0] != ItemPrefix {
		return Space{}, attr.Value{}, nil, ErrCorrupt
	}
	s := Space{Table: binary.BigEndian.Uint64(key[1:]), Index: binary.BigEndian.Uint16(key[9:])}
	rest := key[spaceLen+8:]
	pk, rest, err := DecodeValue(rest, pkKind)
	if err != nil {
		return Space{}, attr.Value{}, nil, err
	}
	var sorts []attr.Value
	for _, k := range sortKinds {
		var v attr.Value
		v, rest, err = DecodeValue(rest, k)
		if err != nil {
			return Space{}, attr.Value{}, nil, err
		}
		sorts = append(sorts, v)
	}
	if len(rest) != 0 {
		return Space{}, attr.Value{}, nil, ErrCorrupt
	}
	return s, pk, sorts, nil
}
