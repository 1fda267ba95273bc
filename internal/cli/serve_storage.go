package cli

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/storage/pebble"
	"github.com/dynago/dynago/internal/storage/tikv"
	"github.com/dynago/dynago/internal/storage/tikv/tikvtest"
)

// storageOptions are serve's storage flags.
type storageOptions struct {
	backend     string   // --storage: pebble or tikv
	pd          []string // --pd
	namespace   string   // --tikv-namespace
	stampWindow time.Duration
}

// mockPD is the --pd value that runs an in-process mock TiKV cluster.
const mockPD = "mock"

// openStore opens the store serve runs on, and says where the data is.
func openStore(o serveOptions, logger *slog.Logger) (storage.Store, string, error) {
	switch o.storage.backend {
	case "pebble":
		if len(o.storage.pd) > 0 {
			return nil, "", usageError{fmt.Errorf("--pd needs --storage tikv")}
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
	default:
		return nil, "", usageError{fmt.Errorf("invalid --storage %q (want pebble or tikv)", o.storage.backend)}
	}
	if len(o.storage.pd) == 0 {
		return nil, "", usageError{fmt.Errorf("--storage tikv needs --pd host:port[,host:port...] (or --pd mock)")}
	}
	if o.inMemory {
		return nil, "", usageError{fmt.Errorf("--in-memory is for --storage pebble; with tikv the data is the cluster's")}
	}
	if err := tikv.CheckNamespace(o.storage.namespace); err != nil {
		return nil, "", usageError{fmt.Errorf("--tikv-namespace: %w", err)}
	}
	if o.storage.stampWindow < 10*time.Millisecond {
		return nil, "", usageError{fmt.Errorf("--tikv-stamp-window must be at least 10ms")}
	}
	opts := tikv.Options{
		PD: o.storage.pd, Namespace: o.storage.namespace, StampWindow: o.storage.stampWindow,
		Logger: logger, ValidatedReads: catalog.IsKey,
	}
	if len(o.storage.pd) == 1 && o.storage.pd[0] == mockPD {
		cluster, err := tikvtest.New()
		if err != nil {
			return nil, "", err
		}
		st, err := cluster.OpenNode(opts)
		if err != nil {
			cluster.Close()
			return nil, "", err
		}
		return mockStore{st, cluster}, "TiKV mock cluster in memory (namespace " + namespace(opts) + ")", nil
	}
	st, err := tikv.Open(opts)
	if err != nil {
		return nil, "", err
	}
	return st, "TiKV at " + strings.Join(o.storage.pd, ",") + " (namespace " + namespace(opts) + ")", nil
}

func namespace(o tikv.Options) string {
	if o.Namespace == "" {
		return tikv.DefaultNamespace
	}
	return o.Namespace
}

// mockStore is a node on an in-process mock cluster; closing it closes
// the cluster.
type mockStore struct {
	*tikv.Store
	cluster *tikvtest.Cluster
}

func (m mockStore) Close() error {
	err := m.Store.Close()
	m.cluster.Close()
	return err
}
