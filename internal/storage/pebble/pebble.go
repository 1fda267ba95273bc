// Package pebble implements storage.Store on cockroachdb/pebble, on disk or
// on Pebble's in-memory filesystem.
//
// # Transactions
//
// Read-write transactions are optimistic. Each one records the commit
// sequence number current when it began (its start); Get reads the live
// database and remembers the key. Commit, holding the commit lock, checks
// every remembered key against a table of the keys written by recent
// commits: if one was written by a commit newer than the start, the
// transaction fails with storage.ErrConflict. Otherwise the batch is
// applied to the memtable (visible to later readers) with
// DB.ApplyNoSyncWait, the written keys are stamped with a new sequence
// number, the lock is released, and the committer waits for the WAL fsync
// outside the lock, so concurrent writers share fsyncs (group commit).
// A write is acknowledged only when its WAL record is synced.
//
// # Durable reads
//
// Pebble makes a batch visible to readers as soon as it is in the
// memtable, before its WAL record is synced; a crash in between loses a
// change readers saw (the soak test of issue 20 found exactly that: a
// strongly consistent GetItem, and a stream record whose sequence number
// the restarted server gave to another record). So the instance keeps
// the keys and ranges of every batch applied but not yet synced
// (pendingWrites, registered under the commit lock before the batch
// becomes visible), and a read waits for those it may reflect: Get for
// the batches that wrote its key, a Scan for those that wrote into its
// range, after reading and before returning. A read therefore returns only
// durable data, or an error if the sync failed; it waits at most one
// fsync, and only when it meets a write in flight. A counter of batches
// in flight lets reads skip the check when there are none. A read-write
// transaction waits only if it ends without writing (a failed condition
// is answered from what it read); one that commits needs no wait, since
// its own batch is synced after every batch applied before it.
//
// The table of recent writes is bounded: once it holds more than
// recentLimit keys, the oldest entries are dropped until it holds
// recentKeep keys, and a transaction that began before the dropped
// horizon is treated as conflicting (it simply retries). Pruning by key
// count, not by a number of commits, keeps its cost amortized whatever
// the number of keys per commit (index entries, transactions, batches). The rejected alternative, a
// lock per key held from read to commit, would put DynamoDB semantics on
// in-process locks that a second node could not see.
//
// ReadOnly transactions read the DB directly (each read sees the latest
// commit; an iterator is itself a consistent view); Snapshot transactions
// read a Pebble snapshot.
//
// # Stamped writes
//
// SetStamped keys get their stamp under the commit lock, right before
// the batch is applied, from a counter that the same batch persists at
// the reserved key "\x00stamp"; Open reads it back. Batches are applied
// in lock order, so stamps become visible in increasing order.
//
// # Read cache
//
// Keys chosen by Options.ReadCached (for dynago, the catalog: small, read
// by every request, rarely written) are also kept in memory, so that
// point reads of them by read-write and ReadOnly transactions skip
// Pebble's read path. The cache holds the latest committed value, exactly what those
// transactions would read from the DB: commit replaces a written key's
// entry under the commit lock, right after the batch is applied, and a
// reader fills an entry only if no commit has written the key since its
// own read began. A read-write transaction still records the key in its
// read set, so conflicts are detected as before.
//
// # Storage faults
//
// Pebble does not survive a failed WAL write in place: the write that
// meets it panics inside Pebble's commit pipeline, which then keeps its
// own mutex locked, and every later write waits for ever (a full disk
// did exactly that, issue 20). Nor does it retry a failed flush with any
// pause. So a Store runs its Pebble database as an instance it can
// replace:
//
//   - Any fault an instance meets while writing (a WAL write or sync that
//     fails, a panic or Pebble "fatal" error during a commit, a failed
//     flush) breaks the instance. From then on its writes fail at once
//     with an error wrapping storage.ErrUnavailable (the engine answers
//     500 InternalServerError), writers already waiting for the commit
//     lock or for their fsync are answered too, Health reports the cause,
//     and reads go on from the broken instance.
//   - A keeper goroutine then fences the broken instance (its filesystem,
//     a guardFS, refuses every further change, so its background work
//     can no longer touch the files), and opens a new instance on the
//     same directory, as a restart would: Pebble replays the WAL, so
//     every acknowledged write is there. While that fails (the disk is
//     still full) it retries with a backoff up to reopenBackoffMax. Once
//     it succeeds, writes resume, without a restart.
//   - Transactions begun on the old instance fail to commit with
//     storage.ErrConflict, so the engine retries them on the new one.
//   - The broken instance is not closed in place (its Close may wait on
//     the mutex Pebble left locked): it is closed in the background and
//     abandoned if that never returns; Pebble's background goroutines
//     that report errors for it are stopped.
//
// The Store, not Pebble, holds the directory's lock (dirLock), across
// instances, so that a second process is refused at once with its pid.
// The rejected alternative, checking free space before each write, can
// only guess what Pebble's flushes and compactions will need, and does
// nothing for an I/O error.
package pebble

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/dynago/dynago/internal/storage"
)

