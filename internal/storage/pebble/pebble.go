// Package pebble implements storage.Store on cockroachdb/pebble, on disk or
// on Pebble's in-memory filesystem.
//
// # Transactions
//
// Read-write transactions are optimistic. Each one records the commit
// sequence number current when it began (its start); Get reads the live
// database and remembers the key. Commit, under one short mutex, checks
// every remembered key against a table of the keys written by recent
// commits: if one was written by a commit newer than the start, the
// transaction fails with storage.ErrConflict. Otherwise the batch is
// applied to the memtable (visible to later readers) with
// DB.ApplyNoSyncWait, the written keys are stamped with a new sequence
// number, the mutex is released, and the committer waits for the WAL fsync
// outside the mutex, so concurrent writers share fsyncs (group commit).
// A write is acknowledged only when its WAL record is synced. As in Pebble
// itself, a reader may see a write a few microseconds before it is synced.
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
// SetStamped keys get their stamp inside the commit mutex, right before
// the batch is applied, from a counter that the same batch persists at
// the reserved key "\x00stamp"; Open reads it back. Batches are applied
// in mutex order, so stamps become visible in increasing order.
//
// # Read cache
//
// Keys chosen by Options.ReadCached (for dynago, the catalog: small, read
// by every request, rarely written) are also kept in memory, so that
// point reads of them by read-write and ReadOnly transactions skip
// Pebble's read path. The cache holds the latest committed value, exactly what those
// transactions would read from the DB: commit replaces a written key's
// entry under the commit mutex, right after the batch is applied, and a
// reader fills an entry only if no commit has written the key since its
// own read began. A read-write transaction still records the key in its
// read set, so conflicts are detected as before.
package pebble

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/dynago/dynago/internal/storage"
)

var _ storage.Store = (*Store)(nil)

// Options configure a Store. The zero value means an on-disk store in Dir
// with defaults.
type Options struct {
	// Dir is the data directory; ignored when InMemory is set.
	Dir string
	// InMemory keeps everything on Pebble's in-memory filesystem; nothing
	// is written to disk and nothing survives Close.
	InMemory bool
	// Logger receives Pebble's log lines (Info at debug level). Nil means
	// slog.Default().
	Logger *slog.Logger
	// CacheBytes is the block cache size; 0 means 64 MiB. The cache
	// takes memory only as blocks are read.
	CacheBytes int64
	// ReadCached, when set, chooses the keys kept in the read cache (see
	// the package documentation). At most 10,000 of them are cached.
	ReadCached func(key []byte) bool
}

// Store is a storage.Store on Pebble. It is safe for concurrent use.
type Store struct {
	db     *pebble.DB
	closed atomic.Bool

	seq atomic.Uint64 // last committed sequence number

	mu      sync.Mutex
	recent  map[string]uint64 // key → sequence number of its last write
	horizon uint64            // writes at or before this were dropped from recent

	// stamp is the last commit stamp issued; written under mu once its
	// batch is applied, so StampHorizon reads it without the mutex.
	stamp atomic.Uint64

	readCached func(key []byte) bool
	cache      sync.Map // string key → cached; written only with mu held
	cached     int      // entries in cache; guarded by mu
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

// Open opens (creating if needed) a Store.
func Open(opts Options) (*Store, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	cacheBytes := opts.CacheBytes
	if cacheBytes == 0 {
		cacheBytes = 64 << 20
	}
	cache := pebble.NewCache(cacheBytes)
	defer cache.Unref()
	po := &pebble.Options{
		Cache:  cache,
		Logger: pebbleLogger{logger},
		// A 64 MiB memtable (CockroachDB's choice; Pebble's default is
		// 4 MiB) flushes sixteen times less often under a steady write
		// load, so fewer L0 files are compacted and probed by reads.
		// Its arena is reserved, not touched, until written.
		MemTableSize: 64 << 20,
	}
	// Bloom filters on every level: most writes read the key they replace,
	// and for a new key the filter answers "absent" without reading a data
	// block.
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	dir := opts.Dir
	if opts.InMemory {
		po.FS = vfs.NewMem()
		dir = ""
	}
	db, err := pebble.Open(dir, po)
	if err != nil {
		return nil, fmt.Errorf("open pebble at %q: %w", dir, err)
	}
	s := &Store{db: db, recent: make(map[string]uint64), readCached: opts.ReadCached}
	switch v, err := get(db, stampKey); {
	case errors.Is(err, storage.ErrNotFound):
	case err != nil:
		db.Close()
		return nil, fmt.Errorf("read commit stamp: %w", err)
	case len(v) != 8:
		db.Close()
		return nil, fmt.Errorf("corrupt commit stamp %x", v)
	default:
		s.stamp.Store(binary.BigEndian.Uint64(v))
	}
	return s, nil
}

// stampKey holds the last commit stamp issued (8 bytes, big-endian).
var stampKey = []byte("\x00stamp")

// StampHorizon returns the last commit stamp issued, which is at least
// any stamp a reader has seen: stamps are issued and their batches
// applied under the commit mutex, and the stamp is published only after
// its batch is applied, so every stamp up to it is already visible. It
// never waits.
func (s *Store) StampHorizon(ctx context.Context, need uint64) (uint64, error) {
	return s.stamp.Load(), nil
}

// Close closes the database. A second Close returns an error.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return errors.New("pebble: store already closed")
	}
	return s.db.Close()
}

