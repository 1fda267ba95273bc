package pebble_test

import (
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
