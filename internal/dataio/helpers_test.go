package dataio

import (
	"encoding/base64"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// moviesPath is the 4,610 movies of the AWS getting-started guide.
var moviesPath = filepath.Join("..", "..", "..", "shared", "data", "moviedata.json")

// readAll reads every item of r, failing the test on any error.
func readAll(t testing.TB, r Reader) []Item {
	t.Helper()
	var items []Item
	for {
		item, err := r.Next()
		if err == io.EOF {
			return items
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		items = append(items, item)
	}
}

// openTestFile opens path as an Ion data file (an export's, which Open
// reads only inside an export folder) or with Open, failing the test on
// an error.
func openTestFile(t testing.TB, path string, ion bool, opts ReadOptions) Reader {
	t.Helper()
	var r Reader
	var err error
	if ion {
		r, err = openIonFile(path)
	} else {
		r, err = Open(path, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// openAll opens path and reads all of it.
func openAll(t testing.TB, path string, opts ReadOptions) []Item {
	t.Helper()
	r, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	defer r.Close()
	return readAll(t, r)
}

// writeAll writes items to dest.
func writeAll(t testing.TB, dest string, opts WriteOptions, items []Item) {
	t.Helper()
	w, err := Create(dest, opts)
	if err != nil {
		t.Fatalf("Create(%s): %v", dest, err)
	}
	for _, item := range items {
		if err := w.Write(item); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// canon is an item's DynamoDB JSON line (names sorted, set members in
// order, numbers' text as is), for comparing items exactly.
func canon(t testing.TB, item Item) string {
	t.Helper()
	b, err := encodeDynamoDBJSONLine(nil, item)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameItems fails unless got and want are the same items in order.
func sameItems(t testing.TB, got, want []Item) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d items, want %d", len(got), len(want))
	}
	for i := range got {
		if g, w := canon(t, got[i]), canon(t, want[i]); g != w {
			t.Fatalf("item %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// writeFile writes content to name in a temporary folder.
func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// badLine returns the line of a *BadInput, or fails.
func badLine(t testing.TB, err error) int {
	t.Helper()
	var b *BadInput
	if !errors.As(err, &b) {
		t.Fatalf("error %v (%T) is not a *BadInput", err, err)
	}
	return b.Line
}

// encodeIon writes an item as an ION export line, as DynamoDB's exports
// write them (numbers as decimals, d for the exponent; tests only: dataio
// writes DYNAMODB_JSON exports).
func encodeIon(item Item) string {
	var b strings.Builder
	b.WriteString("$ion_1_0 {Item:")
	ionStruct(&b, item)
	b.WriteString("}\n")
	return b.String()
}

func ionStruct(b *strings.Builder, m map[string]types.AttributeValue) {
	b.WriteByte('{')
	for i, name := range sortedNames(m) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(name))
		b.WriteByte(':')
		ionValue(b, m[name])
	}
	b.WriteByte('}')
}

func ionDecimal(n string) string {
	n = strings.NewReplacer("E", "d", "e", "d").Replace(n)
	if !strings.ContainsAny(n, ".d") {
		n += "."
	}
	return n
}

func ionValue(b *strings.Builder, av types.AttributeValue) {
	list := func(ann string, members []string, f func(string) string) {
		b.WriteString(ann + "::[")
		for i, m := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f(m))
		}
		b.WriteByte(']')
	}
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		b.WriteString(strconv.Quote(v.Value))
	case *types.AttributeValueMemberN:
		b.WriteString(ionDecimal(v.Value))
	case *types.AttributeValueMemberB:
		b.WriteString("{{" + base64.StdEncoding.EncodeToString(v.Value) + "}}")
	case *types.AttributeValueMemberBOOL:
		b.WriteString(strconv.FormatBool(v.Value))
	case *types.AttributeValueMemberNULL:
		b.WriteString("null")
	case *types.AttributeValueMemberM:
		ionStruct(b, v.Value)
	case *types.AttributeValueMemberL:
		b.WriteByte('[')
		for i, e := range v.Value {
			if i > 0 {
				b.WriteByte(',')
			}
			ionValue(b, e)
		}
		b.WriteByte(']')
	case *types.AttributeValueMemberSS:
		list("$dynamodb_SS", v.Value, strconv.Quote)
	case *types.AttributeValueMemberNS:
		list("$dynamodb_NS", v.Value, ionDecimal)
	case *types.AttributeValueMemberBS:
		list("$dynamodb_BS", base64All(v.Value), func(s string) string { return "{{" + s + "}}" })
	}
}

// allTypes are items with every one of the ten types, and the corners:
// empty strings and binaries, a string with \r\n, 38-digit and extreme
// numbers, names with ":" and ",", one name with two types across items.
func allTypes() []Item {
	return []Item{
		{
			"s": &types.AttributeValueMemberS{Value: "hello, \"world\"\r\nnext"},
			"n": &types.AttributeValueMemberN{Value: "12345678901234567890123456789012345678"},
			"b": &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 255}},
			"t": &types.AttributeValueMemberBOOL{Value: true},
			"f": &types.AttributeValueMemberBOOL{Value: false},
			"z": &types.AttributeValueMemberNULL{Value: true},
			"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				"inner": &types.AttributeValueMemberL{Value: []types.AttributeValue{
					&types.AttributeValueMemberN{Value: "-1E-130"},
					&types.AttributeValueMemberS{Value: ""},
					&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
				}},
			}},
			"l":    &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			"ss":   &types.AttributeValueMemberSS{Value: []string{"b", "a", "ü"}},
			"ns":   &types.AttributeValueMemberNS{Value: []string{"9.9999999999999999999999999999999999999E+125", "0.5", "-7"}},
			"bs":   &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
			"a:b,": &types.AttributeValueMemberS{Value: "odd name"},
			"mix":  &types.AttributeValueMemberN{Value: "8.3"},
		},
		{
			"s":   &types.AttributeValueMemberS{Value: ""},
			"b":   &types.AttributeValueMemberB{Value: []byte{}},
			"mix": &types.AttributeValueMemberS{Value: "8.3"},
			"n":   &types.AttributeValueMemberN{Value: "0"},
		},
		{"n": &types.AttributeValueMemberN{Value: "1"}},
	}
}
