package engine

// The engine's conflict, retry and storage-error paths, made
// deterministic with storage/faultstore (issue 21): a commit conflict is
// retried from the start, a write is applied once however many attempts
// it takes, retries end in DynamoDB's TransactionConflictException, and a
// storage failure is not retried.
//
// TransactWriteItems' cancellation paths (issue 21), made deterministic
// the same way. The behaviours, from the developer guide
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling):
// a transaction that collides with another transaction on an item is
// cancelled with reason TransactionConflict on that item (None on the
// others); one that only loses to single-item writes is retried; the
// retry budget running out cancels it with TransactionConflict on every
// item; a storage fault is answered at once. In every case nothing of it
// is applied.

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/storage/faultstore"
	"github.com/dynago/dynago/internal/storage/teststore"
	"github.com/dynago/dynago/internal/throttle"
)

// faultEngine returns an engine over a faultstore with a table "Retry"
// (partition key pk) holding the item {pk: a, n: 0}.
func faultEngine(t *testing.T) (*Engine, *faultstore.Store) {
	t.Helper()
	fs := faultstore.Wrap(teststore.Open(t))
	e := New(fs, Options{MaxRetries: 5})
	t.Cleanup(e.Close)
	mustRun(t, e, (*Engine).CreateTable, `{"TableName":"Retry","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`)
	mustRun(t, e, (*Engine).PutItem, `{"TableName":"Retry","Item":{"pk":{"S":"a"},"n":{"N":"0"}}}`)
	return e, fs
}

// conflicts returns an OnCommit hook failing the next k commits with
// storage.ErrConflict, counting from the store's commit count now.
func conflicts(fs *faultstore.Store, k int64) func(int64) error {
	from := fs.Commits()
	return func(n int64) error {
		if n-from <= k {
			return storage.ErrConflict
		}
		return nil
	}
}

func TestRetry_CommitConflicts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		conflicts int64
		wantErr   ddberr.Code // "" for success
	}{
		{"no conflict", 0, ""},
		{"three conflicts, then success", 3, ""},
		{"four conflicts, the last attempt succeeds", 4, ""},
		{"conflicts on every attempt", 1 << 30, ddberr.TransactionConflictException},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, fs := faultEngine(t)
			fs.Hook(func(s *faultstore.Store) { s.OnCommit = conflicts(fs, tc.conflicts) })
			before := fs.Commits()
			_, err := run(e, (*Engine).UpdateItem, `{"TableName":"Retry","Key":{"pk":{"S":"a"}},"UpdateExpression":"ADD n :one","ConditionExpression":"attribute_exists(pk)","ExpressionAttributeValues":{":one":{"N":"1"}}}`)
			attempts := fs.Commits() - before
			fs.Hook(func(s *faultstore.Store) { s.OnCommit = nil })
			want := "1"
			if tc.wantErr != "" {
				de, ok := ddberr.As(err)
				if !ok || de.Code != tc.wantErr || de.Message != "Transaction is ongoing for the item" {
					t.Fatalf("UpdateItem: %v, want %s", err, tc.wantErr)
				}
				if attempts != 5 {
					t.Fatalf("%d attempts, want MaxRetries = 5", attempts)
				}
				want = "0"
			} else if err != nil {
				t.Fatalf("UpdateItem: %v", err)
			} else if attempts != tc.conflicts+1 {
				t.Fatalf("%d attempts, want %d", attempts, tc.conflicts+1)
			}
			out := mustRun(t, e, (*Engine).GetItem, `{"TableName":"Retry","Key":{"pk":{"S":"a"}},"ConsistentRead":true}`)
			if got := string(out.Item); !strings.Contains(got, `"n":{"N":"`+want+`"}`) {
				t.Fatalf("after the update: %s, want n = %s (applied exactly once, or not at all)", got, want)
			}
		})
	}
}

