package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
)

// FuzzDecodeIndexOps: the GSI change-queue decoder never panics, and
// whatever it accepts encodes back to the same bytes.
func FuzzDecodeIndexOps(f *testing.F) {
	f.Add(encodeIndexOps([]indexOp{{index: 1, key: []byte("k"), value: []byte("v")}, {index: 2, key: []byte("old")}}))
	f.Add(encodeIndexOps([]indexOp{{index: 7, key: []byte{}, value: []byte{}}}))
	f.Add([]byte{0, 1, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		ops, err := decodeIndexOps(b)
		if err != nil {
			return
		}
		if got := encodeIndexOps(ops); !bytes.Equal(got, b) {
			t.Fatalf("round trip: %x -> %x", b, got)
		}
	})
}

// TestGSILag_LegacyQueueEntriesFirst: queue entries in the earlier key
// format (timestamp | node ID), left by an older dynago, apply before
// stamped ones, and stamped ones wait while one of them is not due.
func TestGSILag_LegacyQueueEntriesFirst(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e, _ := openEngine(t, Options{Now: clock, GSILag: time.Hour}, "")
	e.Close() // the test propagates by hand
	mustRun(t, e, (*Engine).CreateTable, indexedTable)
	ctx := context.Background()
	var table uint64
	var ix uint16
	e.read(ctx, func(tx storage.Txn) error {
		tb, _, err := catalog.Get(tx, "ixt")
		if err == nil {
			table, ix = tb.Number, tb.GSIs[0].Number
		}
		return err
	})
	key := []byte("i-test-entry")
	set := func(v string) []indexOp { return []indexOp{{index: ix, key: key, value: []byte(v)}} }
	// The legacy entry is an hour older than the stamped one.
	legacy := keycodec.AppendSpace(nil, queueSpace(table))
	legacy = binary.BigEndian.AppendUint64(legacy, uint64(now.Add(-time.Hour).UnixNano()))
	legacy = binary.BigEndian.AppendUint64(legacy, 42)
	if err := e.update(ctx, func(tx storage.Txn) error { return tx.Set(legacy, encodeIndexOps(set("legacy"))) }); err != nil {
		t.Fatal(err)
	}
	if err := e.update(ctx, func(tx storage.Txn) error { return e.queueIndexOps(tx, table, set("stamped")) }); err != nil {
		t.Fatal(err)
	}
	value := func() string {
		var v []byte
		e.read(ctx, func(tx storage.Txn) error { v, _ = tx.Get(key); return nil })
		return string(v)
	}
	e.bgCtx = context.Background()
	mu.Lock()
	now = now.Add(30 * time.Minute) // the legacy entry is due, the stamped one not
	mu.Unlock()
	if err := e.propagateDue(); err != nil {
		t.Fatal(err)
	}
	if v := value(); v != "legacy" {
		t.Fatalf("after the legacy entry's lag: %q, want legacy", v)
	}
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	// On TiKV a stamped entry waits until its stamp settles (the store's
	// stamp window) as well as for its lag.
	for deadline := time.Now().Add(5 * time.Second); value() != "stamped"; time.Sleep(10 * time.Millisecond) {
		if err := e.propagateDue(); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("after both lags: %q, want stamped", value())
		}
	}
}
