package pebble_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/storage/pebble"
	"github.com/dynago/dynago/internal/storage/storagetest"
)

// TestStore_ReleaseMemory: after writes, ReleaseMemory flushes the
// memtable and frees its arena (what was written stays readable, and
// durable across a reopen); without writes since the last call it does
// nothing; an in-memory store keeps its memtable, which holds its data.
func TestStore_ReleaseMemory(t *testing.T) {
	dir := t.TempDir()
	s, err := pebble.Open(pebble.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	value := strings.Repeat("v", 1000)
	for i := range 3000 { // 3 MB: memtables of 256 KiB, 512 KiB, 1 MiB, 2 MiB
		storagetest.MustSet(t, s, fmt.Sprintf("k%05d", i), value)
	}
	flushes := s.Flushes()
	if n := s.MemTables(); n < 2 {
		t.Fatalf("%d memtables after 3 MB of writes, want several (the test writes too little)", n)
	}
	if err := s.ReleaseMemory(); err != nil {
		t.Fatal(err)
	}
	if got := s.Flushes(); got != flushes+1 {
		t.Fatalf("flushes %d after ReleaseMemory, want %d", got, flushes+1)
	}
	// One memtable is left: the new mutable one, allocated (its size in
	// Pebble's metrics) but not yet written, so not resident.
	if n := s.MemTables(); n != 1 {
		t.Fatalf("%d memtables after ReleaseMemory (%d bytes), want 1: the new, empty one", n, s.MemTableBytes())
	}
	if err := s.ReleaseMemory(); err != nil || s.Flushes() != flushes+1 {
		t.Fatalf("a second ReleaseMemory with no write between: %v, %d flushes, want none", err, s.Flushes()-flushes-1)
	}
	if v, ok := storagetest.MustGet(t, s, "k02999"); !ok || v != value {
		t.Fatalf("k02999 after the flush: %q %v", v, ok)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = pebble.Open(pebble.Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, ok := storagetest.MustGet(t, s, "k00000"); !ok || v != value {
		t.Fatalf("k00000 after reopen: %q %v", v, ok)
	}

	mem, err := pebble.Open(pebble.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	storagetest.MustSet(t, mem, "k", "v")
	if err := mem.ReleaseMemory(); err != nil || mem.Flushes() != 0 {
		t.Fatalf("in memory: %v, %d flushes; want none", err, mem.Flushes())
	}
}
