package pebble_test

// Storage faults (issue 20): a full disk or an I/O error while writing
// must never wedge the store. While the fault lasts every write is
// answered promptly with an error wrapping storage.ErrUnavailable, reads
// go on and Health names the fault; once it ends writes resume without a
// restart, and no acknowledged write is lost. The faults are injected
// with Pebble's own vfs/errorfs; TestStore_FullDisk_Tmpfs fills a real
// filesystem.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/storage/pebble"
	"github.com/dynago/dynago/internal/storage/storagetest"
)

// fault injects err into the operations of kinds on files whose name
// ends with suffix, while on.
type fault struct {
	on     atomic.Bool
	suffix string
	kinds  []errorfs.OpKind
	err    error
	hits   atomic.Int64
}

func (f *fault) String() string { return "fault " + f.suffix }

func (f *fault) MaybeError(op errorfs.Op) error {
	if !f.on.Load() || !strings.HasSuffix(op.Path, f.suffix) {
		return nil
	}
	for _, k := range f.kinds {
		if op.Kind == k {
			f.hits.Add(1)
			return f.err
		}
	}
	return nil
}

var writeKinds = []errorfs.OpKind{errorfs.OpCreate, errorfs.OpReuseForWrite, errorfs.OpFileWrite,
	errorfs.OpFileWriteAt, errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo}

// set commits key=value in its own transaction.
func set(s storage.Store, key, value string) error {
	tx, err := s.Begin(context.Background(), storage.ReadWrite)
	if err != nil {
		return err
	}
	tx.Set([]byte(key), []byte(value))
	return tx.Commit()
}

// waitHealthy polls Health until it is nil, for at most d.
func waitHealthy(t *testing.T, s *pebble.Store, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for s.Health() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("store still unhealthy after %v: %v", d, s.Health())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// writeDuringFault runs writers while the fault is on and checks each is
// answered within a few seconds with storage.ErrUnavailable (or
// succeeds, for writes that got in before the fault was noticed). It
// returns the keys acknowledged.
func writeDuringFault(t *testing.T, s *pebble.Store, prefix string) []string {
	t.Helper()
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				key := fmt.Sprintf("%s-%d-%d", prefix, w, i)
				start := time.Now()
				err := set(s, key, "v")
				if took := time.Since(start); took > 5*time.Second {
					t.Errorf("a write during the fault took %v", took)
				}
				switch {
				case err == nil:
					mu.Lock()
					acked = append(acked, key)
					mu.Unlock()
				case errors.Is(err, storage.ErrConflict):
					// Begun on an instance replaced since: the engine
					// retries such a write on the new one.
				case !errors.Is(err, storage.ErrUnavailable):
					t.Errorf("a write during the fault: %v, want an error wrapping storage.ErrUnavailable", err)
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("writers during the fault never finished: the store is wedged")
	}
	return acked
}

func TestStore_Fault_WALWriteOrSync(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kinds []errorfs.OpKind
		err   error
	}{
		{"ENOSPC on WAL writes", []errorfs.OpKind{errorfs.OpFileWrite, errorfs.OpCreate, errorfs.OpReuseForWrite}, syscall.ENOSPC},
		{"EIO on WAL syncs", []errorfs.OpKind{errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo}, syscall.EIO},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fault{suffix: ".log", kinds: tc.kinds, err: tc.err}
			s, err := pebble.Open(pebble.Options{Dir: "db", FS: errorfs.Wrap(vfs.NewMem(), f)})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var acked []string
			for i := 0; i < 50; i++ {
				key := fmt.Sprintf("before-%d", i)
				if err := set(s, key, "v"); err != nil {
					t.Fatal(err)
				}
				acked = append(acked, key)
			}
			f.on.Store(true)
			acked = append(acked, writeDuringFault(t, s, "during")...)
			if f.hits.Load() == 0 {
				t.Fatal("the fault was never hit")
			}
			// Health names the fault until the store has reopened; the
			// keeper may already have (a sync fault does not stop a
			// reopen, only the next synced write), so healthy is right
			// then, and only then.
			if err := s.Health(); err == nil && s.Reopens() == 0 || err != nil && !errors.Is(err, storage.ErrUnavailable) {
				t.Fatalf("Health during the fault = %v after %d reopens", err, s.Reopens())
			}
			// Reads go on.
			if v, ok := storagetest.MustGet(t, s, "before-0"); !ok || v != "v" {
				t.Fatalf("read during the fault: %q %v", v, ok)
			}
			f.on.Store(false)
			waitHealthy(t, s, 20*time.Second)
			if err := set(s, "after", "v"); err != nil {
				t.Fatalf("write after the fault: %v", err)
			}
			if s.Reopens() == 0 {
				t.Fatal("the store never reopened")
			}
			for _, k := range append(acked, "after") {
				if _, ok := storagetest.MustGet(t, s, k); !ok {
					t.Fatalf("acknowledged write %s lost", k)
				}
			}
		})
	}
}