// TestRetry_StorageErrorsAreNotRetried: a commit that fails for another
// reason than a conflict (a disk fault) is answered at once, not retried,
// and the error keeps its cause for the server (a 500).
func TestRetry_StorageErrorsAreNotRetried(t *testing.T) {
	e, fs := faultEngine(t)
	fault := fmt.Errorf("%w: injected disk fault", storage.ErrUnavailable)
	fs.Hook(func(s *faultstore.Store) { s.OnCommit = func(int64) error { return fault } })
	before := fs.Commits()
	_, err := run(e, (*Engine).PutItem, `{"TableName":"Retry","Item":{"pk":{"S":"b"}}}`)
	if !errors.Is(err, storage.ErrUnavailable) {
		t.Fatalf("PutItem: %v, want the storage error", err)
	}
	if n := fs.Commits() - before; n != 1 {
		t.Fatalf("%d commits, want 1 (no retry)", n)
	}
	// Begin failing is answered the same way.
	fs.Hook(func(s *faultstore.Store) { s.OnCommit = nil })
	fs.Hook(func(s *faultstore.Store) { s.OnBegin = func(int64, storage.Mode) error { return fault } })
	if _, err := run(e, (*Engine).GetItem, `{"TableName":"Retry","Key":{"pk":{"S":"a"}}}`); !errors.Is(err, storage.ErrUnavailable) {
		t.Fatalf("GetItem with Begin failing: %v", err)
	}
}

// moveOne moves one unit of n from item a to item b of table Retry,
// creating b.
const moveOne = `{"TransactItems":[
 {"Update":{"TableName":"Retry","Key":{"pk":{"S":"a"}},"UpdateExpression":"ADD n :minus","ExpressionAttributeValues":{":minus":{"N":"-1"}}}},
 {"Put":{"TableName":"Retry","Item":{"pk":{"S":"b"},"n":{"N":"1"}}}}]}`

func TestTransactWriteItems_CancellationPaths(t *testing.T) {
	for _, tc := range []struct {
		name string
		// hook is the OnCommit hook, given the engine and its store,
		// installed for the transaction; nil commits normally.
		hook func(e *Engine, fs *faultstore.Store) func(int64) error
		// reasons are the expected CancellationReasons codes; nil
		// expects success (wantErr "") or a non-cancellation error.
		reasons  []string
		wantErr  error
		attempts int64 // commits the transaction makes (0: not checked)
		applied  bool
	}{
		{
			name:     "commits",
			applied:  true,
			attempts: 1,
		},
		{
			name: "loses to single-item writes: retried, then commits",
			hook: func(e *Engine, fs *faultstore.Store) func(int64) error {
				return conflicts(fs, 2)
			},
			applied:  true,
			attempts: 3,
		},
		{
			name: "loses to another transaction on item a: cancelled, a named",
			hook: func(e *Engine, fs *faultstore.Store) func(int64) error {
				from := fs.Commits()
				return func(n int64) error {
					if n != from+1 {
						return nil
					}
					// Another transaction commits on a (commit from+2),
					// then this commit conflicts.
					if _, err := run(e, (*Engine).TransactWriteItems, `{"TransactItems":[{"Update":{"TableName":"Retry","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET touched = :t","ExpressionAttributeValues":{":t":{"BOOL":true}}}}]}`); err != nil {
						return fmt.Errorf("the other transaction: %w", err)
					}
					return storage.ErrConflict
				}
			},
			reasons:  []string{"TransactionConflict", "None"},
			attempts: 2, // this one's commit and the other's
		},
		{
			name: "conflicts on every attempt: cancelled, every item named",
			hook: func(e *Engine, fs *faultstore.Store) func(int64) error {
				return func(int64) error { return storage.ErrConflict }
			},
			reasons:  []string{"TransactionConflict", "TransactionConflict"},
			attempts: 5, // MaxRetries
		},
		{
			name: "a storage fault: answered at once",
			hook: func(e *Engine, fs *faultstore.Store) func(int64) error {
				return func(int64) error { return fmt.Errorf("%w: injected disk fault", storage.ErrUnavailable) }
			},
			wantErr:  storage.ErrUnavailable,
			attempts: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, fs := faultEngine(t)
			if tc.hook != nil {
				fs.Hook(func(s *faultstore.Store) { s.OnCommit = tc.hook(e, fs) })
			}
			before := fs.Commits()
			_, err := run(e, (*Engine).TransactWriteItems, moveOne)
			attempts := fs.Commits() - before
			fs.Hook(func(s *faultstore.Store) { s.OnCommit = nil })
			switch {
			case tc.reasons != nil:
				de, ok := ddberr.As(err)
				if !ok || de.Code != ddberr.TransactionCanceledException {
					t.Fatalf("TransactWriteItems: %v, want TransactionCanceledException", err)
				}
				var codes []string
				for _, r := range de.CancellationReasons {
					codes = append(codes, cmp.Or(r.Code, "None"))
				}
				if strings.Join(codes, ",") != strings.Join(tc.reasons, ",") {
					t.Fatalf("reasons %q, want %q", codes, tc.reasons)
				}
				if want := "[" + strings.Join(tc.reasons, ", ") + "]"; !strings.HasSuffix(de.Message, want) {
					t.Fatalf("message %q, want it to end %s", de.Message, want)
				}
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("TransactWriteItems: %v, want %v", err, tc.wantErr)
				}
			case err != nil:
				t.Fatalf("TransactWriteItems: %v", err)
			}
			if tc.attempts != 0 && attempts != tc.attempts {
				t.Fatalf("%d commits, want %d", attempts, tc.attempts)
			}
			a := mustRun(t, e, (*Engine).GetItem, `{"TableName":"Retry","Key":{"pk":{"S":"a"}},"ConsistentRead":true}`)
			b := mustRun(t, e, (*Engine).GetItem, `{"TableName":"Retry","Key":{"pk":{"S":"b"}},"ConsistentRead":true}`)
			wantA, wantB := `"n":{"N":"0"}`, "" // not applied: a unchanged, b absent
			if tc.applied {
				wantA, wantB = `"n":{"N":"-1"}`, `"n":{"N":"1"}`
			}
			if !strings.Contains(string(a.Item), wantA) || (wantB == "") != (b.Item == nil) || !strings.Contains(string(b.Item), wantB) {
				t.Fatalf("after: a = %s, b = %s; want a with %s and b with %q", a.Item, b.Item, wantA, wantB)
			}
		})
	}
}

