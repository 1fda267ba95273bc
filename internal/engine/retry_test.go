package engine

// The engine's conflict, retry and storage-error paths, made
// deterministic with storage/faultstore (issue 21): a commit conflict is
// retried from the start, a write is applied once however many attempts
// it takes, retries end in DynamoDB's TransactionConflictException, and a
// storage failure is not retried.

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/storage/faultstore"
	"github.com/dynago/dynago/internal/storage/teststore"
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