// Begin starts a transaction.
func (s *Store) Begin(ctx context.Context, mode storage.Mode) (storage.Txn, error) {
	if s.closed.Load() {
		return nil, errors.New("pebble: store closed")
	}
	switch mode {
	case storage.ReadOnly:
		return &roTxn{s: s, r: s.db}, nil
	case storage.Snapshot:
		snap := s.db.NewSnapshot()
		return &roTxn{r: snap, snap: snap}, nil
	}
	return &rwTxn{s: s, start: s.seq.Load()}, nil
}

// DeleteRange removes [lower, upper) durably.
//
// It is not tracked key by key: it moves the horizon past every running
// transaction, so those that read anything retry, and no read begun
// before it fills the read cache.
func (s *Store) DeleteRange(ctx context.Context, lower, upper []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.db.DeleteRange(lower, upper, pebble.Sync)
	s.cache.Range(func(k, _ any) bool {
		if key := k.(string); key >= string(lower) && (len(upper) == 0 || key < string(upper)) {
			s.cache.Delete(k)
			s.cached--
		}
		return true
	})
	seq := s.seq.Load() + 1
	s.seq.Store(seq)
	s.horizon = seq
	return err
}

// cacheable reports whether key belongs in the read cache.
func (s *Store) cacheable(key []byte) bool {
	return s.readCached != nil && s.readCached(key)
}

// get reads key's latest committed value, through the read cache for
// cacheable keys.
func (s *Store) get(key []byte) ([]byte, error) {
	if !s.cacheable(key) {
		return get(s.db, key)
	}
	if c, ok := s.cache.Load(string(key)); ok {
		e := c.(cached)
		if e.absent {
			return nil, storage.ErrNotFound
		}
		return append([]byte(nil), e.value...), nil
	}
	before := s.seq.Load()
	v, err := get(s.db, key)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, err
	}
	s.mu.Lock()
	// Fill only if no commit wrote key since the read began (a write
	// dropped from recent is older than horizon).
	if seq, written := s.recent[string(key)]; !written || seq <= before {
		if s.horizon <= before && s.cached < readCacheLimit {
			if _, ok := s.cache.Load(string(key)); !ok {
				s.cache.Store(string(key), cached{value: append([]byte(nil), v...), absent: v == nil})
				s.cached++
			}
		}
	}
	s.mu.Unlock()
	return v, err
}

