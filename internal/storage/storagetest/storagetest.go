// Package storagetest is the contract suite every storage.Store
// implementation must pass. Each implementation's test calls Run with a
// constructor for fresh, empty stores.
package storagetest

import (
	"bytes"
	"context"
	"encoding/binary"
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
		{"Txn_Scan_NoOwnWritesNoReadSet", testScanIsolation},
		{"Store_Close_Twice", testCloseTwice},
		{"Store_DeleteRange", testDeleteRange},
		{"Txn_ConcurrentIncrements_AreSerializable", testIncrements},
		{"Txn_SetStamped_SharesOneStampInCommitOrder", testStampOrder},
		{"Txn_SetStamped_ReadersNeverSeeAGapFilled", testStampNoGaps},
		{"Txn_SetStamped_ConflictWritesNothing", testStampConflict},
		{"Store_StampHorizon_CoversEarlierCommits", testStampHorizon},
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
	tx := begin(t, s, storage.ReadWrite)
	tx.Delete([]byte("a"))
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, ok := MustGet(t, s, "a"); ok {
		t.Fatal("deleted key still present")
	}
}

func testRollback(t *testing.T, s storage.Store) {
	tx := begin(t, s, storage.ReadWrite)
	tx.Set([]byte("a"), []byte("1"))
	tx.Rollback()
	tx.Rollback() // twice is fine
	if _, ok := MustGet(t, s, "a"); ok {
		t.Fatal("rolled back write is visible")
	}
}

func testOwnWrites(t *testing.T, s storage.Store) {
	tx := begin(t, s, storage.ReadWrite)
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
	t1 := begin(t, s, storage.ReadWrite)
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
	t2 := begin(t, s, storage.ReadWrite)
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
	t1 := begin(t, s, storage.ReadWrite)
	t1.Get([]byte("a"))
	MustSet(t, s, "b", "1")
	t1.Set([]byte("a"), []byte("1"))
	if err := t1.Commit(); err != nil {
		t.Fatalf("disjoint commit: %v", err)
	}
}

func testSnapshot(t *testing.T, s storage.Store) {
	MustSet(t, s, "a", "old")
	ro := begin(t, s, storage.Snapshot)
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
	ro := begin(t, s, storage.ReadOnly)
	defer ro.Rollback()
	MustSet(t, s, "a", "new")
	v, err := ro.Get([]byte("a"))
	if err != nil || string(v) != "new" {
		t.Fatalf("read-only Get after a commit: %q %v", v, err)
	}
}

// testReadOnlyWrites: ReadOnly and Snapshot transactions refuse every
// write with ErrReadOnly, and their Commit applies nothing.
func testReadOnlyWrites(t *testing.T, s storage.Store) {
	for _, mode := range []storage.Mode{storage.ReadOnly, storage.Snapshot} {
		ro := begin(t, s, mode)
		if err := ro.Set([]byte("a"), []byte("1")); !errors.Is(err, storage.ErrReadOnly) {
			t.Fatalf("mode %d: Set: %v", mode, err)
		}
		if err := ro.Delete([]byte("a")); !errors.Is(err, storage.ErrReadOnly) {
			t.Fatalf("mode %d: Delete: %v", mode, err)
		}
		if err := ro.SetStamped([]byte("p"), nil, []byte("1")); !errors.Is(err, storage.ErrReadOnly) {
			t.Fatalf("mode %d: SetStamped: %v", mode, err)
		}
		if err := ro.Commit(); err != nil {
			t.Fatalf("mode %d: Commit: %v", mode, err)
		}
		ro.Rollback() // after Commit: harmless
		if _, ok := MustGet(t, s, "a"); ok {
			t.Fatalf("mode %d: a read-only transaction wrote", mode)
		}
	}
}

