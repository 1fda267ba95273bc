// Package teststore opens the store a package's tests run on, chosen by
// the DYNAGO_TEST_STORAGE environment variable: "pebble" (the default,
// in memory) or "tikv" (client-go's mock TiKV cluster, several regions).
// scripts/test.sh runs the engine's and the server's tests once on each,
// so every end-to-end behaviour is checked on both backends.
package teststore

import (
	"os"
	"testing"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/storage/pebble"
	"github.com/dynago/dynago/internal/storage/tikv"
	"github.com/dynago/dynago/internal/storage/tikv/tikvtest"
)

// Env is the environment variable that chooses the backend.
const Env = "DYNAGO_TEST_STORAGE"

// Backend returns the backend tests run on: "pebble" or "tikv". Any
// other value fails the test.
func Backend(t testing.TB) string {
	switch b := os.Getenv(Env); b {
	case "", "pebble":
		return "pebble"
	case "tikv":
		return "tikv"
	default:
		t.Fatalf("%s=%q: want pebble or tikv", Env, b)
		return ""
	}
}

// Open returns a fresh empty store on the chosen backend, closed when the
// test ends (after the caller's own cleanups, which run first).
func Open(t testing.TB) storage.Store {
	t.Helper()
	if Backend(t) == "tikv" {
		s := tikvtest.NewCluster(t).Open(t, tikv.Options{ValidatedReads: catalog.IsKey})
		t.Cleanup(func() { s.Close() })
		return s
	}
	s, err := pebble.Open(pebble.Options{InMemory: true, ReadCached: catalog.IsKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
