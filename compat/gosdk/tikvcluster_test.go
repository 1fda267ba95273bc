//go:build tikvcluster

package gosdk

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Two "dynago serve --storage tikv" processes on a real TiKV cluster
// (DYNAGO_TIKV_PD, default 127.0.0.1:2379), run only with the tikvcluster
// build tag (docs/deployment.md):
//
//	DYNAGO_TIKV_PD=127.0.0.1:2379 go test -tags tikvcluster -run Cluster ./compat/gosdk/

// The binary these tests start has the TiKV backend.
func init() { buildTags = "tikv" }

// startClusterNodes starts two dynago processes on the cluster under a
// fresh namespace and returns a client for each.
func startClusterNodes(t *testing.T) []*dynamodb.Client {
	pd := os.Getenv("DYNAGO_TIKV_PD")
	if pd == "" {
		pd = "127.0.0.1:2379"
	}
	var b [6]byte
	rand.Read(b[:])
	ns := "dynago-test-" + hex.EncodeToString(b[:])
	var clients []*dynamodb.Client
	for i := 0; i < 2; i++ {
		srv := StartServer(t, "--storage", "tikv", "--pd", pd, "--tikv-namespace", ns)
		clients = append(clients, srv.Client())
	}
	return clients
}

func TestCluster_BankTransfersKeepTheTotal(t *testing.T) {
	bankTransfers(t, startClusterNodes(t)...)
}

func TestCluster_UsernameRaceHasOneWinner(t *testing.T) {
	usernameRace(t, startClusterNodes(t)...)
}
