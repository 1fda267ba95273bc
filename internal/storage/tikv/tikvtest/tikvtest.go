// Package tikvtest runs dynago's TiKV store on client-go's in-process mock
// cluster (testutils.NewMockTiKV): the real client's two-phase commit,
// region routing, lock resolution and conflict handling, over an
// in-memory MVCC store instead of TiKV servers. A Cluster starts with
// several regions and can split them while a test runs; each Open is one
// more dynago node (its own client-go store: region cache, lock resolver,
// timestamp oracle) on the same cluster.
package tikvtest

import (
	"sync"
	"testing"
	"time"

	pingcaplog "github.com/pingcap/log"
	"github.com/tikv/client-go/v2/testutils"
	"github.com/tikv/client-go/v2/tikv"
	"go.uber.org/zap/zapcore"

	store "github.com/dynago/dynago/internal/storage/tikv"
)

// Cluster is one mock TiKV cluster (one store, several regions).
type Cluster struct {
	client  *testutils.MockClient
	cluster *testutils.MockCluster
	pd      interface{ Close() }
	newKV   func() (*tikv.KVStore, error)

	mu    sync.Mutex
	nodes []*tikv.KVStore
}

// DefaultSplits are the region boundaries a Cluster starts with, in the
// default namespace: the catalog ('c/'), the items of tables ('i', and
// again inside it), and the stream records ('s'), so that ordinary
// transactions span regions.
var DefaultSplits = [][]byte{
	[]byte(store.DefaultNamespace + "\x00c"),
	[]byte(store.DefaultNamespace + "\x00i"),
	[]byte(store.DefaultNamespace + "\x00i\x00\x00\x00\x00\x00\x00\x00\x02"),
	[]byte(store.DefaultNamespace + "\x00s"),
}

// NewCluster starts a mock cluster split at DefaultSplits. It is closed
// when the test ends, after every node.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	// A test's cluster closes while client-go may still be rolling back
	// a failed transaction in the background; those goroutines log
	// "leveldb: closed" at error level. Tests check outcomes, not logs.
	pingcaplog.SetLevel(zapcore.FatalLevel)
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// New starts a mock cluster split at DefaultSplits, in memory; Close
// stops it. "dynago serve --storage tikv --pd mock" runs on one.
func New() (*Cluster, error) {
	client, cluster, pdClient, err := testutils.NewMockTiKV("", nil)
	if err != nil {
		return nil, err
	}
	testutils.BootstrapWithMultiRegions(cluster, DefaultSplits...)
	c := &Cluster{client: client, cluster: cluster, pd: pdClient}
	c.newKV = func() (*tikv.KVStore, error) {
		// Each node's client-go store closes its RPC client when it is
		// closed; the mock's would close the shared MVCC store, so each
		// node gets a wrapper whose Close does nothing.
		return tikv.NewTestTiKVStore(client, pdClient, func(c tikv.Client) tikv.Client { return nodeClient{c} }, nil, 0)
	}
	return c, nil
}

// Close closes every node's client and then the cluster.
func (c *Cluster) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, kv := range c.nodes {
		kv.Close()
	}
	c.nodes = nil
	c.client.Close()
}

// nodeClient is one node's view of the shared mock RPC client.
type nodeClient struct{ tikv.Client }

func (nodeClient) Close() error { return nil }

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

// addNode records a node's client, closed with the cluster.
func (c *Cluster) addNode(kv *tikv.KVStore) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nodes = append(c.nodes, kv)
}

// OpenNode returns a new node's store on the cluster.
func (c *Cluster) OpenNode(opts store.Options) (*store.Store, error) {
	kv, err := c.newKV()
	if err != nil {
		return nil, err
	}
	c.addNode(kv)
	return store.New(kv, opts), nil
}

// Split splits the region holding key at key, as TiKV does when a region
// grows past its size or load threshold. Clients learn it from their
// next request's region error.
func (c *Cluster) Split(key []byte) {
	region, _, _ := c.cluster.GetRegionByKey(mvccKey(key))
	ids := c.cluster.AllocIDs(2)
	c.cluster.Split(region.GetId(), ids[0], key, []uint64{ids[1]}, ids[1])
}

// Regions returns the number of regions.
func (c *Cluster) Regions() int { return len(c.cluster.GetAllRegions()) }

// mvccKey is the mock cluster's region-boundary form of a key: TiKV's
// memcomparable encoding, groups of 8 bytes each followed by 0xff minus
// the group's padding.
func mvccKey(key []byte) []byte {
	out := make([]byte, 0, (len(key)/8+1)*9)
	for i := 0; i <= len(key); i += 8 {
		group := make([]byte, 8)
		n := copy(group, key[i:])
		out = append(append(out, group...), byte(0xff-(8-n)))
	}
	return out
}
