package tikv_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tikv/client-go/v2/oracle"

	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/storage/storagetest"
	"github.com/dynago/dynago/internal/storage/tikv"
	"github.com/dynago/dynago/internal/storage/tikv/tikvtest"
)

// TestContract runs the storage contract against the mock cluster, with
// each test's keys spread over several regions.
func TestContract(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		c := tikvtest.NewCluster(t)
		// The contract's keys are single letters: split between them too.
		for _, k := range []string{"b", "g/", "k", "s/"} {
			c.Split([]byte(tikv.DefaultNamespace + "\x00" + k))
		}
		return c.Open(t, tikv.Options{})
	})
}

// TestContract_ValidatedReads runs the contract with every key
// validated at commit instead of locked: the conflicts the contract
// asks for are detected the same way.
func TestContract_ValidatedReads(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		c := tikvtest.NewCluster(t)
		return c.Open(t, tikv.Options{ValidatedReads: func([]byte) bool { return true }})
	})
}

// TestValidatedReads_DoNotConflictWithEachOther: transactions that read
// the same validated key and write different keys all commit, where
// locked reads would conflict; a change of the key fails a transaction
// that read it before.
func TestValidatedReads_DoNotConflictWithEachOther(t *testing.T) {
	c := tikvtest.NewCluster(t)
	s := c.Open(t, tikv.Options{ValidatedReads: func(k []byte) bool { return string(k) == "catalog" }})
	storagetest.MustSet(t, s, "catalog", "v1")
	ctx := context.Background()
	var txs []storage.Txn
	for i := 0; i < 4; i++ {
		tx, _ := s.Begin(ctx, storage.ReadWrite)
		if _, err := tx.Get([]byte("catalog")); err != nil {
			t.Fatal(err)
		}
		tx.Set([]byte(fmt.Sprintf("item%d", i)), []byte("x"))
		txs = append(txs, tx)
	}
	for i, tx := range txs {
		if err := tx.Commit(); err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	stale, _ := s.Begin(ctx, storage.ReadWrite)
	stale.Get([]byte("catalog"))
	storagetest.MustSet(t, s, "catalog", "v2")
	stale.Set([]byte("item9"), []byte("x"))
	if err := stale.Commit(); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("commit after the catalog changed: %v, want ErrConflict", err)
	}
	// The same with locked reads: the writers conflict.
	locked := c.Open(t, tikv.Options{Namespace: "locked"})
	storagetest.MustSet(t, locked, "catalog", "v1")
	a, _ := locked.Begin(ctx, storage.ReadWrite)
	b, _ := locked.Begin(ctx, storage.ReadWrite)
	for i, tx := range []storage.Txn{a, b} {
		tx.Get([]byte("catalog"))
		tx.Set([]byte(fmt.Sprintf("item%d", i)), []byte("x"))
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("second locked reader: %v, want ErrConflict", err)
	}
}

