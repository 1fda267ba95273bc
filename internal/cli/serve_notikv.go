//go:build !tikv

package cli

import (
	"fmt"
	"log/slog"

	"github.com/dynago/dynago/internal/storage"
	"github.com/spf13/pflag"
)

// withTiKV says that this build does not link the TiKV backend: the
// default build leaves out its client (about 9 ms of package init and 19 MB
// of binary, docs/performance.md); go build -tags tikv ./cmd/dynago puts it
// in.
const withTiKV = false

// noTiKV is why --storage tikv fails in this build, and how to get one that
// has it.
const noTiKV = "this dynago was built without the TiKV backend; build one with it: go build -tags tikv ./cmd/dynago (docs/deployment.md)"

// addTiKVFlags registers serve's TiKV flags under the names the TiKV build
// uses, so that a script written for it fails with noTiKV rather than with
// an unknown flag.
func addTiKVFlags(f *pflag.FlagSet, o *storageOptions) {
	f.StringSliceVar(&o.pd, "pd", nil, "with --storage tikv, the cluster's PD endpoints (needs a build with -tags tikv)")
	f.StringVar(&o.namespace, "tikv-namespace", "", "with --storage tikv, the prefix of every key dynago writes (needs a build with -tags tikv)")
	f.DurationVar(&o.stampWindow, "tikv-stamp-window", 0, "with --storage tikv, the longest a stream-recording transaction may take from its stamp to its commit (needs a build with -tags tikv)")
}

// openTiKV refuses --storage tikv: this build has no TiKV client.
func openTiKV(serveOptions, *slog.Logger) (storage.Store, string, error) {
	return nil, "", usageError{fmt.Errorf("--storage tikv: %s", noTiKV)}
}
