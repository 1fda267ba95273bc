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
// recentLimit keys, entries older than the newest recentKeep commits are
// dropped and a transaction that began before the dropped horizon is
// treated as conflicting (it simply retries). The rejected alternative, a
// lock per key held from read to commit, would put DynamoDB semantics on
// in-process locks that a second node could not see.
//
// Read-only transactions read a Pebble snapshot.
package pebble

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
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
	// CacheBytes is the block cache size; 0 means 8 MiB.
	CacheBytes int64
}

// Store is a storage.Store on Pebble. It is safe for concurrent use.
type Store struct {
	db     *pebble.DB
	closed atomic.Bool

	seq atomic.Uint64 // last committed sequence number

	mu      sync.Mutex
	recent  map[string]uint64 // key → sequence number of its last write
	horizon uint64            // writes at or before this were dropped from recent
}

const (
	recentLimit = 200_000
	recentKeep  = 50_000
)

// Open opens (creating if needed) a Store.
func Open(opts Options) (*Store, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	cacheBytes := opts.CacheBytes
	if cacheBytes == 0 {
		cacheBytes = 8 << 20
	}
	cache := pebble.NewCache(cacheBytes)
	defer cache.Unref()
	po := &pebble.Options{
		Cache:  cache,
		Logger: pebbleLogger{logger},
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
	return &Store{db: db, recent: make(map[string]uint64)}, nil
}

// Close closes the database. A second Close returns an error.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return errors.New("pebble: store already closed")
	}
	return s.db.Close()
}

// Begin starts a transaction.
func (s *Store) Begin(ctx context.Context, readOnly bool) (storage.Txn, error) {
	if s.closed.Load() {
		return nil, errors.New("pebble: store closed")
	}
	if readOnly {
		return &roTxn{snap: s.db.NewSnapshot()}, nil
	}
	return &rwTxn{s: s, start: s.seq.Load()}, nil
}

// DeleteRange removes [lower, upper) durably.
func (s *Store) DeleteRange(ctx context.Context, lower, upper []byte) error {
	return s.db.DeleteRange(lower, upper, pebble.Sync)
}

// commit validates t's read set and applies its batch.
func (s *Store) commit(t *rwTxn) error {
	s.mu.Lock()
	if t.start < s.horizon && len(t.reads) > 0 {
		s.mu.Unlock()
		return storage.ErrConflict
	}
	for k := range t.reads {
		if seq, ok := s.recent[k]; ok && seq > t.start {
			s.mu.Unlock()
			return storage.ErrConflict
		}
	}
	if err := s.db.ApplyNoSyncWait(t.batch, pebble.Sync); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("pebble apply: %w", err)
	}
	seq := s.seq.Load() + 1
	for k := range t.writes {
		s.recent[k] = seq
	}
	s.seq.Store(seq)
	if len(s.recent) > recentLimit {
		s.prune(seq)
	}
	s.mu.Unlock()
	return t.batch.SyncWait()
}

// prune drops old entries from recent. Called with mu held.
func (s *Store) prune(seq uint64) {
	if seq <= recentKeep {
		return
	}
	h := seq - recentKeep
	for k, v := range s.recent {
		if v <= h {
			delete(s.recent, k)
		}
	}
	s.horizon = h
}

// rwTxn is a read-write transaction.
type rwTxn struct {
	s      *Store
	start  uint64
	reads  map[string]struct{}
	writes map[string]struct{}
	batch  *pebble.Batch // indexed, so Get sees own writes
	done   bool
}

func (t *rwTxn) Get(key []byte) ([]byte, error) {
	if t.done {
		return nil, errors.New("pebble: transaction finished")
	}
	if t.reads == nil {
		t.reads = make(map[string]struct{}, 4)
	}
	t.reads[string(key)] = struct{}{}
	var (
		v      []byte
		closer interface{ Close() error }
		err    error
	)
	if t.batch != nil {
		v, closer, err = t.batch.Get(key)
	} else {
		v, closer, err = t.s.db.Get(key)
	}
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

func (t *rwTxn) Scan(lower, upper []byte, reverse bool) (storage.Iterator, error) {
	if t.done {
		return nil, errors.New("pebble: transaction finished")
	}
	it, err := t.s.db.NewIter(iterOptions(lower, upper))
	if err != nil {
		return nil, err
	}
	return &iterator{it: it, reverse: reverse}, nil
}

func (t *rwTxn) ensureBatch() {
	if t.batch == nil {
		t.batch = t.s.db.NewIndexedBatch()
		t.writes = make(map[string]struct{}, 4)
	}
}

func (t *rwTxn) Set(key, value []byte) error {
	if t.done {
		return errors.New("pebble: transaction finished")
	}
	t.ensureBatch()
	t.writes[string(key)] = struct{}{}
	return t.batch.Set(key, value, nil)
}

func (t *rwTxn) Delete(key []byte) error {
	if t.done {
		return errors.New("pebble: transaction finished")
	}
	t.ensureBatch()
	t.writes[string(key)] = struct{}{}
	return t.batch.Delete(key, nil)
}

func (t *rwTxn) Commit() error {
	if t.done {
		return errors.New("pebble: transaction finished")
	}
	t.done = true
	if t.batch == nil || t.batch.Empty() {
		return nil
	}
	err := t.s.commit(t)
	t.batch.Close()
	t.batch = nil
	return err
}

func (t *rwTxn) Rollback() {
	if t.done {
		return
	}
	t.done = true
	if t.batch != nil {
		t.batch.Close()
		t.batch = nil
	}
}

// roTxn is a read-only transaction on a snapshot.
type roTxn struct {
	snap *pebble.Snapshot
}

func (t *roTxn) Get(key []byte) ([]byte, error) {
	if t.snap == nil {
		return nil, errors.New("pebble: transaction finished")
	}
	v, closer, err := t.snap.Get(key)
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

func (t *roTxn) Scan(lower, upper []byte, reverse bool) (storage.Iterator, error) {
	if t.snap == nil {
		return nil, errors.New("pebble: transaction finished")
	}
	it, err := t.snap.NewIter(iterOptions(lower, upper))
	if err != nil {
		return nil, err
	}
	return &iterator{it: it, reverse: reverse}, nil
}

func (t *roTxn) Set(key, value []byte) error { return storage.ErrReadOnly }
func (t *roTxn) Delete(key []byte) error     { return storage.ErrReadOnly }

func (t *roTxn) Commit() error {
	t.Rollback()
	return nil
}

func (t *roTxn) Rollback() {
	if t.snap != nil {
		t.snap.Close()
		t.snap = nil
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
func (i *iterator) Close() error  { return i.it.Close() }

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
