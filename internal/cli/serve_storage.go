package cli

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/storage/pebble"
)

// storageOptions are serve's storage flags.
type storageOptions struct {
	backend     string   // --storage: pebble or tikv
	pd          []string // --pd
	namespace   string   // --tikv-namespace
	stampWindow time.Duration
	set         map[string]bool // flags given on the command line
}

// openStore opens the store serve runs on, and says where the data is.
func openStore(o serveOptions, logger *slog.Logger) (storage.Store, string, error) {
	switch o.storage.backend {
	case "pebble":
		for _, f := range []string{"pd", "tikv-namespace", "tikv-stamp-window"} {
			if o.storage.set[f] {
				return nil, "", usageError{fmt.Errorf("--%s needs --storage tikv", f)}
			}
		}
		if o.inMemory && o.storage.set["data-dir"] {
			return nil, "", usageError{fmt.Errorf("--in-memory and --data-dir %s conflict: --in-memory keeps nothing on disk; give one of them", o.dataDir)}
		}
		st, err := pebble.Open(pebble.Options{Dir: o.dataDir, InMemory: o.inMemory, Logger: logger, ReadCached: catalog.IsKey})
		if err != nil {
			return nil, "", err
		}
		if o.inMemory {
			return st, "in memory", nil
		}
		return st, o.dataDir, nil
	case "tikv":
		return openTiKV(o, logger)
	default:
		return nil, "", usageError{fmt.Errorf("invalid --storage %q (want pebble or tikv)", o.storage.backend)}
	}
}
