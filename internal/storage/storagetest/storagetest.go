// Package storagetest is the contract suite every storage.Store
// implementation must pass. Each implementation's test calls Run with a
// constructor for fresh, empty stores.
package storagetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/dynago/dynago/internal/storage"
)

// Run runs the contract suite. open returns a fresh empty store; the suite
// closes it.
func Run(t *testing.T, open func(t *testing.T) storage.Store) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, storage.Store)
	}{
		{"Txn_Commit_IsVisible", testCommitVisible},
		{"Txn_Rollback_Discards", testRollback},
		{"Txn_Get_SeesOwnWrites", testOwnWrites},
		{"Txn_Commit_ConflictOnReadKeyWrittenLater", testConflict},
		{"Txn_Commit_NoConflictOnDisjointKeys", testNoConflict},
		{"Txn_Snapshot_IsConsistent", testSnapshot},
		{"Txn_ReadOnly_SeesLatestCommits", testReadCommitted},
		{"Txn_ReadOnly_RefusesWrites", testReadOnlyWrites},
		{"Txn_Scan_OrderAndBounds", testScan},
		{"Store_DeleteRange", testDeleteRange},
		{"Txn_ConcurrentIncrements_AreSerializable", testIncrements},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			defer s.Close()
			tc.fn(t, s)
		})
	}
}

var ctx = context.Background()

