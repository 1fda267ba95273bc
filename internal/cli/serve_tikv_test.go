//go:build tikv

package cli

import (
	"strings"
	"testing"
)

// TestServe_TiKVFlags: in a build with the TiKV backend, TiKV flag
// combinations that cannot work are refused before any connection, with
// exit code 2 and a message naming the flag.
func TestServe_TiKVFlags(t *testing.T) {
	testStorageFlags(t, []storageFlagCase{
		{[]string{"--storage", "tikv"}, "--storage tikv needs --pd"},
		{[]string{"--storage", "tikv", "--pd", "mock", "--in-memory"}, "--in-memory is for --storage pebble"},
		{[]string{"--storage", "tikv", "--pd", "mock", "--data-dir", "/x"}, "--data-dir is for --storage pebble"},
		{[]string{"--storage", "tikv", "--pd", "mock,127.0.0.1:2379"}, "--pd mock cannot be combined"},
		{[]string{"--storage", "tikv", "--pd", "127.0.0.1"}, `--pd "127.0.0.1": want host:port`},
		{[]string{"--storage", "tikv", "--pd", "127.0.0.1:99999"}, "port must be 1 to 65535"},
		{[]string{"--storage", "tikv", "--pd", "MOCK"}, `--pd "MOCK": want host:port`},
		{[]string{"--storage", "tikv", "--pd", "mock", "--tikv-namespace", ""}, "--tikv-namespace must not be empty"},
		{[]string{"--storage", "tikv", "--pd", "mock", "--tikv-namespace", "tidb"}, "as TiDB's keys do"},
		{[]string{"--storage", "tikv", "--pd", "mock", "--tikv-namespace", "a b"}, "only A-Z a-z 0-9"},
		{[]string{"--storage", "tikv", "--pd", "mock", "--tikv-stamp-window", "5ms"}, "--tikv-stamp-window must be within 10ms..10s"},
		{[]string{"--storage", "tikv", "--pd", "mock", "--tikv-stamp-window", "1h"}, "--tikv-stamp-window must be within"}})
}

// TestVersion_NamesTiKV: the version line of a TiKV build says so.
func TestVersion_NamesTiKV(t *testing.T) {
	if v := version(); !strings.HasSuffix(v, " storage: pebble, tikv") {
		t.Fatalf("version %q: want it to end with the storage engines, tikv among them", v)
	}
}