// TestTwoNodes_SplitsDuringIncrements runs read-modify-write increments
// of 16 counters from two nodes (separate client-go stores: region
// caches, lock resolvers) while the test splits the counters' regions
// under them; no increment may be lost, and each node must follow the
// splits through region errors.
func TestTwoNodes_SplitsDuringIncrements(t *testing.T) {
	c := tikvtest.NewCluster(t)
	nodes := []storage.Store{c.Open(t, tikv.Options{}), c.Open(t, tikv.Options{})}
	const counters, workers, each = 16, 4, 25
	key := func(i int) []byte { return []byte(fmt.Sprintf("n/%02d", i)) }
	regions := c.Regions()
	splitsDone := make(chan struct{})
	go func() {
		defer close(splitsDone)
		for i := 1; i < counters; i++ {
			time.Sleep(5 * time.Millisecond)
			c.Split(append([]byte(tikv.DefaultNamespace+"\x00"), key(i)...))
		}
	}()
	// Each worker increments at least each times, and on until every
	// split has happened.
	var wg sync.WaitGroup
	var done atomic.Int64
	errs := make(chan error, workers*len(nodes))
	for n, s := range nodes {
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					if i >= each {
						select {
						case <-splitsDone:
							return
						default:
						}
					}
					if err := storagetest.Increment(s, key((n*workers+w+i)%counters), 1000); err != nil {
						errs <- err
						return
					}
					done.Add(1)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if c.Regions() <= regions {
		t.Fatalf("regions %d, want more than %d: no split happened during the test", c.Regions(), regions)
	}
	total := 0
	for i := 0; i < counters; i++ {
		v, ok := storagetest.MustGet(t, nodes[i%2], string(key(i)))
		if !ok {
			continue
		}
		n, _ := strconv.Atoi(v)
		total += n
	}
	if want := int(done.Load()); total != want {
		t.Fatalf("total %d, want %d: increments were lost", total, want)
	}
}

// TestValues_EmptyAndZeroPrefixed: TiKV refuses empty values; the store
// escapes them and values that start with 0x00, and reads both back.
func TestValues_EmptyAndZeroPrefixed(t *testing.T) {
	s := tikvtest.NewCluster(t).Open(t, tikv.Options{})
	for _, v := range []string{"", "\x00", "\x00\x00a", "plain"} {
		storagetest.MustSet(t, s, "k", v)
		if got, ok := storagetest.MustGet(t, s, "k"); !ok || got != v {
			t.Fatalf("stored %q, read %q %v", v, got, ok)
		}
		tx, _ := s.Begin(context.Background(), storage.ReadOnly)
		it, _ := tx.Scan(nil, nil, false)
		if !it.Next() || string(it.Value()) != v {
			t.Fatalf("scan of %q read %q", v, it.Value())
		}
		it.Close()
		tx.Rollback()
	}
}

// TestNamespaces: two namespaces on one cluster do not see each other's
// keys, and a DeleteRange of one leaves the other alone.
func TestNamespaces(t *testing.T) {
	c := tikvtest.NewCluster(t)
	a, b := c.Open(t, tikv.Options{Namespace: "a"}), c.Open(t, tikv.Options{Namespace: "b"})
	storagetest.MustSet(t, a, "k", "from a")
	if _, ok := storagetest.MustGet(t, b, "k"); ok {
		t.Fatal("namespace b sees a's key")
	}
	storagetest.MustSet(t, b, "k", "from b")
	if err := a.DeleteRange(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if v, _ := storagetest.MustGet(t, b, "k"); v != "from b" {
		t.Fatalf("b's key after a's DeleteRange: %q", v)
	}
	if _, ok := storagetest.MustGet(t, a, "k"); ok {
		t.Fatal("a's key survived its DeleteRange")
	}
}

// TestCollectGarbage: GC advances PD's safe point to keep before now
// (TiKV then drops the versions below it; the mock cluster keeps them)
// and leaves what readers see alone.
func TestCollectGarbage(t *testing.T) {
	c := tikvtest.NewCluster(t)
	s := c.Open(t, tikv.Options{})
	ctx := context.Background()
	storagetest.MustSet(t, s, "k", "1")
	storagetest.MustSet(t, s, "k", "2")
	before := time.Now()
	if err := s.CollectGarbage(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	safePoint, err := s.KV().GetPDClient().UpdateGCSafePoint(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := oracle.GetTimeFromTS(safePoint)
	if want := before.Add(-time.Minute); got.Before(want.Add(-time.Second)) || got.After(want.Add(time.Second)) {
		t.Fatalf("safe point at %v, want about %v", got, want)
	}
	if v, _ := storagetest.MustGet(t, s, "k"); v != "2" {
		t.Fatalf("after GC k = %q, want 2", v)
	}
}

// TestOpen_NoPD: with no PD listening, Open fails within its timeout
// with an error naming the endpoints.
func TestOpen_NoPD(t *testing.T) {
	_, err := tikv.Open(tikv.Options{PD: []string{"127.0.0.1:1"}, ConnectTimeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("Open with no PD: %v", err)
	}
	if _, err := tikv.Open(tikv.Options{}); err == nil {
		t.Fatal("Open with no endpoints succeeded")
	}
	if _, err := tikv.Open(tikv.Options{PD: []string{"127.0.0.1:1"}, Namespace: "a\x00b"}); err == nil || !strings.Contains(err.Error(), "allowed") {
		t.Fatalf("Open with a 0x00 in the namespace: %v", err)
	}
}

// TestLargeStampedTransaction: a stamped transaction too large to
// prewrite within the stamp window (3 MiB, against a 2 ms window here)
// announces its stamp with an intent and commits within the long window;
// the horizon then covers it and no intent is left behind.
func TestLargeStampedTransaction(t *testing.T) {
	c := tikvtest.NewCluster(t)
	s := c.Open(t, tikv.Options{StampWindow: 2 * time.Millisecond})
	ctx := context.Background()
	big := make([]byte, 64<<10)
	for attempt := 0; ; attempt++ {
		tx, err := s.Begin(ctx, storage.ReadWrite)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 48; i++ {
			tx.Set([]byte(fmt.Sprintf("big/%02d", i)), big)
		}
		tx.SetStamped([]byte("r/"), nil, []byte("record"))
		err = tx.Commit()
		if err == nil {
			break
		}
		// The intent itself is held to the 2 ms window: under the race
		// detector it can miss it now and then.
		if !errors.Is(err, storage.ErrConflict) || attempt == 20 {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
	}
	tx, _ := s.Begin(ctx, storage.ReadOnly)
	it, _ := tx.Scan([]byte("r/"), []byte("r0"), false)
	if !it.Next() {
		t.Fatal("the stamped record is missing")
	}
	stamp := binary.BigEndian.Uint64(it.Key()[2:])
	it.Close()
	tx.Rollback()
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if h, err := s.StampHorizon(hctx, stamp); err != nil || h < stamp {
		t.Fatalf("horizon %d, %v for stamp %d: an intent was left behind?", h, err, stamp)
	}
}

// TestScan_GrowingBatches: iterators start with small batches and
// continue from the next key with larger ones; across those restarts a
// scan of 1,000 keys over several regions returns each key once, in
// order, both ways, and within its bounds.
func TestScan_GrowingBatches(t *testing.T) {
	c := tikvtest.NewCluster(t)
	s := c.Open(t, tikv.Options{})
	ctx := context.Background()
	tx, _ := s.Begin(ctx, storage.ReadWrite)
	for i := 0; i < 1000; i++ {
		tx.Set([]byte(fmt.Sprintf("k%04d", i)), []byte(strconv.Itoa(i)))
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	c.Split([]byte(tikv.DefaultNamespace + "\x00k0500"))
	for _, tc := range []struct {
		lo, hi   string
		reverse  bool
		from, to int // expected keys, in scan order
	}{
		{"k0000", "k1000", false, 0, 999},
		{"k0000", "k1000", true, 999, 0},
		{"k0003", "k0700", false, 3, 699},
		{"k0003", "k0700", true, 699, 3},
	} {
		ro, _ := s.Begin(ctx, storage.ReadOnly)
		it, err := ro.Scan([]byte(tc.lo), []byte(tc.hi), tc.reverse)
		if err != nil {
			t.Fatal(err)
		}
		want, step := tc.from, 1
		if tc.reverse {
			step = -1
		}
		n := 0
		for it.Next() {
			if got := string(it.Key()); got != fmt.Sprintf("k%04d", want) || string(it.Value()) != strconv.Itoa(want) {
				t.Fatalf("%+v: key %d is %s=%s, want k%04d", tc, n, got, it.Value(), want)
			}
			want += step
			n++
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		ro.Rollback()
		if want != tc.to+step {
			t.Fatalf("%+v: stopped before k%04d", tc, want)
		}
	}
}

// TestCheckNamespace: the namespaces a deployment may use.
func TestCheckNamespace(t *testing.T) {
	for ns, ok := range map[string]bool{
		"": true, "dynago": true, "prod-eu.1_a": true, strings.Repeat("a", 64): true,
		strings.Repeat("a", 65): false, "a\x00b": false, "a/b": false, "é": false,
		"tenant": false, "meta": false, "Tenant": true,
	} {
		if err := tikv.CheckNamespace(ns); (err == nil) != ok {
			t.Errorf("CheckNamespace(%q) = %v, want ok=%v", ns, err, ok)
		}
	}
}