// TestBatchWriteItem_ChargedOnceAcrossRetries: each write of a
// BatchWriteItem is its own request to its partition, charged when it is
// applied (API_BatchWriteItem: "each item is processed as an individual
// PutItem or DeleteItem"), so a storage conflict that makes dynago retry
// the whole batch must not charge a write again. With the clock frozen, a
// hot partition then admits exactly as many further writes after a batch
// retried three times as after one that committed at once.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
func TestBatchWriteItem_ChargedOnceAcrossRetries(t *testing.T) {
	admittedAfter := func(retries int64) int {
		clock := newFakeClock()
		fs := faultstore.Wrap(teststore.Open(t))
		e := New(fs, Options{Now: clock.Now, MaxRetries: 5, Throttle: &throttle.Options{Scale: 100}})
		t.Cleanup(e.Close)
		mustRun(t, e, (*Engine).CreateTable, accountsTable)
		fs.Hook(func(s *faultstore.Store) { s.OnCommit = conflicts(fs, retries) })
		before := fs.Commits()
		mustRun(t, e, (*Engine).BatchWriteItem, `{"RequestItems":{"accounts":[{"PutRequest":{"Item":{"pk":{"S":"hot"},"n":{"N":"0"}}}}]}}`)
		if n := fs.Commits() - before; n != retries+1 {
			t.Fatalf("%d commits, want %d", n, retries+1)
		}
		fs.Hook(func(s *faultstore.Store) { s.OnCommit = nil })
		for n := 0; n < 1000; n++ {
			_, err := run(e, (*Engine).PutItem, `{"TableName":"accounts","Item":{"pk":{"S":"hot"}}}`)
			if _, reason := reasonOf(err); reason != "" {
				return n
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		t.Fatal("the hot partition was never throttled")
		return 0
	}
	once, retried := admittedAfter(0), admittedAfter(3)
	if once != retried {
		t.Fatalf("after a batch retried 3 times the partition admitted %d writes, after one that committed at once %d: the retried batch was charged more than once", retried, once)
	}
}