// MustSet commits one write.
func MustSet(t testing.TB, s storage.Store, k, v string) {
	t.Helper()
	tx, err := s.Begin(ctx, storage.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Set([]byte(k), []byte(v)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// MustGet reads one key in a read-only transaction ("" and false when
// absent).
func MustGet(t testing.TB, s storage.Store, k string) (string, bool) {
	t.Helper()
	tx, err := s.Begin(ctx, storage.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	v, err := tx.Get([]byte(k))
	if errors.Is(err, storage.ErrNotFound) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(v), true
}

func testCommitVisible(t *testing.T, s storage.Store) {
	MustSet(t, s, "a", "1")
	if v, ok := MustGet(t, s, "a"); !ok || v != "1" {
		t.Fatalf("got %q %v", v, ok)
	}
	tx, _ := s.Begin(ctx, storage.ReadWrite)
	tx.Delete([]byte("a"))
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, ok := MustGet(t, s, "a"); ok {
		t.Fatal("deleted key still present")
	}
}

func testRollback(t *testing.T, s storage.Store) {
	tx, _ := s.Begin(ctx, storage.ReadWrite)
	tx.Set([]byte("a"), []byte("1"))
	tx.Rollback()
	tx.Rollback() // twice is fine
	if _, ok := MustGet(t, s, "a"); ok {
		t.Fatal("rolled back write is visible")
	}
}

func testOwnWrites(t *testing.T, s storage.Store) {
	tx, _ := s.Begin(ctx, storage.ReadWrite)
	defer tx.Rollback()
	tx.Set([]byte("a"), []byte("1"))
	v, err := tx.Get([]byte("a"))
	if err != nil || string(v) != "1" {
		t.Fatalf("got %q %v", v, err)
	}
	tx.Delete([]byte("a"))
	if _, err := tx.Get([]byte("a")); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

func testConflict(t *testing.T, s storage.Store) {
	MustSet(t, s, "k", "0")
	t1, _ := s.Begin(ctx, storage.ReadWrite)
	if _, err := t1.Get([]byte("k")); err != nil {
		t.Fatal(err)
	}
	MustSet(t, s, "k", "other")
	t1.Set([]byte("k"), []byte("mine"))
	if err := t1.Commit(); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("commit: got %v, want ErrConflict", err)
	}
	if v, _ := MustGet(t, s, "k"); v != "other" {
		t.Fatalf("conflicting write was applied: %q", v)
	}
	// A key that was only read (a condition check) conflicts too.
	t2, _ := s.Begin(ctx, storage.ReadWrite)
	t2.Get([]byte("k"))
	MustSet(t, s, "k", "again")
	t2.Set([]byte("elsewhere"), []byte("x"))
	if err := t2.Commit(); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("read-only key: got %v, want ErrConflict", err)
	}
	if _, ok := MustGet(t, s, "elsewhere"); ok {
		t.Fatal("write of a failed transaction was applied")
	}
}

func testNoConflict(t *testing.T, s storage.Store) {
	t1, _ := s.Begin(ctx, storage.ReadWrite)
	t1.Get([]byte("a"))
	MustSet(t, s, "b", "1")
	t1.Set([]byte("a"), []byte("1"))
	if err := t1.Commit(); err != nil {
		t.Fatalf("disjoint commit: %v", err)
	}
}

func testSnapshot(t *testing.T, s storage.Store) {
	MustSet(t, s, "a", "old")
	ro, _ := s.Begin(ctx, storage.Snapshot)
	defer ro.Rollback()
	MustSet(t, s, "a", "new")
	MustSet(t, s, "b", "new")
	v, err := ro.Get([]byte("a"))
	if err != nil || string(v) != "old" {
		t.Fatalf("snapshot read a: %q %v", v, err)
	}
	if _, err := ro.Get([]byte("b")); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("snapshot read b: %v", err)
	}
	it, err := ro.Scan([]byte("a"), []byte("z"), false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for it.Next() {
		n++
	}
	it.Close()
	if n != 1 {
		t.Fatalf("snapshot scan saw %d keys, want 1", n)
	}
}

func testReadCommitted(t *testing.T, s storage.Store) {
	ro, _ := s.Begin(ctx, storage.ReadOnly)
	defer ro.Rollback()
	MustSet(t, s, "a", "new")
	v, err := ro.Get([]byte("a"))
	if err != nil || string(v) != "new" {
		t.Fatalf("read-only Get after a commit: %q %v", v, err)
	}
}

func testReadOnlyWrites(t *testing.T, s storage.Store) {
	ro, _ := s.Begin(ctx, storage.Snapshot)
	defer ro.Rollback()
	if err := ro.Set([]byte("a"), []byte("1")); !errors.Is(err, storage.ErrReadOnly) {
		t.Fatalf("Set: %v", err)
	}
}

func testScan(t *testing.T, s storage.Store) {
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		MustSet(t, s, k, k+k)
	}
	tx, _ := s.Begin(ctx, storage.ReadOnly)
	defer tx.Rollback()
	for _, tc := range []struct {
		lo, hi  string
		reverse bool
		want    string
	}{
		{"b", "e", false, "bcd"},
		{"b", "e", true, "dcb"},
		{"", "\xff", false, "abcde"},
		{"x", "z", false, ""},
	} {
		it, err := tx.Scan([]byte(tc.lo), []byte(tc.hi), tc.reverse)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for it.Next() {
			if string(it.Value()) != string(it.Key())+string(it.Key()) {
				t.Fatalf("value of %q is %q", it.Key(), it.Value())
			}
			got += string(it.Key())
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("Scan(%q,%q,%v) = %q, want %q", tc.lo, tc.hi, tc.reverse, got, tc.want)
		}
	}
}

func testDeleteRange(t *testing.T, s storage.Store) {
	for _, k := range []string{"a1", "b1", "b2", "c1"} {
		MustSet(t, s, k, "v")
	}
	if err := s.DeleteRange(ctx, []byte("b"), []byte("c")); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]bool{"a1": true, "b1": false, "b2": false, "c1": true} {
		if _, ok := MustGet(t, s, k); ok != want {
			t.Errorf("%s present=%v, want %v", k, ok, want)
		}
	}
}

// testIncrements runs read-modify-write increments from many goroutines,
// retrying on conflict; none may be lost.
func testIncrements(t *testing.T, s storage.Store) {
	const workers, each = 8, 50
	MustSet(t, s, "n", "0")
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				for attempt := 0; ; attempt++ {
					if attempt > 10000 {
						errs <- fmt.Errorf("too many conflicts")
						return
					}
					tx, err := s.Begin(ctx, storage.ReadWrite)
					if err != nil {
						errs <- err
						return
					}
					v, err := tx.Get([]byte("n"))
					if err != nil {
						tx.Rollback()
						errs <- err
						return
					}
					n, _ := strconv.Atoi(string(v))
					tx.Set([]byte("n"), []byte(strconv.Itoa(n+1)))
					err = tx.Commit()
					if errors.Is(err, storage.ErrConflict) {
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					break
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if v, _ := MustGet(t, s, "n"); v != strconv.Itoa(workers*each) {
		t.Fatalf("n = %s, want %d", v, workers*each)
	}
}