// testScanIsolation: Scan reads the state the transaction began with, not
// its own writes, and does not join the read set: a commit into a scanned
// range after the Scan does not make the transaction conflict.
func testScanIsolation(t *testing.T, s storage.Store) {
	MustSet(t, s, "a", "1")
	tx := begin(t, s, storage.ReadWrite)
	defer tx.Rollback()
	if err := tx.Set([]byte("b"), []byte("2")); err != nil {
		t.Fatal(err)
	}
	it, err := tx.Scan([]byte("a"), []byte("z"), false)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for it.Next() {
		got += string(it.Key())
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if got != "a" {
		t.Fatalf("Scan saw %q, want only the committed %q (not its own write b)", got, "a")
	}
	MustSet(t, s, "c", "3") // into the scanned range, after the Scan
	if err := tx.Commit(); err != nil {
		t.Fatalf("Commit after another commit into the scanned range: %v (Scan must not join the read set)", err)
	}
	if v, ok := MustGet(t, s, "b"); !ok || v != "2" {
		t.Fatalf("own write after commit: %q %v", v, ok)
	}
}

// testCloseTwice: a second Close returns an error (and does nothing else).
func testCloseTwice(t *testing.T, s storage.Store) {
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err == nil {
		t.Fatal("a second Close succeeded")
	}
}

// begin starts a transaction or fails the test.
func begin(t testing.TB, s storage.Store, mode storage.Mode) storage.Txn {
	t.Helper()
	tx, err := s.Begin(ctx, mode)
	if err != nil {
		t.Fatalf("Begin(mode %d): %v", mode, err)
	}
	return tx
}

func testScan(t *testing.T, s storage.Store) {
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		MustSet(t, s, k, k+k)
	}
	tx := begin(t, s, storage.ReadOnly)
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
		if err := it.Close(); err != nil { // a second Close is harmless
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

// Increment adds one to the decimal counter at key (absent counts as 0)
// in a read-write transaction, retrying ErrConflict up to maxAttempts
// times.
func Increment(s storage.Store, key []byte, maxAttempts int) error {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		tx, err := s.Begin(ctx, storage.ReadWrite)
		if err != nil {
			return err
		}
		n := 0
		switch v, err := tx.Get(key); {
		case errors.Is(err, storage.ErrNotFound):
		case err != nil:
			tx.Rollback()
			return err
		default:
			n, _ = strconv.Atoi(string(v))
		}
		if err := tx.Set(key, []byte(strconv.Itoa(n+1))); err != nil {
			tx.Rollback()
			return err
		}
		err = tx.Commit()
		if errors.Is(err, storage.ErrConflict) {
			continue
		}
		return err
	}
	return fmt.Errorf("increment %s: too many conflicts", key)
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
				if err := Increment(s, []byte("n"), 10000); err != nil {
					errs <- err
					return
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

// commitStamped commits one transaction with SetStamped writes of each
// suffix under prefix.
func commitStamped(s storage.Store, prefix string, suffixes ...string) error {
	tx, err := s.Begin(ctx, storage.ReadWrite)
	if err != nil {
		return err
	}
	for _, sfx := range suffixes {
		if err := tx.SetStamped([]byte(prefix), []byte(sfx), []byte(sfx)); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// stampedKeys scans every key under prefix and returns the commit stamp,
// position and suffix of each, in key order.
func stampedKeys(t testing.TB, s storage.Store, prefix string) (stamps []uint64, positions []int, suffixes []string) {
	t.Helper()
	tx, err := s.Begin(ctx, storage.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	it, err := tx.Scan([]byte(prefix), []byte(prefix+"\xff"), false)
	if err != nil {
		t.Fatal(err)
	}
	for it.Next() {
		k := it.Key()[len(prefix):]
		if len(k) < storage.StampLen {
			t.Fatalf("stamped key %q too short", it.Key())
		}
		var st uint64
		for _, b := range k[:8] {
			st = st<<8 | uint64(b)
		}
		stamps = append(stamps, st)
		positions = append(positions, int(k[8])<<8|int(k[9]))
		suffixes = append(suffixes, string(k[storage.StampLen:]))
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return stamps, positions, suffixes
}

// testStampOrder: the writes of one transaction share a stamp, later
// commits get larger stamps, and commits without stamped writes consume
// none.
func testStampOrder(t *testing.T, s storage.Store) {
	if err := commitStamped(s, "s/", "a", "b"); err != nil {
		t.Fatal(err)
	}
	MustSet(t, s, "plain", "x")
	if err := commitStamped(s, "s/", "a"); err != nil {
		t.Fatal(err)
	}
	stamps, pos, sfx := stampedKeys(t, s, "s/")
	if len(stamps) != 3 || stamps[0] != stamps[1] || stamps[2] <= stamps[1] {
		t.Fatalf("stamps %v suffixes %q: want [x x y] with y > x", stamps, sfx)
	}
	if pos[0] != 0 || pos[1] != 1 || pos[2] != 0 {
		t.Fatalf("positions %v, want [0 1 0]", pos)
	}
	if sfx[0] != "a" || sfx[1] != "b" || sfx[2] != "a" {
		t.Fatalf("suffixes %q, want [a b a]", sfx)
	}
	tx, err := s.Begin(ctx, storage.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	tx.SetStamped([]byte("s/"), []byte("own"), []byte("v"))
	if _, err := tx.Get([]byte("s/own")); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Get of a stamped suffix: %v, want ErrNotFound", err)
	}
	tx.Rollback()
	if n, _, _ := stampedKeys(t, s, "s/"); len(n) != 3 {
		t.Fatalf("rolled-back stamped write is visible: %v", n)
	}
}

// testStampNoGaps: while writers commit stamped keys, a reader that
// repeatedly takes the stamp horizon and scans the keys stamped at most
// that must never later find a key below the last one it saw.
func testStampNoGaps(t *testing.T, s storage.Store) {
	const workers, each = 4, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers+1)
	done, written := make(chan struct{}), make(chan struct{})
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := commitStamped(s, "g/", fmt.Sprintf("%d-%03d", w, i)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	seen := 0
	go func() {
		defer close(done)
		var last []byte // greatest key of the previous scan
		for seen < workers*each {
			horizon, err := s.StampHorizon(ctx, 0)
			if err != nil {
				errs <- err
				return
			}
			tx, err := s.Begin(ctx, storage.ReadOnly)
			if err != nil {
				errs <- err
				return
			}
			it, err := tx.Scan([]byte("g/"), []byte("g/\xff"), false)
			if err != nil {
				errs <- err
				return
			}
			n := 0
			var greatest []byte
			for it.Next() {
				if binary.BigEndian.Uint64(it.Key()[2:]) > horizon {
					break
				}
				n++
				if n > seen && last != nil && bytes.Compare(it.Key(), last) <= 0 {
					errs <- fmt.Errorf("key %q appeared below %q, which was read before it", it.Key(), last)
					it.Close()
					tx.Rollback()
					return
				}
				greatest = append(greatest[:0], it.Key()...)
			}
			it.Close()
			tx.Rollback()
			select {
			case <-written:
				if n == seen {
					return // a writer failed; its error is reported
				}
			default:
			}
			seen, last = n, greatest
		}
	}()
	wg.Wait()
	close(written)
	<-done
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// testStampConflict: a transaction that fails its commit with ErrConflict
// writes no stamped key.
func testStampConflict(t *testing.T, s storage.Store) {
	MustSet(t, s, "k", "0")
	tx, err := s.Begin(ctx, storage.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Get([]byte("k")); err != nil {
		t.Fatal(err)
	}
	MustSet(t, s, "k", "1")
	tx.SetStamped([]byte("c/"), nil, []byte("v"))
	tx.Set([]byte("k"), []byte("2"))
	if err := tx.Commit(); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("Commit = %v, want ErrConflict", err)
	}
	if st, _, _ := stampedKeys(t, s, "c/"); len(st) != 0 {
		t.Fatalf("conflicting transaction wrote stamped keys at %v", st)
	}
}

// testStampHorizon: a horizon asked to cover a stamp that was read
// covers it, and horizons never go back.
func testStampHorizon(t *testing.T, s storage.Store) {
	var last uint64
	for i, sfx := range []string{"a", "b"} {
		if err := commitStamped(s, "h/", sfx); err != nil {
			t.Fatal(err)
		}
		stamps, _, _ := stampedKeys(t, s, "h/")
		if len(stamps) != i+1 {
			t.Fatalf("stamps %v after %d commits", stamps, i+1)
		}
		h, err := s.StampHorizon(ctx, stamps[i])
		if err != nil {
			t.Fatal(err)
		}
		if h < stamps[i] || h < last {
			t.Fatalf("horizon %d for stamp %d (previous horizon %d)", h, stamps[i], last)
		}
		last = h
	}
}