// commit validates t's read set and applies its batch.
func (s *Store) commit(t *rwTxn) error {
	s.mu.Lock()
	if t.start < s.horizon && len(t.reads) > 0 {
		s.mu.Unlock()
		return storage.ErrConflict
	}
	for _, k := range t.reads {
		if seq, ok := s.recent[k]; ok && seq > t.start {
			s.mu.Unlock()
			return storage.ErrConflict
		}
	}
	stamp := s.stamp.Load()
	if len(t.stamped) > 0 {
		stamp++
		var st [storage.StampLen]byte
		binary.BigEndian.PutUint64(st[:], stamp)
		for i, w := range t.stamped {
			binary.BigEndian.PutUint16(st[8:], uint16(i))
			key := make([]byte, 0, len(w.prefix)+len(st)+len(w.suffix))
			key = append(append(append(key, w.prefix...), st[:]...), w.suffix...)
			if err := t.batch.Set(key, w.value, nil); err != nil {
				s.mu.Unlock()
				return err
			}
		}
		if err := t.batch.Set(stampKey, st[:8], nil); err != nil {
			s.mu.Unlock()
			return err
		}
	}
	if err := s.db.ApplyNoSyncWait(t.batch, pebble.Sync); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("pebble apply: %w", err)
	}
	s.stamp.Store(stamp)
	seq := s.seq.Load() + 1
	for _, w := range t.writes {
		s.recent[w.key] = seq
		if s.cacheable([]byte(w.key)) {
			if _, ok := s.cache.Load(w.key); ok {
				// Replace, not delete: the entry is current again at once.
				s.cache.Store(w.key, cached{value: w.value, absent: w.delete})
			}
		}
	}
	s.seq.Store(seq)
	if len(s.recent) > recentLimit {
		s.prune()
	}
	s.mu.Unlock()
	return t.batch.SyncWait()
}

// prune drops the oldest entries of recent until at most recentKeep
// remain, and moves the horizon past them. Called with mu held, when
// recent has grown past recentLimit: it then frees at least
// recentLimit-recentKeep entries, so its cost per commit stays constant.
func (s *Store) prune() {
	seqs := make([]uint64, 0, len(s.recent))
	for _, v := range s.recent {
		seqs = append(seqs, v)
	}
	slices.Sort(seqs)
	h := seqs[len(seqs)-recentKeep-1] // keep only entries newer than h
	for k, v := range s.recent {
		if v <= h {
			delete(s.recent, k)
		}
	}
	s.horizon = max(s.horizon, h)
}

// reader is what transactions read from: the DB or a snapshot.
type reader interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIter(o *pebble.IterOptions) (*pebble.Iterator, error)
}

func get(r reader, key []byte) ([]byte, error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, storage.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), v...)
	closer.Close()
	return out, nil
}

func scan(r reader, lower, upper []byte, reverse bool) (storage.Iterator, error) {
	it, err := r.NewIter(iterOptions(lower, upper))
	if err != nil {
		return nil, err
	}
	return &iterator{it: it, reverse: reverse}, nil
}

// write is one buffered write of a read-write transaction.
type write struct {
	key    string
	value  []byte
	delete bool
}

// stampedWrite is a SetStamped call, keyed when the stamp is known.
type stampedWrite struct {
	prefix, suffix, value []byte
}

// rwTxn is a read-write transaction. Transactions are small (one item, or
// a batch of at most a hundred), so the read and write sets are slices.
type rwTxn struct {
	s       *Store
	start   uint64
	reads   []string
	writes  []write
	stamped []stampedWrite
	batch   *pebble.Batch
	done    bool
}

var errFinished = errors.New("pebble: transaction finished")

// ownWrite returns the transaction's last buffered write of key.
func (t *rwTxn) ownWrite(key []byte) (write, bool) {
	for i := len(t.writes) - 1; i >= 0; i-- {
		if t.writes[i].key == string(key) {
			return t.writes[i], true
		}
	}
	return write{}, false
}

func (t *rwTxn) Get(key []byte) ([]byte, error) {
	if t.done {
		return nil, errFinished
	}
	if w, ok := t.ownWrite(key); ok {
		if w.delete {
			return nil, storage.ErrNotFound
		}
		return append([]byte(nil), w.value...), nil
	}
	t.reads = append(t.reads, string(key))
	return t.s.get(key)
}

func (t *rwTxn) Scan(lower, upper []byte, reverse bool) (storage.Iterator, error) {
	if t.done {
		return nil, errFinished
	}
	return scan(t.s.db, lower, upper, reverse)
}

