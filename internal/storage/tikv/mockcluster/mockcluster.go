// Package mockcluster runs dynago's TiKV store on client-go's in-process
// mock cluster (testutils.NewMockTiKV): the real client's two-phase
// commit, region routing, lock resolution and conflict handling, over an
// in-memory MVCC store instead of TiKV servers. A Cluster starts with
// several regions and can split them; each OpenNode is one more dynago
// node (its own client-go store: region cache, lock resolver, timestamp
// oracle) on the same cluster. "dynago serve --storage tikv --pd mock"
// runs on one; the tests use it through storage/tikv/tikvtest, which adds
// testing.TB helpers, so the production binary does not link a test
// helper package.
package mockcluster

import (
	"sync"

	"github.com/tikv/client-go/v2/testutils"
	"github.com/tikv/client-go/v2/tikv"

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
