// Package attr is DynamoDB's data model: the ten attribute types, items,
// exact 38-digit numbers, DynamoDB's ordering and equality, item sizes, the
// validation rules with DynamoDB's messages, and the JSON wire codec.
//
// A Value is immutable once built: accessors return shared slices and maps
// that callers must not modify. Numbers are held in DynamoDB's canonical
// text form (see ParseNumber), so two equal numbers have equal text.
// Binary values are held as raw bytes in a string.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeValue.html
// and https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html
package attr

import (
	"slices"
	"sort"
)

// Kind is an attribute type descriptor.
type Kind uint8

// The attribute types, named by their descriptors. Invalid marks a value
// decoded from the wire with zero or several descriptors; Validate reports
// it.
const (
	Invalid Kind = iota
	S
	N
	B
	BOOL
	NULL
	M
	L
	SS
	NS
	BS
)

var kindNames = [...]string{"", "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}

// String returns the descriptor ("S", "N", ..., "BS").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "?"
}

// KindFromString returns the Kind for a descriptor, or Invalid.
func KindFromString(s string) Kind {
	for i, n := range kindNames {
		if i > 0 && n == s {
			return Kind(i)
		}
	}
	return Invalid
}

// IsSet reports whether k is SS, NS or BS.
func (k Kind) IsSet() bool { return k == SS || k == NS || k == BS }

// IsScalarKey reports whether k may be a key attribute type (S, N or B).
func (k Kind) IsScalarKey() bool { return k == S || k == N || k == B }

// Value is one attribute value. The zero Value is Invalid.
type Value struct {
	kind Kind
	b    bool
	str  string           // S text, N canonical text, B raw bytes
	set  []string         // SS text, NS canonical text, BS raw bytes
	list []Value          // L
	m    map[string]Value // M
}

// Item is a DynamoDB item: attribute name → value.
type Item map[string]Value

// Str returns an S value.
func Str(s string) Value { return Value{kind: S, str: s} }

// Num returns an N value from canonical text. Use ParseNumber to validate
// and canonicalise client input.
func Num(canonical string) Value { return Value{kind: N, str: canonical} }

// Bin returns a B value holding the raw bytes b.
func Bin(b []byte) Value { return Value{kind: B, str: string(b)} }

// BinString returns a B value holding the raw bytes in s.
func BinString(s string) Value { return Value{kind: B, str: s} }

// Bool returns a BOOL value.
func Bool(b bool) Value { return Value{kind: BOOL, b: b} }

// Null returns the NULL value.
func Null() Value { return Value{kind: NULL, b: true} }

// Map returns an M value. The map is owned by the Value afterwards.
func Map(m map[string]Value) Value {
	if m == nil {
		m = map[string]Value{}
	}
	return Value{kind: M, m: m}
}

// List returns an L value. The slice is owned by the Value afterwards.
func List(l []Value) Value {
	if l == nil {
		l = []Value{}
	}
	return Value{kind: L, list: l}
}

// Set returns an SS, NS or BS value with the given members (text, canonical
// numbers, or raw bytes). The slice is owned by the Value afterwards.
func Set(k Kind, members []string) Value { return Value{kind: k, set: members} }

// SortMembers puts the members of a set of kind k in the order DynamoDB
// returns them, in place: SS and BS by unsigned bytes, NS by numeric value
// (members must be canonical numbers). DynamoDB keeps a set ordered
// whatever order it was written in.
//
// Source: the conformance suite's tests/tier1/updateItem/basic.test.ts
// ("GetItem returns a set's members in DynamoDB's own order, not as
// written: string and binary sets bytewise, number sets by value",
// eu-west-2, 2026-10-09); the current layer's duplicate-member message,
// which lists the members before the repeat in byte order (validate.go).
func SortMembers(k Kind, members []string) {
	if k == NS {
		slices.SortFunc(members, CompareNumbers)
		return
	}
	slices.Sort(members) // Go compares strings bytewise, unsigned
}

// Kind returns v's type.
func (v Value) Kind() Kind { return v.kind }

// Text returns the payload of an S, N or B value: the string, the canonical
// number text, or the raw bytes.
func (v Value) Text() string { return v.str }

// BoolValue returns the payload of a BOOL value.
func (v Value) BoolValue() bool { return v.b }

// Members returns the members of a set value (shared; do not modify).
func (v Value) Members() []string { return v.set }

// ListValue returns the elements of an L value (shared; do not modify).
func (v Value) ListValue() []Value { return v.list }

// MapValue returns the members of an M value (shared; do not modify).
func (v Value) MapValue() map[string]Value { return v.m }

// Equal reports whether a and b are the same DynamoDB value: same type and
// same contents, with sets compared as sets and numbers numerically.
func Equal(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case S, N, B:
		return a.str == b.str
	case BOOL, NULL:
		return a.b == b.b
	case SS, NS, BS:
		if len(a.set) != len(b.set) {
			return false
		}
		seen := make(map[string]struct{}, len(a.set))
		for _, s := range a.set {
			seen[s] = struct{}{}
		}
		for _, s := range b.set {
			if _, ok := seen[s]; !ok {
				return false
			}
		}
		return true
	case L:
		if len(a.list) != len(b.list) {
			return false
		}
		for i := range a.list {
			if !Equal(a.list[i], b.list[i]) {
				return false
			}
		}
		return true
	case M:
		if len(a.m) != len(b.m) {
			return false
		}
		for k, av := range a.m {
			bv, ok := b.m[k]
			if !ok || !Equal(av, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// Compare orders two scalar values of the same type as DynamoDB orders sort
// keys: S by UTF-8 bytes, N numerically, B by unsigned bytes. ok is false
// when the values are not both S, both N or both B.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.CoreComponents.html
func Compare(a, b Value) (cmp int, ok bool) {
	if a.kind != b.kind {
		return 0, false
	}
	switch a.kind {
	case S, B:
		switch {
		case a.str < b.str:
			return -1, true
		case a.str > b.str:
			return 1, true
		}
		return 0, true
	case N:
		return CompareNumbers(a.str, b.str), true
	}
	return 0, false
}

// SortedNames returns the attribute names of item in byte order.
func (item Item) SortedNames() []string {
	names := make([]string, 0, len(item))
	for k := range item {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Clone returns a shallow copy of item (values are immutable, so sharing
// them is safe).
func (item Item) Clone() Item {
	c := make(Item, len(item))
	for k, v := range item {
		c[k] = v
	}
	return c
}