// A failed flush (an sstable that cannot be written) breaks the store as
// a failed WAL write does: Pebble would retry it at once, for ever.
func TestStore_Fault_Flush(t *testing.T) {
	f := &fault{suffix: ".sst", kinds: writeKinds, err: syscall.ENOSPC}
	s, err := pebble.Open(pebble.Options{Dir: "db", FS: errorfs.Wrap(vfs.NewMem(), f), MemTableBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f.on.Store(true)
	value := strings.Repeat("x", 4096)
	var acked []string
	deadline := time.Now().Add(30 * time.Second)
	for s.Health() == nil {
		if time.Now().After(deadline) {
			t.Fatal("writing 1 MiB memtables with failing flushes never broke the store")
		}
		key := fmt.Sprintf("k%d", len(acked))
		if err := set(s, key, value); err == nil {
			acked = append(acked, key)
		}
	}
	acked = append(acked, writeDuringFault(t, s, "during")...)
	f.on.Store(false)
	waitHealthy(t, s, 20*time.Second)
	if err := set(s, "after", value); err != nil {
		t.Fatalf("write after the fault: %v", err)
	}
	for _, k := range acked {
		if _, ok := storagetest.MustGet(t, s, k); !ok {
			t.Fatalf("acknowledged write %s lost", k)
		}
	}
}

// A panic during a commit (here from the ReadCached hook, which runs with
// the commit lock held) releases every lock: later writes are answered,
// and once the store has reopened they succeed.
func TestStore_PanicInCommit_NeverWedges(t *testing.T) {
	var panicking atomic.Bool
	s, err := pebble.Open(pebble.Options{Dir: "db", FS: vfs.NewMem(), ReadCached: func(key []byte) bool {
		if panicking.Load() && string(key) == "boom" {
			panic("injected")
		}
		return false
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := set(s, "before", "v"); err != nil {
		t.Fatal(err)
	}
	panicking.Store(true)
	if err := set(s, "boom", "v"); !errors.Is(err, storage.ErrUnavailable) {
		t.Fatalf("commit that panicked: %v", err)
	}
	panicking.Store(false)
	done := make(chan error, 1)
	go func() {
		waitHealthy(t, s, 20*time.Second)
		done <- set(s, "after", "v")
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("writes after a panic never finished")
	}
	if _, ok := storagetest.MustGet(t, s, "before"); !ok {
		t.Fatal("acknowledged write lost")
	}
}

// Close returns promptly while the store is broken and cannot reopen.
func TestStore_Close_WhileBroken(t *testing.T) {
	f := &fault{suffix: "", kinds: writeKinds, err: syscall.ENOSPC}
	s, err := pebble.Open(pebble.Options{Dir: "db", FS: errorfs.Wrap(vfs.NewMem(), f)})
	if err != nil {
		t.Fatal(err)
	}
	f.on.Store(true) // every change fails: reopening cannot succeed
	if err := set(s, "k", "v"); !errors.Is(err, storage.ErrUnavailable) {
		t.Fatalf("write: %v", err)
	}
	start := time.Now()
	s.Close()
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Close took %v", took)
	}
}

func TestStore_Open_DirectoryInUse(t *testing.T) {
	dir := t.TempDir()
	s, err := pebble.Open(pebble.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pebble.Open(pebble.Options{Dir: dir}); !errors.Is(err, pebble.ErrLocked) {
		t.Fatalf("second Open in this process: %v", err)
	}
	s.Close()
	// Another process holding the lock is named with its pid.
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), "DYNAGO_HOLD_LOCK="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	buf := make([]byte, 6)
	if _, err := stdout.Read(buf); err != nil || string(buf[:6]) != "locked" {
		t.Fatalf("helper: %q %v", buf, err)
	}
	_, err = pebble.Open(pebble.Options{Dir: dir})
	want := fmt.Sprintf("data directory %s is in use by another dynago (pid %d)", dir, cmd.Process.Pid)
	if !errors.Is(err, pebble.ErrLocked) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Open of a directory another process holds: %v, want %q", err, want)
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// TestHelperHoldLock opens the store in $DYNAGO_HOLD_LOCK and holds it
// until killed (a helper process for TestStore_Open_DirectoryInUse).
func TestHelperHoldLock(t *testing.T) {
	dir := os.Getenv("DYNAGO_HOLD_LOCK")
	if dir == "" {
		t.Skip("helper process only")
	}
	if _, err := pebble.Open(pebble.Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("locked")
	time.Sleep(time.Minute)
}

// TestStore_FullDisk_Tmpfs fills a real 8 MiB tmpfs (needs root to
// mount; CI runs as root) with the store, then frees space: writes fail
// promptly while full and resume without a restart, and every
// acknowledged write is there, also after a real reopen.
func TestStore_FullDisk_Tmpfs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	defer exec.Command("umount", "-l", mnt).Run()
	ballast := filepath.Join(mnt, "ballast")
	if err := os.WriteFile(ballast, make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(mnt, "db")
	s, err := pebble.Open(pebble.Options{Dir: dir, MemTableBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	value := string(randomBytes(8192)) // incompressible
	var acked []string
	deadline := time.Now().Add(60 * time.Second)
	for s.Health() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the disk never filled")
		}
		key := fmt.Sprintf("k%06d", len(acked))
		start := time.Now()
		err := set(s, key, value)
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("a write took %v", took)
		}
		if err == nil {
			acked = append(acked, key)
		} else if !errors.Is(err, storage.ErrUnavailable) {
			t.Fatalf("write on a full disk: %v", err)
		}
	}
	t.Logf("disk full after %d writes: %v", len(acked), s.Health())
	acked = append(acked, writeDuringFault(t, s, "during")...)
	t.Logf("%d reopens while full", s.Reopens())
	if _, ok := storagetest.MustGet(t, s, acked[0]); !ok {
		t.Fatal("read on a full disk failed")
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, s, 30*time.Second)
	if err := set(s, "after", "v"); err != nil {
		t.Fatalf("write after space returned: %v", err)
	}
	acked = append(acked, "after")
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Close took %v", took)
	}
	s, err = pebble.Open(pebble.Options{Dir: dir, MemTableBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, k := range acked {
		if _, ok := storagetest.MustGet(t, s, k); !ok {
			t.Fatalf("acknowledged write %s lost", k)
		}
	}
}

// syncGate holds WAL syncs until released, then fails them with err (nil:
// lets them succeed).
type syncGate struct {
	closed  atomic.Bool
	release chan struct{}
	err     error
}

func (g *syncGate) String() string { return "sync gate" }

func (g *syncGate) MaybeError(op errorfs.Op) error {
	if !g.closed.Load() || !strings.HasSuffix(op.Path, ".log") {
		return nil
	}
	switch op.Kind {
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
		<-g.release
		return g.err
	}
	return nil
}

// TestStore_ReadsWaitForDurability: a write that is applied but not yet
// synced is not returned by ReadOnly or Snapshot reads, Scans, or a
// read-write transaction that ends without writing, until its sync
// succeeds; if the sync fails they fail too, never
// returning a change a crash would lose (found by the soak test, issue 20).
func TestStore_ReadsWaitForDurability(t *testing.T) {
	reads := map[string]func(s storage.Store) (string, error){
		"ReadOnly Get": func(s storage.Store) (string, error) { return read(s, storage.ReadOnly, "k") },
		"Snapshot Get": func(s storage.Store) (string, error) { return read(s, storage.Snapshot, "k") },
		// A read-write transaction that ends without writing (a failed
		// condition) is answered from what it read: Commit waits.
		"ReadWrite Get, no writes": func(s storage.Store) (string, error) {
			tx, err := s.Begin(context.Background(), storage.ReadWrite)
			if err != nil {
				return "", err
			}
			v, err := tx.Get([]byte("k"))
			if err != nil {
				return "", err
			}
			return string(v), tx.Commit()
		},
		"Scan": func(s storage.Store) (string, error) {
			tx, err := s.Begin(context.Background(), storage.ReadOnly)
			if err != nil {
				return "", err
			}
			defer tx.Rollback()
			it, err := tx.Scan([]byte("a"), []byte("z"), false)
			if err != nil {
				return "", err
			}
			var v string
			for it.Next() {
				v += string(it.Value())
			}
			return v, it.Close()
		},
	}
	for name, rd := range reads {
		for _, syncErr := range []error{nil, syscall.EIO} {
			t.Run(fmt.Sprintf("%s, sync error %v", name, syncErr), func(t *testing.T) {
				g := &syncGate{release: make(chan struct{}), err: syncErr}
				s, err := pebble.Open(pebble.Options{Dir: "db", FS: errorfs.Wrap(vfs.NewMem(), g)})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				g.closed.Store(true)
				wrote := make(chan error, 1)
				go func() { wrote <- set(s, "k", "v") }()
				time.Sleep(50 * time.Millisecond) // applied, waiting for its sync
				got := make(chan string, 1)
				go func() {
					v, err := rd(s)
					if err != nil {
						v = "error: " + err.Error()
					}
					got <- v
				}()
				select {
				case v := <-got:
					t.Fatalf("read returned %q before the write was durable", v)
				case <-time.After(200 * time.Millisecond):
				}
				close(g.release)
				v := <-got
				werr := <-wrote
				if syncErr == nil && (werr != nil || v != "v") {
					t.Fatalf("after the sync: write %v, read %q", werr, v)
				}
				if syncErr != nil && (werr == nil || !strings.HasPrefix(v, "error: ")) {
					t.Fatalf("after a failed sync: write %v, read %q", werr, v)
				}
			})
		}
	}
}

// read reads key in a transaction of mode.
func read(s storage.Store, mode storage.Mode, key string) (string, error) {
	tx, err := s.Begin(context.Background(), mode)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	v, err := tx.Get([]byte(key))
	if errors.Is(err, storage.ErrNotFound) {
		return "<absent>", nil
	}
	return string(v), err
}

// TestStore_Open_FullDiskFailsClearly: a store whose write-ahead log
// cannot be flushed at open (a restart on a disk still full) fails Open
// with a message that says so, instead of waiting for space without a
// word (a fresh-user trial, issue 20: the port accepted connections and
// nothing answered).
func TestStore_Open_FullDiskFailsClearly(t *testing.T) {
	defer pebble.SetOpenGiveUp(500 * time.Millisecond)()
	f := &fault{suffix: ".sst", kinds: writeKinds, err: syscall.ENOSPC}
	fs := errorfs.Wrap(vfs.NewMem(), f)
	s, err := pebble.Open(pebble.Options{Dir: "db", FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	if err := set(s, "k", "v"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // the WAL is replayed at the next open
		t.Fatal(err)
	}
	f.on.Store(true)
	start := time.Now()
	_, err = pebble.Open(pebble.Options{Dir: "db", FS: fs})
	if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "is the disk full?") {
		t.Fatalf("Open on a full disk: %v", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Open took %v to fail", took)
	}
	f.on.Store(false)
	s, err = pebble.Open(pebble.Options{Dir: "db", FS: fs})
	if err != nil {
		t.Fatalf("Open once space is back: %v", err)
	}
	defer s.Close()
	if v, ok := storagetest.MustGet(t, s, "k"); !ok || v != "v" {
		t.Fatalf("after the failed open: %q %v", v, ok)
	}
}
