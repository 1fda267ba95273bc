package pebble_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/storage/pebble"
	"github.com/dynago/dynago/internal/storage/storagetest"
)

func TestStore_Contract_InMemory(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := pebble.Open(pebble.Options{InMemory: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestStore_Contract_OnDisk(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := pebble.Open(pebble.Options{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestStore_Reopen_KeepsCommittedData(t *testing.T) {
	dir := t.TempDir()
	s, err := pebble.Open(pebble.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	storagetest.MustSet(t, s, "durable", "yes")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err == nil {
		t.Fatal("second Close succeeded")
	}
	s, err = pebble.Open(pebble.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, ok := storagetest.MustGet(t, s, "durable"); !ok || v != "yes" {
		t.Fatalf("after reopen: %q %v", v, ok)
	}
}

func cacheAll([]byte) bool { return true }

// TestStore_Contract_ReadCache runs the contract with every key in the
// read cache: the cache must be invisible.
func TestStore_Contract_ReadCache(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		s, err := pebble.Open(pebble.Options{InMemory: true, ReadCached: cacheAll})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestStore_ReadCache_NeverStale: while writers commit increasing values
// of a few cached keys, every read (ReadOnly and read-write) returns a
// value at least as new as the last commit that finished before the read
// began.
func TestStore_ReadCache_NeverStale(t *testing.T) {
	s, err := pebble.Open(pebble.Options{InMemory: true, ReadCached: cacheAll})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	keys := []string{"c/a", "c/b", "c/c"}
	var done [3]atomic.Int64 // per key: last value whose commit returned
	for _, k := range keys {
		storagetest.MustSet(t, s, k, "0")
	}
	const writes = 300
	var wg sync.WaitGroup
	for i, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; n <= writes; n++ {
				storagetest.MustSet(t, s, k, strconv.Itoa(n))
				done[i].Store(int64(n))
			}
		}()
	}
	errs := make(chan error, 4)
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mode := storage.ReadOnly
			if r%2 == 1 {
				mode = storage.ReadWrite
			}
			for j := 0; j < 2000; j++ {
				i := j % len(keys)
				floor := done[i].Load()
				tx, err := s.Begin(context.Background(), mode)
				if err != nil {
					errs <- err
					return
				}
				v, err := tx.Get([]byte(keys[i]))
				tx.Rollback()
				if err != nil {
					errs <- err
					return
				}
				if n, _ := strconv.Atoi(string(v)); int64(n) < floor {
					errs <- fmt.Errorf("%s: read %d after %d was committed", keys[i], n, floor)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestStore_ReadCache_DeleteRange: a range delete empties cached keys.
func TestStore_ReadCache_DeleteRange(t *testing.T) {
	s, err := pebble.Open(pebble.Options{InMemory: true, ReadCached: cacheAll})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storagetest.MustSet(t, s, "b1", "v")
	if _, ok := storagetest.MustGet(t, s, "b1"); !ok { // now cached
		t.Fatal("b1 missing")
	}
	if err := s.DeleteRange(context.Background(), []byte("b"), []byte("c")); err != nil {
		t.Fatal(err)
	}
	if v, ok := storagetest.MustGet(t, s, "b1"); ok {
		t.Fatalf("b1 = %q after DeleteRange", v)
	}
}

// TestStore_Reopen_StampsKeepIncreasing: the commit stamp survives Close.
func TestStore_Reopen_StampsKeepIncreasing(t *testing.T) {
	dir := t.TempDir()
	stampAt := func() uint64 {
		s, err := pebble.Open(pebble.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		tx, _ := s.Begin(context.Background(), storage.ReadWrite)
		tx.SetStamped([]byte("s/"), nil, []byte("v"))
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		ro, _ := s.Begin(context.Background(), storage.ReadOnly)
		defer ro.Rollback()
		it, _ := ro.Scan([]byte("s/"), []byte("s0"), true)
		defer it.Close()
		if !it.Next() {
			t.Fatal("no stamped key")
		}
		return binary.BigEndian.Uint64(it.Key()[2:])
	}
	first := stampAt()
	if second := stampAt(); second <= first {
		t.Fatalf("stamp after reopen %d, want > %d", second, first)
	}
}
