package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// Values. The console holds items as the wire gives them: DynamoDB JSON,
// an attribute name to its {"TYPE": value} (Item). They are shown as
// table cells (Cell) and edited either as that DynamoDB JSON or as plain
// JSON (PlainItem, ItemFromPlain), the two views DynamoDB's own console
// offers ("View DynamoDB JSON" on or off).

// Item is one item in DynamoDB JSON: attribute name to AttributeValue.
type Item = map[string]json.RawMessage

// CellMax is the most characters a Cell shows before it is cut.
const CellMax = 60

// Cell is one attribute value as a table cell.
type Cell struct {
	// Type is the value's DynamoDB type (S, N, B, BOOL, NULL, SS, NS, BS,
	// L, M); "" for an item without the attribute.
	Type string
	// Text is the value, readable: a string as itself, a number's digits,
	// a set as {a, b}, a list or map as compact plain JSON; cut to
	// CellMax characters with "…" when longer.
	Text string
	// Full is the whole value as indented plain JSON (sets as arrays),
	// shown when a cut cell is opened.
	Full string
	// Cut says Text was cut.
	Cut bool
}

// CellOf returns the cell of AttributeValue v (nil or empty: an absent
// attribute).
func CellOf(v json.RawMessage) Cell {
	if len(v) == 0 {
		return Cell{}
	}
	t, val, err := splitAV(v)
	if err != nil {
		return Cell{Type: "?", Text: string(v), Full: string(v)}
	}
	c := Cell{Type: t}
	plain, _ := plainOf(t, val)
	switch t {
	case "S":
		c.Text = plain.(string)
	case "N":
		c.Text = string(plain.(json.Number))
	case "BOOL":
		c.Text = fmt.Sprint(plain)
	case "NULL":
		c.Text = "null"
	case "B":
		c.Text = plain.(string)
	case "SS", "NS", "BS":
		var parts []string
		for _, e := range plain.([]any) {
			parts = append(parts, fmt.Sprint(e))
		}
		c.Text = "{" + strings.Join(parts, ", ") + "}"
	default:
		b, _ := marshalText(plain, false)
		c.Text = string(b)
	}
	full, _ := marshalText(plain, true)
	c.Full = string(full)
	if utf8.RuneCountInString(c.Text) > CellMax {
		r := []rune(c.Text)
		c.Text = string(r[:CellMax]) + "…"
		c.Cut = true
	}
	return c
}

// marshalText is json.Marshal (json.MarshalIndent with two spaces when
// indent) without the escapes of <, > and & that make JSON safe inside
// HTML: the console's JSON is text that html/template escapes where it is
// shown, so a value "a&b" reads a&b, not a\u0026b.
func marshalText(v any, indent bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// splitAV returns the type and the raw value of one AttributeValue.
func splitAV(v json.RawMessage) (string, json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return "", nil, fmt.Errorf("an AttributeValue is a JSON object, not a JSON %s", te.Value)
		}
		return "", nil, err
	}
	if len(m) != 1 {
		return "", nil, fmt.Errorf("an AttributeValue has exactly one type, this one has %d", len(m))
	}
	for t, val := range m {
		return t, val, nil
	}
	panic("unreachable")
}

// PlainValue returns AttributeValue v as plain JSON: S and B strings (B
// in base64), N a json.Number, BOOL, NULL null, L an array, M an object,
// sets arrays (so the set / list distinction is lost, as in DynamoDB's
// console with DynamoDB JSON off).
func PlainValue(v json.RawMessage) (any, error) {
	t, val, err := splitAV(v)
	if err != nil {
		return nil, err
	}
	return plainOf(t, val)
}

