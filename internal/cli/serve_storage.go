package cli

import (
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/storage/pebble"
	"github.com/dynago/dynago/internal/storage/tikv"
	"github.com/dynago/dynago/internal/storage/tikv/mockcluster"
)

// storageOptions are serve's storage flags.
type storageOptions struct {
	backend     string   // --storage: pebble or tikv
	pd          []string // --pd
	namespace   string   // --tikv-namespace
	stampWindow time.Duration
	set         map[string]bool // flags given on the command line
}

// Bounds of --tikv-stamp-window: under 10 ms a commit rarely fits; past
// 10 s stream readers wait too long.
const (
	minStampWindow = 10 * time.Millisecond
	maxStampWindow = 10 * time.Second
)

// checkPD checks --pd values: "mock" alone, or host:port endpoints (an
// http:// or https:// scheme allowed), so that a typo fails at once
// rather than after the connection timeout.
func checkPD(pd []string) error {
	for _, ep := range pd {
		if ep == mockPD {
			if len(pd) > 1 {
				return fmt.Errorf("--pd mock cannot be combined with other endpoints")
			}
			continue
		}
		hostPort := strings.TrimPrefix(strings.TrimPrefix(ep, "http://"), "https://")
		host, port, err := net.SplitHostPort(hostPort)
		if err != nil || host == "" {
			return fmt.Errorf("--pd %q: want host:port (PD's client port, usually 2379)", ep)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("--pd %q: port must be 1 to 65535", ep)
		}
	}
	return nil
}

// mockPD is the --pd value that runs an in-process mock TiKV cluster.
const mockPD = "mock"

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
	default:
		return nil, "", usageError{fmt.Errorf("invalid --storage %q (want pebble or tikv)", o.storage.backend)}
	}
	if len(o.storage.pd) == 0 {
		return nil, "", usageError{fmt.Errorf("--storage tikv needs --pd host:port[,host:port...] (or --pd mock)")}
	}
	for _, f := range []string{"in-memory", "data-dir"} {
		if o.storage.set[f] {
			return nil, "", usageError{fmt.Errorf("--%s is for --storage pebble; with tikv the data is the cluster's", f)}
		}
	}
	if err := checkPD(o.storage.pd); err != nil {
		return nil, "", usageError{err}
	}
	if o.storage.namespace == "" {
		return nil, "", usageError{fmt.Errorf("--tikv-namespace must not be empty")}
	}
	if err := tikv.CheckNamespace(o.storage.namespace); err != nil {
		return nil, "", usageError{fmt.Errorf("--tikv-namespace: %w", err)}
	}
	if o.storage.stampWindow < minStampWindow || o.storage.stampWindow > maxStampWindow {
		return nil, "", usageError{fmt.Errorf("--tikv-stamp-window must be within %v..%v", minStampWindow, maxStampWindow)}
	}
	opts := tikv.Options{
		PD: o.storage.pd, Namespace: o.storage.namespace, StampWindow: o.storage.stampWindow,
		Logger: logger, ValidatedReads: catalog.IsKey,
	}
	if len(o.storage.pd) == 1 && o.storage.pd[0] == mockPD {
		cluster, err := mockcluster.New()
		if err != nil {
			return nil, "", err
		}
		st, err := cluster.OpenNode(opts)
		if err != nil {
			cluster.Close()
			return nil, "", err
		}
		return mockStore{st, cluster}, "TiKV mock cluster in memory (namespace " + opts.Namespace + ")", nil
	}
	st, err := tikv.Open(opts)
	if err != nil {
		return nil, "", err
	}
	return st, "TiKV at " + strings.Join(o.storage.pd, ",") + " (namespace " + opts.Namespace + ")", nil
}

// mockStore is a node on an in-process mock cluster; closing it closes
// the cluster.
type mockStore struct {
	*tikv.Store
	cluster *mockcluster.Cluster
}

func (m mockStore) Close() error {
	err := m.Store.Close()
	m.cluster.Close()
	return err
}
