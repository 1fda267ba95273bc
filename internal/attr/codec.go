package attr

import (
	"encoding/base64"
	"strconv"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// invalid reasons recorded in Value.str for Kind Invalid.
const (
	reasonEmpty = "empty"
	reasonMulti = "multi"
)

// ReadValue decodes one AttributeValue ({"S": "x"}, {"M": {...}}, ...) from
// r. It enforces only the JSON shape (SerializationException on a wrong
// JSON type or bad base64); the DynamoDB rules (number syntax and range,
// empty and duplicate sets, exactly one descriptor) are checked afterwards
// by Validate, so that errors surface in DynamoDB's order. Numbers are left
// as sent until Validate canonicalises them.
func ReadValue(r *wire.Reader) (Value, error) {
	return readValue(r, 0)
}

func readValue(r *wire.Reader, depth int) (Value, error) {
	var v Value
	n := 0
	present, err := r.Object("AttributeValue", func(key string) error {
		var err error
		var set bool
		switch key {
		case "S":
			var s string
			if s, set, err = r.String(); set {
				v = Value{kind: S, str: s}
			}
		case "N":
			var s string
			if s, set, err = r.String(); set {
				v = Value{kind: N, str: s}
			}
		case "B":
			var s string
			if s, set, err = r.StringOf("Blob"); err == nil && set {
				var b []byte
				if b, err = decodeBase64(s); err == nil {
					v = Value{kind: B, str: string(b)}
				}
			}
		case "BOOL":
			var b bool
			if b, set, err = r.Bool(); set {
				v = Value{kind: BOOL, b: b}
			}
		case "NULL":
			var b bool
			if b, set, err = r.Bool(); set {
				v = Value{kind: NULL, b: b}
			}
		case "SS", "NS", "BS":
			k := KindFromString(key)
			members := []string{}
			set, err = r.Array("List", func(int) error {
				want := "String"
				if k == BS {
					want = "Blob"
				}
				s, ok, err := r.StringOf(want)
				if err != nil || !ok {
					return err
				}
				if k == BS {
					b, err := decodeBase64(s)
					if err != nil {
						return err
					}
					s = string(b)
				}
				members = append(members, s)
				return nil
			})
			if err == nil && set {
				v = Value{kind: k, set: members}
			}
		case "L":
			list := []Value{}
			set, err = r.Array("List", func(int) error {
				e, err := readValue(r, depth+1)
				if err != nil {
					return err
				}
				list = append(list, e)
				return nil
			})
			if err == nil && set {
				v = Value{kind: L, list: list}
			}
		case "M":
			m := map[string]Value{}
			set, err = r.Object("Map<AttributeValue>", func(k string) error {
				e, err := readValue(r, depth+1)
				if err != nil {
					return err
				}
				m[k] = e
				return nil
			})
			if err == nil && set {
				v = Value{kind: M, m: m}
			}
		default:
			// Unknown members are ignored, as DynamoDB's deserializer does.
			return r.Skip()
		}
		if set {
			n++
		}
		return err
	})
	if err != nil {
		return Value{}, err
	}
	switch {
	case !present:
		return Value{kind: Invalid, str: reasonEmpty}, nil
	case n == 0:
		return Value{kind: Invalid, str: reasonEmpty}, nil
	case n > 1:
		return Value{kind: Invalid, str: reasonMulti}, nil
	}
	return v, nil
}

// decodeBase64 decodes a Blob member as DynamoDB's deserializer does:
// standard alphabet with padding, length a multiple of 4.
func decodeBase64(s string) ([]byte, error) {
	if len(s)%4 != 0 {
		return nil, ddberr.Serialization("'" + s + "' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: " + strconv.Itoa(len(s)))
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
				return nil, ddberr.Serialization("'" + s + "' can not be converted to a Blob: Invalid Base64 character: '" + string(c) + "'")
			}
		}
		return nil, ddberr.Serialization("'" + s + "' can not be converted to a Blob: Invalid last non-pad Base64 character dectected")
	}
	return b, nil
}

// ReadItem decodes a map of attribute name → AttributeValue. A JSON null
// yields (nil, false, nil).
func ReadItem(r *wire.Reader) (Item, bool, error) {
	item := Item{}
	present, err := r.Object("Map<AttributeValue>", func(k string) error {
		v, err := ReadValue(r)
		if err != nil {
			return err
		}
		item[k] = v
		return nil
	})
	if err != nil || !present {
		return nil, false, err
	}
	return item, true, nil
}

// AppendValue appends v's wire form to dst. Map members are written in
// byte order of their names so that encoding is deterministic.
func AppendValue(dst []byte, v Value) []byte {
	switch v.kind {
	case S:
		dst = append(dst, `{"S":`...)
		dst = wire.AppendString(dst, v.str)
	case N:
		dst = append(dst, `{"N":"`...)
		dst = append(dst, v.str...) // canonical numbers need no escaping
		dst = append(dst, '"')
	case B:
		dst = append(dst, `{"B":`...)
		dst = wire.AppendBase64(dst, []byte(v.str))
	case BOOL:
		dst = append(dst, `{"BOOL":`...)
		dst = wire.AppendBool(dst, v.b)
	case NULL:
		dst = append(dst, `{"NULL":true`...)
	case SS, NS, BS:
		dst = append(dst, `{"`...)
		dst = append(dst, v.kind.String()...)
		dst = append(dst, `":[`...)
		for i, s := range v.set {
			if i > 0 {
				dst = append(dst, ',')
			}
			switch v.kind {
			case SS:
				dst = wire.AppendString(dst, s)
			case NS:
				dst = append(dst, '"')
				dst = append(dst, s...)
				dst = append(dst, '"')
			default:
				dst = wire.AppendBase64(dst, []byte(s))
			}
		}
		dst = append(dst, ']')
	case L:
		dst = append(dst, `{"L":[`...)
		for i, e := range v.list {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendValue(dst, e)
		}
		dst = append(dst, ']')
	case M:
		dst = append(dst, `{"M":`...)
		dst = AppendItem(dst, v.m)
	default:
		return append(dst, `{}`...)
	}
	return append(dst, '}')
}

// AppendItem appends an item (or the members of an M value) as a JSON
// object, with names in byte order.
func AppendItem(dst []byte, item map[string]Value) []byte {
	dst = append(dst, '{')
	if len(item) <= 1 {
		for k, v := range item {
			dst = wire.AppendString(dst, k)
			dst = append(dst, ':')
			dst = AppendValue(dst, v)
		}
		return append(dst, '}')
	}
	for i, k := range Item(item).SortedNames() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = wire.AppendString(dst, k)
		dst = append(dst, ':')
		dst = AppendValue(dst, item[k])
	}
	return append(dst, '}')
}

// DecodeItem decodes a stored item (written by AppendItem from validated
// values) without re-validating it.
func DecodeItem(data []byte) (Item, error) {
	r := wire.NewReader(data)
	item, _, err := ReadItem(r)
	if err != nil {
		return nil, err
	}
	return item, r.End()
}
