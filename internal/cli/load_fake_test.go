package cli

// Test-only stand-ins for internal/dataio's readers and writers, so that
// load's and dump's own logic (batching, checks, retries, scanning,
// summaries) is tested whatever dataio's state; the end-to-end tests
// through the real formats are in load_dataio_test.go.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/dataio"
)

// fakeEntry is one thing a fakeReader yields: an item, or a read error.
type fakeEntry struct {
	item dataio.Item
	err  error
}

// fakeReader yields its entries in order, one "byte" of progress each;
// entry i (1-based) is on line i of file name.
type fakeReader struct {
	name    string
	entries []fakeEntry
	pos     int
}

func (r *fakeReader) Next() (dataio.Item, error) {
	if r.pos >= len(r.entries) {
		return nil, io.EOF
	}
	e := r.entries[r.pos]
	r.pos++
	return e.item, e.err
}

func (r *fakeReader) Progress() (int64, int64) { return int64(r.pos), int64(len(r.entries)) }
func (r *fakeReader) Close() error             { return nil }
func (r *fakeReader) Position() (string, int)  { return r.name, r.pos }

// memWriter collects the items written to it.
type memWriter struct {
	mu     sync.Mutex
	items  []dataio.Item
	closed bool
	// aborted is set by Abort (a dump that did not finish).
	aborted bool
}

func (w *memWriter) Write(it dataio.Item) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.items = append(w.items, it)
	return nil
}

func (w *memWriter) Abort() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.aborted = true
	return nil
}

func (w *memWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return nil
}

// useFakes points load at sources (by file name) and dump at a new
// memWriter per destination, until the test ends. Tests that use it do
// not run in parallel (openSource and createSink are package state).
func useFakes(t *testing.T, sources map[string][]fakeEntry) map[string]*memWriter {
	t.Helper()
	oldOpen, oldCreate := openSource, createSink
	t.Cleanup(func() { openSource, createSink = oldOpen, oldCreate })
	sinks := map[string]*memWriter{}
	var mu sync.Mutex
	openSource = func(path string, o sourceOptions) (dataio.Reader, error) {
		e, ok := sources[path]
		if !ok {
			return nil, fmt.Errorf("open %s: no such file", path)
		}
		return &fakeReader{name: path, entries: e}, nil
	}
	createSink = func(dest string, o sinkOptions) (dataio.Writer, error) {
		mu.Lock()
		defer mu.Unlock()
		w := &memWriter{}
		sinks[dest] = w
		return w, nil
	}
	return sinks
}

// moviesFile is the movies sample: a JSON array of 4,610 items.
const moviesFile = "../../../shared/data/moviedata.json"

// movieItems reads the movies into items the way dataio's json format
// is documented to (numbers keep their text; lists stay lists), with a
// test-only decoder.
func movieItems(t *testing.T) []dataio.Item {
	t.Helper()
	data, err := os.ReadFile(moviesFile)
	if err != nil {
		t.Skipf("movies sample: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw []map[string]any
	if err := dec.Decode(&raw); err != nil {
		t.Fatal(err)
	}
	items := make([]dataio.Item, len(raw))
	for i, m := range raw {
		items[i] = jsonItem(m)
	}
	return items
}

// jsonItem converts a decoded JSON object to an item.
func jsonItem(m map[string]any) dataio.Item {
	it := dataio.Item{}
	for k, v := range m {
		it[k] = jsonValue(v)
	}
	return it
}

// jsonValue converts a decoded JSON value to an AttributeValue.
func jsonValue(v any) types.AttributeValue {
	switch v := v.(type) {
	case string:
		return &types.AttributeValueMemberS{Value: v}
	case json.Number:
		return &types.AttributeValueMemberN{Value: v.String()}
	case bool:
		return &types.AttributeValueMemberBOOL{Value: v}
	case nil:
		return &types.AttributeValueMemberNULL{Value: true}
	case []any:
		l := make([]types.AttributeValue, len(v))
		for i, e := range v {
			l[i] = jsonValue(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case map[string]any:
		return &types.AttributeValueMemberM{Value: jsonItem(v)}
	}
	panic(fmt.Sprintf("json value %T", v))
}

// entries wraps items as fakeEntries.
func entries(items []dataio.Item) []fakeEntry {
	es := make([]fakeEntry, len(items))
	for i, it := range items {
		es[i] = fakeEntry{item: it}
	}
	return es
}

// canon renders an item canonically for comparison: names sorted,
// numbers in DynamoDB's canonical form (DynamoDB stores a number's value,
// not its text: 8.30 comes back as 8.3, source
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.Number),
// set members sorted (a set has no order).
func canon(t *testing.T, v types.AttributeValue) string {
	t.Helper()
	num := func(s string) string {
		c, err := attr.ParseNumber(s)
		if err != nil {
			t.Fatalf("number %q: %v", s, err)
		}
		return c
	}
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("S%q", v.Value)
	case *types.AttributeValueMemberN:
		return "N" + num(v.Value)
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("B%x", v.Value)
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprintf("BOOL%v", v.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		s := append([]string(nil), v.Value...)
		sort.Strings(s)
		return fmt.Sprintf("SS%q", s)
	case *types.AttributeValueMemberNS:
		s := make([]string, len(v.Value))
		for i, n := range v.Value {
			s[i] = num(n)
		}
		sort.Strings(s)
		return fmt.Sprintf("NS%q", s)
	case *types.AttributeValueMemberBS:
		s := make([]string, len(v.Value))
		for i, b := range v.Value {
			s[i] = fmt.Sprintf("%x", b)
		}
		sort.Strings(s)
		return fmt.Sprintf("BS%q", s)
	case *types.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = canon(t, e)
		}
		return "L[" + strings.Join(parts, ",") + "]"
	case *types.AttributeValueMemberM:
		return "M" + canonItem(t, v.Value)
	}
	t.Fatalf("value %T", v)
	return ""
}

// canonItem renders an item canonically (see canon).
func canonItem(t *testing.T, it dataio.Item) string {
	t.Helper()
	names := make([]string, 0, len(it))
	for k := range it {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%q:%s", k, canon(t, it[k]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// sameItems checks that got holds exactly want's items, in any order.
func sameItems(t *testing.T, got, want []dataio.Item) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d items, want %d", len(got), len(want))
	}
	count := map[string]int{}
	for _, it := range want {
		count[canonItem(t, it)]++
	}
	for _, it := range got {
		c := canonItem(t, it)
		if count[c] == 0 {
			t.Fatalf("item not in the input (or once too often): %.300s", c)
		}
		count[c]--
	}
}