var (
	_ storage.Store          = (*Store)(nil)
	_ storage.HealthReporter = (*Store)(nil)
)

// Options configure a Store. The zero value means an on-disk store in Dir
// with defaults.
type Options struct {
	// Dir is the data directory; ignored when InMemory is set.
	Dir string
	// InMemory keeps everything on Pebble's in-memory filesystem; nothing
	// is written to disk and nothing survives Close.
	InMemory bool
	// FS, when set, is the filesystem Dir lives on instead of the
	// operating system's (with InMemory, instead of a new in-memory
	// one). It is for fault injection in tests, e.g. Pebble's
	// vfs/errorfs over vfs.NewMem(). The directory lock is then FS's.
	FS vfs.FS
	// Logger receives Pebble's log lines (Info at debug level) and the
	// store's fault reports. Nil means slog.Default().
	Logger *slog.Logger
	// CacheBytes is the block cache size; 0 means 64 MiB. The cache
	// takes memory only as blocks are read.
	CacheBytes int64
	// MemTableBytes is the largest memtable; 0 means 64 MiB. Pebble
	// starts with 256 KiB memtables and doubles them up to this.
	MemTableBytes int64
	// ReadCached, when set, chooses the keys kept in the read cache (see
	// the package documentation). At most 10,000 of them are cached.
	ReadCached func(key []byte) bool
}

// Store is a storage.Store on Pebble. It is safe for concurrent use.
type Store struct {
	dir        string
	fs         vfs.FS // beneath each instance's guardFS
	lock       io.Closer
	cache      *pebble.Cache
	log        *slog.Logger
	memTable   int64
	readCached func(key []byte) bool

	closed atomic.Bool
	seq    atomic.Uint64 // last committed sequence number, across instances
	// stamp is the last commit stamp issued; written under the commit
	// lock once its batch is applied, so StampHorizon reads it without
	// the lock.
	stamp atomic.Uint64

	// written is set by each applied batch and cleared by ReleaseMemory.
	written atomic.Bool

	cur     atomic.Pointer[instance] // the instance serving reads and writes
	reopens atomic.Int64             // instances replaced after a fault

	wake       chan struct{} // an instance broke (buffered, 1)
	stop       chan struct{} // closed by Close
	keeperDone chan struct{}
}

// instance is one open Pebble database of a Store; a Store replaces its
// instance after a fault (see the package documentation).
type instance struct {
	s   *Store
	db  *pebble.DB
	fs  *guardFS
	sem chan struct{} // the commit lock (capacity 1)

	mu      sync.Mutex        // guards what follows; never held across a Pebble call
	recent  map[string]uint64 // key → sequence number of its last write
	horizon uint64            // writes at or before this were dropped from recent
	retired bool              // replaced: its commits publish nothing
	cache   sync.Map          // string key → cached; written only with mu held
	cached  int               // entries in cache

	pending pendingWrites // applied batches not yet synced

	broken    chan struct{} // closed when the instance breaks
	breakOnce sync.Once
	cause     error // why it broke; set before broken is closed
	lastLog   atomic.Int64
	// opened is set once pebble.Open has returned: until then a failed
	// flush does not break the instance (Open waits for it; see
	// backgroundError).
	opened  atomic.Bool
	backoff atomic.Int64 // pause after a background error while opening, in ns
	// While the store's first Open runs (see openInstance): when the
	// first background error was met (unix ns), where to report that
	// opening goes on failing, and closed once the open is given up.
	first      bool
	firstErr   atomic.Int64
	giveUp     chan error
	giveUpOnce sync.Once
	abandoned  chan struct{}
}

