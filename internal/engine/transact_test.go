package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
)

// transfer moves amount from one account to another if the source can
// pay, as one transaction.
func transfer(e *Engine, from, to, amount int) error {
	_, err := run(e, (*Engine).TransactWriteItems, fmt.Sprintf(`{"TransactItems":[
	 {"Update":{"TableName":"accounts","Key":{"pk":{"S":"a%d"}},"UpdateExpression":"SET bal = bal - :x","ConditionExpression":"bal >= :x","ExpressionAttributeValues":{":x":{"N":"%d"}}}},
	 {"Update":{"TableName":"accounts","Key":{"pk":{"S":"a%d"}},"UpdateExpression":"SET bal = bal + :x","ConditionExpression":"attribute_exists(pk)","ExpressionAttributeValues":{":x":{"N":"%d"}}}}]}`, from, amount, to, amount))
	return err
}

// balances reads every account in one TransactGetItems.
func balances(t testing.TB, e *Engine, n int) []int {
	t.Helper()
	body := `{"TransactItems":[`
	for i := 0; i < n; i++ {
		if i > 0 {
			body += ","
		}
		body += fmt.Sprintf(`{"Get":{"TableName":"accounts","Key":{"pk":{"S":"a%d"}}}}`, i)
	}
	out := mustRun(t, e, (*Engine).TransactGetItems, body+`]}`)
	bals := make([]int, n)
	for i, js := range out.Responses {
		item, err := attr.DecodeItem(js)
		if err != nil {
			t.Fatal(err)
		}
		bals[i], _ = strconv.Atoi(item["bal"].Text())
	}
	return bals
}

func isCancelled(err error, code ddberr.Code) bool {
	var de *ddberr.Error
	return errors.As(err, &de) && de.Code == code
}

