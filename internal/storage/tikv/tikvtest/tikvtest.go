// Package tikvtest runs dynago's TiKV store in tests on client-go's
// in-process mock cluster (storage/tikv/mockcluster), with testing.TB
// helpers: a Cluster closed when the test ends, nodes opened or the test
// failed.
package tikvtest

import (
	"testing"
	"time"

	pingcaplog "github.com/pingcap/log"
	"go.uber.org/zap/zapcore"

	store "github.com/dynago/dynago/internal/storage/tikv"
	"github.com/dynago/dynago/internal/storage/tikv/mockcluster"
)

// Cluster is one mock TiKV cluster (one store, several regions): a
// mockcluster.Cluster with test helpers.
type Cluster struct{ *mockcluster.Cluster }

// DefaultSplits are the region boundaries a Cluster starts with
// (mockcluster.DefaultSplits).
var DefaultSplits = mockcluster.DefaultSplits

// NewCluster starts a mock cluster split at DefaultSplits. It is closed
// when the test ends, after every node.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	// A test's cluster closes while client-go may still be rolling back
	// a failed transaction in the background; those goroutines log
	// "leveldb: closed" at error level. Tests check outcomes, not logs.
	pingcaplog.SetLevel(zapcore.FatalLevel)
	c, err := mockcluster.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &Cluster{c}
}

// Open returns a new node's store on the cluster. A zero StampWindow
// becomes 200 ms, enough for the mock under the race detector on two
// cores. The node is closed with the cluster if the caller has not.
func (c *Cluster) Open(t testing.TB, opts store.Options) *store.Store {
	t.Helper()
	if opts.StampWindow == 0 {
		opts.StampWindow = 200 * time.Millisecond
	}
	s, err := c.OpenNode(opts)
	if err != nil {
		t.Fatal(err)
	}
	pingcaplog.SetLevel(zapcore.FatalLevel) // after New, which sets errors
	return s
}