// cached is a read-cache entry: the latest committed value of a key, or
// its absence.
type cached struct {
	value  []byte // never modified; callers get a copy
	absent bool
}

// readCacheLimit bounds the read cache: past it, new keys are not cached.
const readCacheLimit = 10_000

const (
	recentLimit = 200_000
	recentKeep  = 100_000
)

// Fault handling times.
const (
	// commitLockWait is the longest a write waits for the commit lock
	// before it is answered with storage.ErrUnavailable (it is held for
	// microseconds unless Pebble is stalled).
	commitLockWait = 2 * time.Second
	// reopenBackoffMax is the longest pause between attempts to reopen
	// a broken store.
	reopenBackoffMax = 5 * time.Second
	// closeWait is how long Close waits for Pebble to close before it
	// abandons the database (fenced) and returns.
	closeWait = 5 * time.Second
)

// openGiveUp is how long Open goes on when opening meets errors (the
// write-ahead log it replayed cannot be flushed: a full disk) before it
// fails, rather than wait for space without a word. A reopen after a fault
// waits for as long as it takes instead. A variable for tests.
var openGiveUp = 10 * time.Second

// Open opens (creating if needed) a Store. An on-disk directory another
// process has open is refused with an error wrapping ErrLocked.
func Open(opts Options) (*Store, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	cacheBytes := opts.CacheBytes
	if cacheBytes == 0 {
		cacheBytes = 64 << 20
	}
	memTable := opts.MemTableBytes
	if memTable == 0 {
		// A 64 MiB memtable (CockroachDB's choice; Pebble's default is
		// 4 MiB) flushes sixteen times less often under a steady write
		// load, so fewer L0 files are compacted and probed by reads.
		// Its arena is reserved, not touched, until written.
		memTable = 64 << 20
	}
	s := &Store{
		dir: opts.Dir, fs: opts.FS, log: logger, memTable: memTable, readCached: opts.ReadCached,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), keeperDone: make(chan struct{}),
	}
	switch {
	case opts.InMemory && s.fs == nil:
		s.fs, s.dir = vfs.NewMem(), ""
	case opts.InMemory:
		s.dir = ""
	case s.fs == nil:
		s.fs = vfs.Default
		l, err := lockDir(s.dir)
		if err != nil {
			return nil, err
		}
		s.lock = l
	default:
		if err := s.fs.MkdirAll(s.dir, 0o755); err != nil {
			return nil, err
		}
		l, err := s.fs.Lock(s.fs.PathJoin(s.dir, "LOCK"))
		if err != nil {
			return nil, lockedError(fmt.Sprintf("data directory %s is in use (%v)", s.dir, err))
		}
		s.lock = l
	}
	s.cache = pebble.NewCache(cacheBytes)
	in, err := s.openGuarded(true)
	if err != nil {
		s.cache.Unref()
		if s.lock != nil {
			s.lock.Close()
		}
		return nil, fmt.Errorf("open pebble at %q: %w", s.dir, err)
	}
	s.cur.Store(in)
	go s.keep()
	return s, nil
}

// openGuarded runs openInstance and gives it up (the open itself, stuck
// in Pebble, is fenced and left) when Pebble reports a fatal error while
// opening, after which its Open never returns, and, for the store's first
// open, after openGiveUp of background errors.
func (s *Store) openGuarded(first bool) (*instance, error) {
	type result struct {
		in  *instance
		err error
	}
	giveUp, abandoned := make(chan error, 1), make(chan struct{})
	done := make(chan result, 1)
	go func() {
		in, err := s.openInstance(first, giveUp, abandoned)
		done <- result{in, err}
	}()
	select {
	case r := <-done:
		return r.in, r.err
	case err := <-giveUp:
		close(abandoned)
		msg, _, _ := strings.Cut(err.Error(), "\n")
		if !first {
			return nil, fmt.Errorf("opening failed: %s", msg)
		}
		return nil, fmt.Errorf("opening has failed for %v, last with: %s (is the disk full? free space in %s and start again)", openGiveUp, msg, s.dir)
	}
}