// TestTransact_BankInvariant: 16 goroutines make random conditional
// transfers among 50 accounts while a reader takes TransactGetItems
// snapshots: every snapshot sums to the opening total and no balance is
// ever negative.
func TestTransact_BankInvariant(t *testing.T) {
	e, _ := openEngine(t, Options{}, "")
	mustRun(t, e, (*Engine).CreateTable, accountsTable)
	const n, opening = 50, 100
	for i := 0; i < n; i++ {
		mustRun(t, e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"accounts","Item":{"pk":{"S":"a%d"},"bal":{"N":"%d"}}}`, i, opening))
	}
	stop := make(chan struct{})
	var done, cancels atomic.Int64
	wait := startWorkers(16, 77, func(r *rand.Rand) {
		for !stopped(stop) {
			from, to := r.IntN(n), r.IntN(n)
			if from == to {
				continue
			}
			err := transfer(e, from, to, 1+r.IntN(60))
			switch {
			case err == nil:
				done.Add(1)
			case isCancelled(err, ddberr.TransactionCanceledException):
				cancels.Add(1)
			default:
				t.Error(err)
				return
			}
		}
	})
	snapshots := 0
	deadline := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		sum := 0
		for i, b := range balances(t, e, n) {
			if b < 0 {
				t.Fatalf("account a%d is negative: %d", i, b)
			}
			sum += b
		}
		if sum != n*opening {
			t.Fatalf("snapshot %d sums to %d, want %d", snapshots, sum, n*opening)
		}
		snapshots++
	}
	close(stop)
	wait()
	if done.Load() == 0 || snapshots == 0 {
		t.Fatalf("%d transfers, %d snapshots", done.Load(), snapshots)
	}
	t.Logf("%d transfers, %d cancelled, %d consistent snapshots", done.Load(), cancels.Load(), snapshots)
}

// TestTransact_UsernameRace: 32 goroutines claim one username with seed
// 001's two-item transaction; exactly one wins.
func TestTransact_UsernameRace(t *testing.T) {
	e, _ := openEngine(t, Options{}, "")
	mustRun(t, e, (*Engine).CreateTable, accountsTable)
	var wins atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			_, err := run(e, (*Engine).TransactWriteItems, fmt.Sprintf(`{"TransactItems":[
			 {"Put":{"TableName":"accounts","Item":{"pk":{"S":"USER#u%d"},"username":{"S":"alice"}},"ConditionExpression":"attribute_not_exists(pk)"}},
			 {"Put":{"TableName":"accounts","Item":{"pk":{"S":"USERNAME#alice"},"owner":{"S":"u%d"}},"ConditionExpression":"attribute_not_exists(pk)"}}]}`, w, w))
			switch {
			case err == nil:
				wins.Add(1)
			case isCancelled(err, ddberr.TransactionCanceledException):
			default:
				t.Error(err)
			}
		}(w)
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d winners, want exactly 1", wins.Load())
	}
}

// TestTransact_ClientRequestToken: the same token and request within ten
// minutes succeeds without applying twice; a different request with the
// token is IdempotentParameterMismatchException; after ten minutes (the
// test's clock) the token starts a new transaction.
func TestTransact_ClientRequestToken(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now}, "")
	mustRun(t, e, (*Engine).CreateTable, accountsTable)
	mustRun(t, e, (*Engine).PutItem, `{"TableName":"accounts","Item":{"pk":{"S":"c"},"n":{"N":"0"}}}`)
	bump := `{"ClientRequestToken":"tok-1","TransactItems":[{"Update":{"TableName":"accounts","Key":{"pk":{"S":"c"}},"UpdateExpression":"SET n = n + :one","ExpressionAttributeValues":{":one":{"N":"1"}}}}]}`
	count := func() string {
		out := mustRun(t, e, (*Engine).GetItem, `{"TableName":"accounts","Key":{"pk":{"S":"c"}}}`)
		item, _ := attr.DecodeItem(out.Item)
		return item["n"].Text()
	}
	mustRun(t, e, (*Engine).TransactWriteItems, bump)
	clock.Advance(9 * time.Minute)
	mustRun(t, e, (*Engine).TransactWriteItems, bump)
	if got := count(); got != "1" {
		t.Fatalf("n = %s after a repeated token, want 1", got)
	}
	_, err := run(e, (*Engine).TransactWriteItems, `{"ClientRequestToken":"tok-1","TransactItems":[{"Delete":{"TableName":"accounts","Key":{"pk":{"S":"c"}}}}]}`)
	if !isCancelled(err, ddberr.IdempotentParameterMismatchException) {
		t.Fatalf("same token, different request: %v", err)
	}
	clock.Advance(2 * time.Minute) // 11 minutes after the first call
	mustRun(t, e, (*Engine).TransactWriteItems, bump)
	if got := count(); got != "2" {
		t.Fatalf("n = %s after the token expired, want 2", got)
	}
}

// TestTransact_SingleWriteCollision: a single-item write whose attempt
// began before a transaction committed on the same item is answered with
// TransactionConflictException (the conflict hook), and one that began
// after is not.
func TestTransact_SingleWriteCollision(t *testing.T) {
	e, _ := openEngine(t, Options{}, "")
	mustRun(t, e, (*Engine).CreateTable, accountsTable)
	before := time.Now()
	mustRun(t, e, (*Engine).TransactWriteItems, `{"TransactItems":[{"Put":{"TableName":"accounts","Item":{"pk":{"S":"x"}}}}]}`)
	after := time.Now().Add(time.Millisecond)
	var tab = mustLookup(t, e, "accounts")
	k, err := extractKey(tab, attr.Item{"pk": attr.Str("x")}, keyOfKey)
	if err != nil {
		t.Fatal(err)
	}
	key := storageKey(tab, k)
	if !e.transactionSince(t.Context(), tab, key, before) {
		t.Fatal("a write begun before the transaction does not see it")
	}
	if e.transactionSince(t.Context(), tab, key, after) {
		t.Fatal("a write begun after the transaction sees it")
	}
	other := append(key[:len(key)-1:len(key)-1], 'y')
	if e.transactionSince(t.Context(), tab, other, before) {
		t.Fatal("another item sees the transaction")
	}
}

// TestTransact_ContendedCountersExact: 16 goroutines increment the same
// two counters in one transaction each. Every call either commits or is
// cancelled with TransactionConflict (another transaction held an item),
// and the counters end exactly at the number of commits: no lost update,
// no half transaction.
func TestTransact_ContendedCountersExact(t *testing.T) {
	e, _ := openEngine(t, Options{}, "")
	mustRun(t, e, (*Engine).CreateTable, accountsTable)
	for _, k := range []string{"c1", "c2"} {
		mustRun(t, e, (*Engine).PutItem, `{"TableName":"accounts","Item":{"pk":{"S":"`+k+`"},"n":{"N":"0"}}}`)
	}
	bump := `{"TransactItems":[
	 {"Update":{"TableName":"accounts","Key":{"pk":{"S":"c1"}},"UpdateExpression":"SET n = n + :one","ExpressionAttributeValues":{":one":{"N":"1"}}}},
	 {"Update":{"TableName":"accounts","Key":{"pk":{"S":"c2"}},"UpdateExpression":"SET n = n + :one","ExpressionAttributeValues":{":one":{"N":"1"}}}}]}`
	var commits, conflicts atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				_, err := run(e, (*Engine).TransactWriteItems, bump)
				var de *ddberr.Error
				switch {
				case err == nil:
					commits.Add(1)
				case errors.As(err, &de) && de.Code == ddberr.TransactionCanceledException && strings.Contains(de.Message, "TransactionConflict"):
					conflicts.Add(1)
				default:
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, k := range []string{"c1", "c2"} {
		out := mustRun(t, e, (*Engine).GetItem, `{"TableName":"accounts","Key":{"pk":{"S":"`+k+`"}}}`)
		item, _ := attr.DecodeItem(out.Item)
		if got := item["n"].Text(); got != strconv.FormatInt(commits.Load(), 10) {
			t.Fatalf("%s = %s after %d commits", k, got, commits.Load())
		}
	}
	t.Logf("%d commits, %d cancelled with TransactionConflict", commits.Load(), conflicts.Load())
}

// TestTransact_ItemCollectionSizeLimit: a transaction whose write would
// grow an LSI item collection past the limit is cancelled with reason
// ItemCollectionSizeLimitExceeded on that action, and writes nothing.
func TestTransact_ItemCollectionSizeLimit(t *testing.T) {
	e, _ := openEngine(t, Options{ItemCollectionSizeLimit: 3000}, "")
	mustRun(t, e, (*Engine).CreateTable, indexedTable)
	pad := strings.Repeat("x", 1400)
	put := func(sk int) string {
		return fmt.Sprintf(`{"Put":{"TableName":"ixt","Item":{"pk":{"S":"p"},"sk":{"N":"%d"},"n":{"N":"1"},"pad":{"S":"%s"}}}}`, sk, pad)
	}
	mustRun(t, e, (*Engine).TransactWriteItems, `{"TransactItems":[`+put(1)+`]}`)
	_, err := run(e, (*Engine).TransactWriteItems, `{"TransactItems":[{"Put":{"TableName":"ixt","Item":{"pk":{"S":"q"},"sk":{"N":"1"}}}},`+put(2)+`,`+put(3)+`]}`)
	var de *ddberr.Error
	if !errors.As(err, &de) || de.Code != ddberr.TransactionCanceledException ||
		!strings.Contains(de.Message, "[None, ItemCollectionSizeLimitExceeded, None]") &&
			!strings.Contains(de.Message, "[None, None, ItemCollectionSizeLimitExceeded]") {
		t.Fatalf("got %v", err)
	}
	out := mustRun(t, e, (*Engine).GetItem, `{"TableName":"ixt","Key":{"pk":{"S":"q"},"sk":{"N":"1"}}}`)
	if out.Item != nil {
		t.Fatal("the cancelled transaction's first Put was written")
	}
}

// TestTransact_WholeRequestErrors: an Update that would empty a GSI key
// rejects the whole request (not a cancellation reason), and a
// TransactGetItems whose items add up to more than 4 MB is rejected.
// Sources: docs/research-transactions.md §2; API_TransactGetItems.
func TestTransact_WholeRequestErrors(t *testing.T) {
	e, _ := openEngine(t, Options{}, "")
	mustRun(t, e, (*Engine).CreateTable, indexedTable)
	mustRun(t, e, (*Engine).PutItem, `{"TableName":"ixt","Item":{"pk":{"S":"p"},"sk":{"N":"1"},"g":{"S":"x"}}}`)
	_, err := run(e, (*Engine).TransactWriteItems, `{"TransactItems":[{"Update":{"TableName":"ixt","Key":{"pk":{"S":"p"},"sk":{"N":"1"}},"UpdateExpression":"SET g = :e","ExpressionAttributeValues":{":e":{"S":""}}}}]}`)
	if !isCancelled(err, ddberr.ValidationException) || !strings.Contains(err.Error(), "update a secondary index key") {
		t.Fatalf("emptying an index key: %v", err)
	}
	pad := strings.Repeat("x", 390_000)
	gets := ""
	for i := 0; i < 11; i++ {
		mustRun(t, e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"ixt","Item":{"pk":{"S":"big"},"sk":{"N":"%d"},"pad":{"S":"%s"}}}`, i, pad))
		if i > 0 {
			gets += ","
		}
		gets += fmt.Sprintf(`{"Get":{"TableName":"ixt","Key":{"pk":{"S":"big"},"sk":{"N":"%d"}}}}`, i)
	}
	if _, err := run(e, (*Engine).TransactGetItems, `{"TransactItems":[`+gets+`]}`); !isCancelled(err, ddberr.ValidationException) {
		t.Fatalf("4.3 MB of items: %v", err)
	}
}
