package cli

import (
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/storage/pebble"
	"github.com/dynago/dynago/internal/throttle"
)

// TestServeOptions_Check: each out-of-range flag is named in its error.
func TestServeOptions_Check(t *testing.T) {
	ok := serveOptions{ttlSweep: 5 * time.Second, collLimit: engine.DefaultItemCollectionSizeLimit,
		shards: engine.DefaultStreamShards, rollover: engine.DefaultStreamRollover, scale: 1,
		splitAfter: throttle.DefaultHeatSplitAfter, readHeader: 30 * time.Second, idle: 5 * time.Minute}
	if err := ok.check(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		change func(*serveOptions)
		want   string
	}{
		{func(o *serveOptions) { o.gsiLag = -time.Second }, "--gsi-lag"},
		{func(o *serveOptions) { o.createDelay = -time.Second }, "--create-delay must not be negative"},
		{func(o *serveOptions) { o.ttlSweep = -1 }, "--ttl-sweep"},
		{func(o *serveOptions) { o.collLimit = 0 }, "--item-collection-size-limit"},
		{func(o *serveOptions) { o.shards = 0 }, "--stream-shards must be within 1..1000"},
		{func(o *serveOptions) { o.shards = 1001 }, "--stream-shards"},
		{func(o *serveOptions) { o.rollover = 999 * time.Millisecond }, "--stream-rollover must be at least 1s"},
		{func(o *serveOptions) { o.scale = 0.5 }, "--capacity-scale must be a number, at least 1"},
		{func(o *serveOptions) { o.scale = math.NaN() }, "--capacity-scale"},
		{func(o *serveOptions) { o.scale = math.Inf(1) }, "--capacity-scale"},
		{func(o *serveOptions) { o.splitAfter = 500 * time.Millisecond }, "--heat-split-after must be at least 1s"},
		{func(o *serveOptions) { o.readHeader = 0 }, "--read-header-timeout must be positive"},
		{func(o *serveOptions) { o.idle = -time.Second }, "--idle-timeout must be positive"},
	} {
		o := ok
		tc.change(&o)
		if err := o.check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error naming %q", err, tc.want)
		}
	}
}

// TestServe_StorageFlags: storage flag combinations that cannot work are
// refused at once, with exit code 2 and a message naming the flag (the TiKV
// build's own cases: serve_tikv_test.go).
func TestServe_StorageFlags(t *testing.T) {
	testStorageFlags(t, []storageFlagCase{
		{[]string{"--storage", "foo"}, `invalid --storage "foo"`},
		{[]string{"--in-memory", "--data-dir", "/x"}, "--in-memory and --data-dir /x conflict"},
		{[]string{"--pd", "127.0.0.1:2379"}, "--pd needs --storage tikv"},
		{[]string{"--in-memory", "--tikv-namespace", "x"}, "--tikv-namespace needs --storage tikv"},
		{[]string{"--in-memory", "--tikv-stamp-window", "1s"}, "--tikv-stamp-window needs --storage tikv"},
	})
}

// storageFlagCase is serve's arguments and a part of the message it must
// fail with.
type storageFlagCase struct {
	args []string
	want string
}

// testStorageFlags runs serve with each case's arguments and checks that it
// exits 2 with the case's message.
func testStorageFlags(t *testing.T, cases []storageFlagCase) {
	t.Helper()
	for _, tc := range cases {
		var out, errOut strings.Builder
		code := Main(append([]string{"serve", "--addr", "127.0.0.1:0"}, tc.args...), &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("serve %v: exit %d, %q; want exit 2 and %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}

// TestServe_DataDirInUse: a second server on the same data directory is
// refused with the pid of the first, and nothing else is touched.
func TestServe_DataDirInUse(t *testing.T) {
	dir := t.TempDir()
	st, err := pebble.Open(pebble.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out, errOut strings.Builder
	code := Main([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir}, &out, &errOut)
	// In one process the lock is the process's own; another dynago would
	// be named with its pid (storage/pebble's TestStore_Open_DirectoryInUse).
	if want := "data directory " + dir + " is already open in this process"; code != 1 || !strings.Contains(errOut.String(), want) {
		t.Fatalf("exit %d, %q; want exit 1 and %q", code, errOut.String(), want)
	}
}

// TestVersion: "dynago version" and "dynago --version" print the same
// line, naming the binary, its commit (or "commit unknown") and Go.
func TestVersion(t *testing.T) {
	var a, b, errOut strings.Builder
	if code := Main([]string{"version"}, &a, &errOut); code != 0 {
		t.Fatalf("version: exit %d %s", code, errOut.String())
	}
	if code := Main([]string{"--version"}, &b, &errOut); code != 0 {
		t.Fatalf("--version: exit %d %s", code, errOut.String())
	}
	if a.String() != b.String() || !strings.HasPrefix(a.String(), "dynago ") || !strings.Contains(a.String(), "commit ") || !strings.Contains(a.String(), runtime.Version()) {
		t.Fatalf("version %q, --version %q", a.String(), b.String())
	}
}