// openInstance opens a Pebble database on the store's directory, through
// a new guardFS. Pebble's panics while opening are recovered as errors.
//
// giveUp and abandoned are openGuarded's; first marks the store's first
// open.
func (s *Store) openInstance(first bool, giveUp chan error, abandoned chan struct{}) (_ *instance, err error) {
	in := &instance{s: s, fs: newGuardFS(s.fs), sem: make(chan struct{}, 1),
		recent: make(map[string]uint64), broken: make(chan struct{}), first: first, giveUp: giveUp, abandoned: abandoned}
	po := &pebble.Options{
		Cache:        s.cache,
		FS:           in.fs,
		Logger:       pebbleLogger{s.log, in},
		MemTableSize: uint64(s.memTable),
		EventListener: &pebble.EventListener{
			BackgroundError: in.backgroundError,
			FlushEnd: func(info pebble.FlushInfo) {
				if info.Err != nil && in.opened.Load() && !errors.Is(info.Err, errFenced) {
					in.fail(fmt.Errorf("flush: %w", info.Err))
				}
			},
		},
	}
	// Bloom filters on every level: most writes read the key they replace,
	// and for a new key the filter answers "absent" without reading a data
	// block.
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("pebble panicked: %v", p)
		}
		if err != nil {
			in.fs.fence() // whatever Open left running writes nothing more
		}
	}()
	db, err := pebble.Open(s.dir, po)
	if err != nil {
		return nil, err
	}
	in.db = db
	in.opened.Store(true)
	switch v, err := get(db, stampKey); {
	case errors.Is(err, storage.ErrNotFound):
	case err != nil:
		db.Close()
		return nil, fmt.Errorf("read commit stamp: %w", err)
	case len(v) != 8:
		db.Close()
		return nil, fmt.Errorf("corrupt commit stamp %x", v)
	default:
		// After a reopen the counter may be ahead of what was durable:
		// stamps only need to increase.
		s.stamp.Store(max(s.stamp.Load(), binary.BigEndian.Uint64(v)))
	}
	in.horizon = s.seq.Load()
	return in, nil
}

// stampKey holds the last commit stamp issued (8 bytes, big-endian).
var stampKey = []byte("\x00stamp")

// StampHorizon returns the last commit stamp issued, which is at least
// any stamp a reader has seen: stamps are issued and their batches
// applied under the commit lock, and the stamp is published only after
// its batch is applied, so every stamp up to it is already visible. It
// never waits.
func (s *Store) StampHorizon(ctx context.Context, need uint64) (uint64, error) {
	return s.stamp.Load(), nil
}

// Health returns nil while the store accepts writes; after a storage
// fault, until the store has reopened itself, an error wrapping
// storage.ErrUnavailable that names the fault.
func (s *Store) Health() error {
	if s.closed.Load() {
		return fmt.Errorf("%w: store closed", storage.ErrUnavailable)
	}
	if in := s.cur.Load(); in.isBroken() {
		return in.cause
	}
	return nil
}

// ReleaseMemory gives back the memory an idle on-disk store holds for
// writes: when batches were applied since its last call, it flushes the
// memtable (up to Options.MemTableBytes, its writes already durable in the
// WAL) to an sstable, after which Pebble frees the arenas of the flushed
// memtables; the new memtable's is allocated but not written, so it takes
// no resident memory until writes come. An in-memory store keeps its
// memtable, which holds its data. It blocks until the flush is done and
// returns the flush's error. Callers use it after a quiet period (dynago
// serve: 10 s without a request); under writes it only adds flushes.
func (s *Store) ReleaseMemory() error {
	if s.dir == "" || s.closed.Load() || !s.written.Swap(false) {
		return nil
	}
	in := s.cur.Load()
	if in.isBroken() {
		return nil
	}
	if err := in.db.Flush(); err != nil {
		s.written.Store(true)
		return err
	}
	return nil
}

