package gosdk

import (
	"errors"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/server"
	"github.com/dynago/dynago/internal/storage/tikv"
	"github.com/dynago/dynago/internal/storage/tikv/tikvtest"
)

// startTwoNodes starts two dynago nodes in this process, each its own
// HTTP server, engine and TiKV client (region cache, lock resolver), over
// one mock TiKV cluster, as "dynago serve --storage tikv" would run on
// two machines; it returns an aws-sdk-go-v2 client for each. While the
// test runs, the first table's item key space is split into more
// regions every 20 ms, as TiKV splits busy regions.
func startTwoNodes(t *testing.T) []*dynamodb.Client {
	cluster := tikvtest.NewCluster(t)
	var clients []*dynamodb.Client
	for i := 0; i < 2; i++ {
		st := cluster.Open(t, tikv.Options{ValidatedReads: catalog.IsKey})
		eng := engine.New(st, engine.Options{TTLSweep: time.Second, StreamUpkeep: time.Second})
		srv := server.New(eng, server.Options{})
		srv.MarkReady()
		ts := httptest.NewServer(srv)
		t.Cleanup(func() { ts.Close(); eng.Close() })
		clients = append(clients, (&Server{Endpoint: ts.URL}).Client())
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() { close(stop); <-done })
	go func() {
		defer close(done)
		lo, _ := keycodec.SpaceBounds(keycodec.Space{Table: 1})
		for b := 0x10; b < 0x100; b += 0x10 {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			key := append([]byte(tikv.DefaultNamespace+"\x00"), lo...)
			cluster.Split(append(key, byte(b)))
		}
	}()
	return clients
}

// TestTwoNodes_BankTransfersKeepTheTotal: the bank test with transfers
// sent alternately to two dynago nodes on one TiKV cluster.
func TestTwoNodes_BankTransfersKeepTheTotal(t *testing.T) {
	bankTransfers(t, startTwoNodes(t)...)
}

// TestTwoNodes_UsernameRaceHasOneWinner: the username race with the
// racers split between two dynago nodes on one TiKV cluster.
func TestTwoNodes_UsernameRaceHasOneWinner(t *testing.T) {
	usernameRace(t, startTwoNodes(t)...)
}

// TestTwoNodes_OptimisticLockingIsExact: 8 writers, alternating between
// the two nodes, each read an item's version and put it back one higher
// with ConditionExpression "ver = :read" (the optimistic locking of the
// DynamoDB mappers). Every put that succeeded counts once: the final
// version is the number of successes, and every failure is a
// ConditionalCheckFailedException.
func TestTwoNodes_OptimisticLockingIsExact(t *testing.T) {
	clients := startTwoNodes(t)
	txCreateTable(t, clients[0], "locks")
	key := map[string]types.AttributeValue{"PK": txS("DOC#1"), "SK": txS("DOC")}
	item := func(ver int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": txS("DOC#1"), "SK": txS("DOC"), "ver": txN(ver)}
	}
	if _, err := clients[0].PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("locks"), Item: item(0)}); err != nil {
		t.Fatal(err)
	}
	var wins, losses atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(c *dynamodb.Client) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("locks"), Key: key, ConsistentRead: aws.Bool(true)})
				if err != nil {
					t.Error(err)
					return
				}
				ver := intAttr(t, out.Item, "ver")
				_, err = c.PutItem(ctx, &dynamodb.PutItemInput{
					TableName: aws.String("locks"), Item: item(ver + 1),
					ConditionExpression:       aws.String("ver = :read"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":read": txN(ver)},
				})
				var ccf *types.ConditionalCheckFailedException
				switch {
				case err == nil:
					wins.Add(1)
				case errors.As(err, &ccf):
					losses.Add(1)
				default:
					t.Error(err)
					return
				}
			}
		}(clients[w%2])
	}
	wg.Wait()
	out, err := clients[1].GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("locks"), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if ver := intAttr(t, out.Item, "ver"); ver != int(wins.Load()) || wins.Load() == 0 {
		t.Fatalf("version %d after %d successful puts (%d refused)", ver, wins.Load(), losses.Load())
	}
	t.Logf("%d versions written, %d puts refused", wins.Load(), losses.Load())
}
