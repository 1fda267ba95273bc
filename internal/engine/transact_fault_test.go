package engine

// TransactWriteItems' cancellation paths, made deterministic with
// storage/faultstore (issue 21). The behaviours, from the developer guide
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
)

// moveOne moves one unit of n from item a to item b of table Retry,
// creating b.
const moveOne = `{"TransactItems":[
 {"Update":{"TableName":"Retry","Key":{"pk":{"S":"a"}},"UpdateExpression":"ADD n :minus","ExpressionAttributeValues":{":minus":{"N":"-1"}}}},
 {"Put":{"TableName":"Retry","Item":{"pk":{"S":"b"},"n":{"N":"1"}}}}]}`

func TestTransactWriteItems_CancellationPaths(t *testing.T) {
	for _, tc := range []struct {
		name string
		// hook is the OnCommit hook, given the engine, installed for
		// the transaction; nil commits normally.
		hook func(e *Engine, fs func() int64) func(int64) error
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
			hook: func(e *Engine, commits func() int64) func(int64) error {
				from := commits()
				return func(n int64) error {
					if n-from <= 2 {
						return storage.ErrConflict
					}
					return nil
				}
			},
			applied:  true,
			attempts: 3,
		},
		{
			name: "loses to another transaction on item a: cancelled, a named",
			hook: func(e *Engine, commits func() int64) func(int64) error {
				from := commits()
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
			hook: func(e *Engine, commits func() int64) func(int64) error {
				return func(int64) error { return storage.ErrConflict }
			},
			reasons:  []string{"TransactionConflict", "TransactionConflict"},
			attempts: 5, // MaxRetries
		},
		{
			name: "a storage fault: answered at once",
			hook: func(e *Engine, commits func() int64) func(int64) error {
				return func(int64) error { return fmt.Errorf("%w: injected disk fault", storage.ErrUnavailable) }
			},
			wantErr:  storage.ErrUnavailable,
			attempts: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, fs := faultEngine(t)
			if tc.hook != nil {
				fs.Hook(func(s *faultstore.Store) { s.OnCommit = tc.hook(e, fs.Commits) })
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