// Reopens returns how many times the store has replaced its Pebble
// database after a storage fault.
func (s *Store) Reopens() int64 { return s.reopens.Load() }

// Close closes the database. A second Close returns an error. It returns
// within a few seconds whatever state storage is in: a database broken
// by a fault, or one that does not close within closeWait, is fenced and
// abandoned instead (its acknowledged writes are in its WAL).
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return errors.New("pebble: store already closed")
	}
	close(s.stop)
	select {
	case <-s.keeperDone:
	case <-time.After(closeWait):
		s.log.Warn("storage: the reopening of a broken store did not stop; closing anyway")
	}
	in := s.cur.Load()
	var err error
	if in.isBroken() {
		err = in.cause
		in.abandon(false)
	} else {
		err = in.close()
	}
	s.cache.Unref()
	if s.lock != nil {
		if lerr := s.lock.Close(); err == nil {
			err = lerr
		}
	}
	return err
}

// Begin starts a transaction.
func (s *Store) Begin(ctx context.Context, mode storage.Mode) (storage.Txn, error) {
	if s.closed.Load() {
		return nil, errors.New("pebble: store closed")
	}
	in := s.cur.Load()
	switch mode {
	case storage.ReadOnly:
		return &roTxn{in: in, cached: true, r: in.db}, nil
	case storage.Snapshot:
		snap := in.db.NewSnapshot()
		return &roTxn{in: in, r: snap, snap: snap}, nil
	}
	return &rwTxn{s: s, in: in, start: s.seq.Load()}, nil
}

// DeleteRange removes [lower, upper) durably.
//
// It is not tracked key by key: it moves the horizon past every running
// transaction, so those that read anything retry, and no read begun
// before it fills the read cache.
func (s *Store) DeleteRange(ctx context.Context, lower, upper []byte) error {
	if s.closed.Load() {
		return errors.New("pebble: store closed")
	}
	in := s.cur.Load()
	b := in.db.NewBatch()
	if err := b.DeleteRange(lower, upper, nil); err != nil {
		b.Close()
		return err
	}
	return in.commit(&rwTxn{s: s, in: in, start: s.seq.Load(), batch: b,
		ranges: [][2][]byte{{append([]byte(nil), lower...), append([]byte(nil), upper...)}}})
}

// cacheable reports whether key belongs in the read cache.
func (s *Store) cacheable(key []byte) bool {
	return s.readCached != nil && s.readCached(key)
}

// get reads key's latest committed value once it is durable (a batch in
// flight that wrote key is waited for).
func (in *instance) get(key []byte) ([]byte, error) {
	v, err := in.getLatest(key)
	if werr := in.await(in.pending.forKey(key)); werr != nil {
		return nil, werr
	}
	return v, err
}

// getLatest reads key's latest visible value, through the read cache for
// cacheable keys.
func (in *instance) getLatest(key []byte) ([]byte, error) {
	s := in.s
	if !s.cacheable(key) {
		return get(in.db, key)
	}
	if c, ok := in.cache.Load(string(key)); ok {
		e := c.(cached)
		if e.absent {
			return nil, storage.ErrNotFound
		}
		return append([]byte(nil), e.value...), nil
	}
	before := s.seq.Load()
	v, err := get(in.db, key)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, err
	}
	in.fill(key, v, before)
	return v, err
}

// fill caches key's value v, read from the database after sequence
// number before, unless a commit has written key since.
func (in *instance) fill(key, v []byte, before uint64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	// Fill only if no commit wrote key since the read began (a write
	// dropped from recent is older than horizon).
	if seq, written := in.recent[string(key)]; written && seq > before {
		return
	}
	if in.horizon > before || in.cached >= readCacheLimit {
		return
	}
	if _, ok := in.cache.Load(string(key)); !ok {
		in.cache.Store(string(key), cached{value: append([]byte(nil), v...), absent: v == nil})
		in.cached++
	}
}
