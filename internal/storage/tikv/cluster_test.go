//go:build tikvcluster

// Tests against a real TiKV cluster, run only with the tikvcluster build
// tag and a PD endpoint in DYNAGO_TIKV_PD (default 127.0.0.1:2379), for
// example one from "tiup playground" (docs/deployment.md has the
// commands):
//
//	DYNAGO_TIKV_PD=127.0.0.1:2379 go test -tags tikvcluster -run Cluster ./internal/storage/tikv/
//
// Each test writes under its own random namespace and deletes it after.
package tikv_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/storage/storagetest"
	"github.com/dynago/dynago/internal/storage/tikv"
)

// clusterPD returns the PD endpoints of the cluster under test.
func clusterPD() []string {
	if pd := os.Getenv("DYNAGO_TIKV_PD"); pd != "" {
		return strings.Split(pd, ",")
	}
	return []string{"127.0.0.1:2379"}
}

// openClusterStore opens a store on the cluster under a fresh namespace,
// emptied and closed when the test ends.
func openClusterStore(t *testing.T, namespace string) *tikv.Store {
	s, err := tikv.Open(tikv.Options{PD: clusterPD(), Namespace: namespace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.DeleteRange(context.Background(), nil, nil); err != nil {
			t.Errorf("delete namespace %s: %v", namespace, err)
		}
		s.Close()
	})
	return s
}

func randomNamespace() string {
	var b [6]byte
	rand.Read(b[:])
	return "dynago-test-" + hex.EncodeToString(b[:])
}

// TestCluster_Contract runs the storage contract on the real cluster.
func TestCluster_Contract(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		return openClusterStore(t, randomNamespace())
	})
}

// TestCluster_TwoNodes runs the two-node increments on the real cluster
// (without splits: the cluster's own scheduler splits regions).
func TestCluster_TwoNodes(t *testing.T) {
	ns := randomNamespace()
	a, b := openClusterStore(t, ns), openClusterStore(t, ns)
	for i := 0; i < 200; i++ {
		s := []storage.Store{a, b}[i%2]
		if err := storagetest.Increment(s, []byte("n"), 1000); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := storagetest.MustGet(t, a, "n"); v != "200" {
		t.Fatalf("n = %s, want 200", v)
	}
}
