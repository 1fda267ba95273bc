//go:build tikv

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
	"github.com/dynago/dynago/internal/storage/tikv"
	"github.com/dynago/dynago/internal/storage/tikv/mockcluster"
	"github.com/spf13/pflag"
)

// withTiKV says that this build links the TiKV backend (go build -tags tikv).
const withTiKV = true

// Bounds of --tikv-stamp-window: under 10 ms a commit rarely fits; past
// 10 s stream readers wait too long.
const (
	minStampWindow = 10 * time.Millisecond
	maxStampWindow = 10 * time.Second
)

// addTiKVFlags registers serve's TiKV flags.
func addTiKVFlags(f *pflag.FlagSet, o *storageOptions) {
	f.StringSliceVar(&o.pd, "pd", nil, "with --storage tikv, the cluster's PD endpoints, host:port[,host:port...]; \"mock\" runs an in-process mock cluster in memory (for trials and tests)")
	f.StringVar(&o.namespace, "tikv-namespace", tikv.DefaultNamespace, "with --storage tikv, the prefix of every key dynago writes, so that deployments can share a cluster")
	f.DurationVar(&o.stampWindow, "tikv-stamp-window", tikv.DefaultStampWindow, "with --storage tikv, 10ms to 10s: the longest a stream-recording transaction may take from its stamp to its commit (one over 1 MiB gets a minute); stream records are readable this long after their commit at most, and GetRecords or a LATEST iterator may wait this long for a record it has just seen")
}

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

// openTiKV checks serve's TiKV flags and connects to the cluster (or
// starts the in-process mock one), and says where the data is.
func openTiKV(o serveOptions, logger *slog.Logger) (storage.Store, string, error) {
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
