//go:build !tikv

package cli

import (
	"strings"
	"testing"
)

// TestServe_NoTiKV: the default build has no TiKV client; --storage tikv is
// refused at once, exit 2, with the build command that has it, however the
// other TiKV flags are set, and the version line names only Pebble.
func TestServe_NoTiKV(t *testing.T) {
	want := "--storage tikv: this dynago was built without the TiKV backend; build one with it: go build -tags tikv ./cmd/dynago"
	testStorageFlags(t, []storageFlagCase{
		{[]string{"--storage", "tikv"}, want},
		{[]string{"--storage", "tikv", "--pd", "mock"}, want},
		{[]string{"--storage", "tikv", "--pd", "127.0.0.1:2379", "--tikv-namespace", "app", "--tikv-stamp-window", "1s"}, want},
	})
	if v := version(); !strings.HasSuffix(v, " storage: pebble") {
		t.Fatalf("version %q: want it to end with the storage engines, pebble alone", v)
	}
}
