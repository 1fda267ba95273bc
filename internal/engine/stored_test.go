package engine

// What the store holds, read directly: the checks of the tests that write
// through the engine and then look at the table's items, index entries
// and item-collection sizes as stored.

import (
	"bytes"
	"context"
	"testing"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
)

// viewTable calls fn with a read-only transaction of st and the catalog
// entry of table name as it sees it.
func viewTable(t testing.TB, e *Engine, st storage.Store, name string, fn func(tx storage.Txn, tab *catalog.Table)) {
	t.Helper()
	tx, err := st.Begin(context.Background(), storage.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	tab, err := e.lookup(tx, name)
	if err != nil {
		t.Fatal(err)
	}
	fn(tx, tab)
}

// mustLookup returns the catalog entry of table name.
func mustLookup(t testing.TB, e *Engine, name string) *catalog.Table {
	t.Helper()
	var tab *catalog.Table
	if err := e.read(t.Context(), func(tx storage.Txn) error {
		var err error
		tab, err = e.lookup(tx, name)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return tab
}

// scanSpace calls fn with every key and value of a key space, in order;
// the slices are valid only during the call.
func scanSpace(t testing.TB, tx storage.Txn, sp keycodec.Space, fn func(key, value []byte)) {
	t.Helper()
	lo, hi := keycodec.SpaceBounds(sp)
	it, err := tx.Scan(lo, hi, false)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for it.Next() {
		fn(it.Key(), it.Value())
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkIndexes verifies that every index of table name holds exactly the
// entries its table's items call for (keys and projected values), and
// that the item-collection sizes match the items and LSI entries.
func checkIndexes(t testing.TB, e *Engine, st storage.Store, name string) {
	t.Helper()
	viewTable(t, e, st, name, func(tx storage.Txn, tab *catalog.Table) {
		want := map[uint16]map[string][]byte{}
		collections := map[string]int64{}
		for _, ix := range tab.Indexes() {
			want[ix.Number] = map[string][]byte{}
		}
		items := 0
		scanSpace(t, tx, space(tab), func(_, value []byte) {
			items++
			raw := append([]byte(nil), value...)
			item, size, err := decodeStored(raw)
			if err != nil {
				t.Fatal(err)
			}
			pk := string(keycodec.AppendPartition(nil, collectionSpace(tab), item[tab.KeySchema[0].AttributeName]))
			if len(tab.LSIs) > 0 {
				collections[pk] += int64(size)
			}
			for _, ix := range tab.Indexes() {
				entry, ok, err := entryFor(tab, ix, item, raw, size)
				if err != nil || !ok {
					continue
				}
				want[ix.Number][string(entry.key)] = entry.value
				if ix.Local {
					collections[pk] += int64(entry.size)
				}
			}
		})
		for _, ix := range tab.Indexes() {
			got := 0
			scanSpace(t, tx, keycodec.Space{Table: tab.Number, Index: ix.Number}, func(key, value []byte) {
				got++
				v, ok := want[ix.Number][string(key)]
				if !ok {
					t.Errorf("index %s: orphan entry %x", ix.Name, key)
					return
				}
				if !bytes.Equal(v, value) {
					t.Errorf("index %s: entry %x holds a stale projection", ix.Name, key)
				}
			})
			if got != len(want[ix.Number]) {
				t.Errorf("index %s: %d entries, want %d (table has %d items)", ix.Name, got, len(want[ix.Number]), items)
			}
		}
		if len(tab.LSIs) > 0 {
			n := 0
			scanSpace(t, tx, collectionSpace(tab), func(key, value []byte) {
				n++
				size, _ := varint(value)
				if size != collections[string(key)] {
					t.Errorf("item collection %x: size %d, want %d", key, size, collections[string(key)])
				}
			})
			if n != len(collections) {
				t.Errorf("%d item collection sizes, want %d", n, len(collections))
			}
		}
	})
}

func varint(b []byte) (int64, bool) {
	var v int64
	var shift uint
	for _, c := range b {
		v |= int64(c&0x7f) << shift
		if c < 0x80 {
			return (v >> 1) ^ -(v & 1), true
		}
		shift += 7
	}
	return 0, false
}

// tableImages returns every item of a table as stored JSON, by key JSON.
func tableImages(t testing.TB, e *Engine, st storage.Store, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	viewTable(t, e, st, name, func(tx storage.Txn, tab *catalog.Table) {
		scanSpace(t, tx, space(tab), func(_, value []byte) {
			item, _, err := decodeStored(value)
			if err != nil {
				t.Fatal(err)
			}
			key := attr.Item{}
			for _, k := range tab.KeySchema {
				key[k.AttributeName] = item[k.AttributeName]
			}
			out[string(attr.AppendItem(nil, key))] = string(attr.AppendItem(nil, item))
		})
	})
	return out
}