func (t *rwTxn) Set(key, value []byte) error {
	if t.done {
		return errFinished
	}
	t.writes = append(t.writes, write{key: string(key), value: append([]byte(nil), value...)})
	return nil
}

func (t *rwTxn) SetStamped(prefix, suffix, value []byte) error {
	if t.done {
		return errFinished
	}
	if len(t.stamped) == 1<<16 {
		return storage.ErrTooManyStamped
	}
	t.stamped = append(t.stamped, stampedWrite{
		prefix: append([]byte(nil), prefix...),
		suffix: append([]byte(nil), suffix...),
		value:  append([]byte(nil), value...),
	})
	return nil
}

func (t *rwTxn) Delete(key []byte) error {
	if t.done {
		return errFinished
	}
	t.writes = append(t.writes, write{key: string(key), delete: true})
	return nil
}

func (t *rwTxn) Commit() error {
	if t.done {
		return errFinished
	}
	t.done = true
	if len(t.writes) == 0 && len(t.stamped) == 0 {
		return nil
	}
	t.batch = t.s.db.NewBatch()
	defer t.batch.Close()
	for _, w := range t.writes {
		var err error
		if w.delete {
			err = t.batch.Delete([]byte(w.key), nil)
		} else {
			err = t.batch.Set([]byte(w.key), w.value, nil)
		}
		if err != nil {
			return err
		}
	}
	return t.s.commit(t)
}

func (t *rwTxn) Rollback() { t.done = true }

// roTxn is a ReadOnly (r is the DB, s is set) or Snapshot (r is snap)
// transaction.
type roTxn struct {
	s    *Store // ReadOnly only: reads go through its read cache
	r    reader
	snap *pebble.Snapshot
	done bool
}

func (t *roTxn) Get(key []byte) ([]byte, error) {
	if t.done {
		return nil, errFinished
	}
	if t.s != nil {
		return t.s.get(key)
	}
	return get(t.r, key)
}

func (t *roTxn) Scan(lower, upper []byte, reverse bool) (storage.Iterator, error) {
	if t.done {
		return nil, errFinished
	}
	return scan(t.r, lower, upper, reverse)
}

func (t *roTxn) Set(key, value []byte) error { return storage.ErrReadOnly }
func (t *roTxn) Delete(key []byte) error     { return storage.ErrReadOnly }
func (t *roTxn) SetStamped(prefix, suffix, value []byte) error {
	return storage.ErrReadOnly
}

func (t *roTxn) Commit() error {
	t.Rollback()
	return nil
}

func (t *roTxn) Rollback() {
	if t.done {
		return
	}
	t.done = true
	if t.snap != nil {
		t.snap.Close()
	}
}

// iterOptions returns Pebble bounds; an empty bound means unbounded (Pebble
// rejects empty, non-nil bounds in its invariant checks).
func iterOptions(lower, upper []byte) *pebble.IterOptions {
	o := &pebble.IterOptions{}
	if len(lower) > 0 {
		o.LowerBound = lower
	}
	if len(upper) > 0 {
		o.UpperBound = upper
	}
	return o
}

// iterator adapts a Pebble iterator to storage.Iterator.
type iterator struct {
	it      *pebble.Iterator
	reverse bool
	started bool
	closed  bool
	err     error // Close's result, returned again by later calls
}

func (i *iterator) Next() bool {
	if !i.started {
		i.started = true
		if i.reverse {
			return i.it.Last()
		}
		return i.it.First()
	}
	if i.reverse {
		return i.it.Prev()
	}
	return i.it.Next()
}

func (i *iterator) Key() []byte   { return i.it.Key() }
func (i *iterator) Value() []byte { return i.it.Value() }

// Close closes the Pebble iterator once; later calls return the first
// call's result (Pebble recycles closed iterators, so closing one twice
// would hand it to two users).
func (i *iterator) Close() error {
	if !i.closed {
		i.closed, i.err = true, i.it.Close()
	}
	return i.err
}

// pebbleLogger sends Pebble's logging to slog.
type pebbleLogger struct{ l *slog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

func (p pebbleLogger) Fatalf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
	panic(fmt.Sprintf(format, args...))
}