func plainOf(t string, val json.RawMessage) (any, error) {
	dec := func(dst any) error {
		d := json.NewDecoder(bytes.NewReader(val))
		d.UseNumber()
		err := d.Decode(dst)
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s wants %s, not a JSON %s", t, avWants[t], te.Value)
		}
		return err
	}
	switch t {
	case "S", "B":
		var s string
		return s, dec(&s)
	case "N":
		var s string
		if err := dec(&s); err != nil {
			return nil, err
		}
		return json.Number(s), nil
	case "BOOL":
		var b bool
		return b, dec(&b)
	case "NULL":
		return nil, nil
	case "SS", "BS":
		var ss []string
		err := dec(&ss)
		out := make([]any, len(ss))
		for i, s := range ss {
			out[i] = s
		}
		return out, err
	case "NS":
		var ss []string
		err := dec(&ss)
		out := make([]any, len(ss))
		for i, s := range ss {
			out[i] = json.Number(s)
		}
		return out, err
	case "L":
		var l []json.RawMessage
		if err := dec(&l); err != nil {
			return nil, err
		}
		out := make([]any, len(l))
		for i, e := range l {
			p, err := PlainValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = p
		}
		return out, nil
	case "M":
		var m map[string]json.RawMessage
		if err := dec(&m); err != nil {
			return nil, err
		}
		return PlainItem(m)
	}
	return nil, fmt.Errorf("unknown AttributeValue type %q", t)
}

// avWants is what each AttributeValue type holds, for the errors of
// plainOf.
var avWants = map[string]string{
	"S": "a string", "B": "a string (base64)", "N": "a string (the number's digits)", "BOOL": "true or false",
	"SS": "a list of strings", "BS": "a list of strings (base64)", "NS": "a list of strings (the numbers' digits)",
	"L": "a list of AttributeValues", "M": "an object of AttributeValues",
}

// PlainItem returns item as a plain JSON object (see PlainValue).
func PlainItem(item Item) (map[string]any, error) {
	out := make(map[string]any, len(item))
	for k, v := range item {
		p, err := PlainValue(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = p
	}
	return out, nil
}

// ItemFromPlain reads a plain JSON object as an item: a string is S, a
// number N (its text kept exactly), true/false BOOL, null NULL, an array
// L, an object M. The error says what is not an object.
func ItemFromPlain(text []byte) (Item, error) {
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if jsonEnd(d) != nil {
		return nil, fmt.Errorf("not one JSON object: text follows it")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON object (an item)")
	}
	item := make(Item, len(obj))
	for k, e := range obj {
		item[k] = avOfPlain(e)
	}
	return item, nil
}

// jsonEnd returns an error unless nothing but space follows the value
// dec has read (json.Decoder.More lets a stray } or ] through).
func jsonEnd(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("text follows the JSON value")
	}
	return nil
}

func avOfPlain(v any) json.RawMessage {
	wrap := func(t string, x any) json.RawMessage {
		b, _ := marshalText(map[string]any{t: x}, false)
		return b
	}
	switch x := v.(type) {
	case nil:
		return wrap("NULL", true)
	case string:
		return wrap("S", x)
	case json.Number:
		return wrap("N", string(x))
	case bool:
		return wrap("BOOL", x)
	case []any:
		l := make([]json.RawMessage, len(x))
		for i, e := range x {
			l[i] = avOfPlain(e)
		}
		return wrap("L", l)
	case map[string]any:
		m := make(map[string]json.RawMessage, len(x))
		for k, e := range x {
			m[k] = avOfPlain(e)
		}
		return wrap("M", m)
	}
	panic(fmt.Sprintf("console: unexpected JSON value %T", v))
}

// Columns returns the attribute names of items in the order a table of
// them shows: the key attributes given first, then every other name,
// sorted. Only names some item has are columns, keys included: a
// projection that leaves the key out gets no empty key column.
func Columns(items []Item, keys ...string) []string {
	present := map[string]bool{}
	for _, it := range items {
		for k := range it {
			present[k] = true
		}
	}
	seen := map[string]bool{}
	var cols []string
	for _, k := range keys {
		if present[k] && !seen[k] {
			seen[k] = true
			cols = append(cols, k)
		}
	}
	var rest []string
	for k := range present {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(cols, rest...)
}
