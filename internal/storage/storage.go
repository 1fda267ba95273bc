// Package storage is the narrow transactional key-value interface that
// dynago's engine consumes. Everything the engine stores — the table
// catalog, items, index entries — goes through a Txn, and every DynamoDB
// guarantee that spans reads and writes (conditional writes, read-modify-
// write of item counts, catalog changes) rests on Commit's conflict check,
// never on locks held outside this package. That is what lets a distributed
// engine (TiKV) sit behind the same interface with several stateless dynago
// nodes.
//
// # Contract
//
// A read-write transaction sees every transaction committed before it began
// and its own writes. Get records the key in the transaction's read set;
// Commit applies all buffered writes atomically and durably, or fails with
// ErrConflict if any key in the read set was written by another transaction
// that committed after this one began. Scan reads a consistent view of a
// key range but does not join the read set: it serves Query and Scan, which
// DynamoDB does not make serializable.
//
// A ReadOnly transaction cannot write; each of its reads sees the latest
// committed state, and each Scan one consistent view (what DynamoDB's
// GetItem, BatchGetItem, Query and Scan promise). A Snapshot transaction
// reads one consistent snapshot taken at Begin (for TransactGetItems).
//
// Keys and values passed in are copied; slices returned are owned by the
// caller (Get) or valid until the iterator moves (Iterator.Key/Value).
//
// Implementations: storage/pebble (embedded, on disk or in memory) and
// storage/tikv (a TiKV cluster, shared by any number of dynago nodes).
// The contract suite in storage/storagetest runs against each.
package storage

import (
	"context"
	"errors"
	"time"
)

// ErrConflict is returned by Commit when a key the transaction read was
// changed by a transaction that committed after it began. The caller
// retries the whole operation from Begin.
var ErrConflict = errors.New("storage: transaction conflict")

// ErrNotFound is returned by Get for a key with no value.
var ErrNotFound = errors.New("storage: not found")

// StampLen is the length of the stamp SetStamped inserts: an 8-byte
// commit stamp and a 2-byte position within the transaction.
const StampLen = 10

// ErrTooManyStamped is returned by SetStamped past 65,536 calls in one
// transaction.
var ErrTooManyStamped = errors.New("storage: too many stamped writes in one transaction")

// ErrReadOnly is returned when a ReadOnly or Snapshot transaction is asked
// to write.
var ErrReadOnly = errors.New("storage: read-only transaction")

// ErrUnavailable is wrapped by the errors of writes a store refuses
// because its storage failed (a full disk, an I/O error): the write was
// not applied, or its outcome is unknown if it was already on its way to
// disk. The engine answers it as DynamoDB answers a write it could not
// complete, 500 InternalServerError; the client may retry. A store that
// returns it reports why through HealthReporter until it accepts writes
// again.
var ErrUnavailable = errors.New("storage: unavailable")

// HealthReporter is implemented by stores that can refuse writes while
// still serving reads (storage/pebble after a disk fault, until it has
// reopened itself).
type HealthReporter interface {
	// Health returns nil while the store accepts writes, and otherwise
	// an error saying why not (it wraps ErrUnavailable).
	Health() error
}

// Mode selects a transaction's kind.
type Mode uint8

// Transaction modes.
const (
	// ReadWrite transactions read, write and commit or conflict.
	ReadWrite Mode = iota
	// ReadOnly transactions read the latest committed state, read by read.
	ReadOnly
	// Snapshot transactions read one snapshot taken at Begin.
	Snapshot
)

// Store opens transactions over one ordered key space.
type Store interface {
	// Begin starts a transaction. A ReadOnly or Snapshot transaction must
	// still be ended with Rollback (or Commit, which is then a no-op).
	Begin(ctx context.Context, mode Mode) (Txn, error)
	// DeleteRange removes every key in [lower, upper) outside any
	// transaction. It is for key spaces no transaction can reach any more
	// (the items of a deleted table); it is durable when it returns.
	DeleteRange(ctx context.Context, lower, upper []byte) error
	// StampHorizon returns a commit stamp h such that every SetStamped
	// write with a stamp at most h that ever commits is visible to
	// transactions begun after the call returns, and h is at least need:
	// a reader that has seen stamp s and passes it as need is told when
	// everything below s has settled. A reader of stamped keys that
	// ignores stamps above h never sees a stamp appear behind one it has
	// read. It may wait (TiKV waits up to its stamp window for a recent
	// need; need 0 never waits).
	StampHorizon(ctx context.Context, need uint64) (uint64, error)
	// Close releases the store. Transactions must be ended first. Calling
	// Close twice returns an error and does nothing else.
	Close() error
}

// GarbageCollector is implemented by stores that keep old versions of
// keys until told to drop them (TiKV's MVCC). The engine calls it from
// one node of a cluster at a time.
type GarbageCollector interface {
	// CollectGarbage drops versions older than keep that no reader
	// needs any more.
	CollectGarbage(ctx context.Context, keep time.Duration) error
}

// Txn is one transaction. It is not safe for concurrent use.
type Txn interface {
	// Get returns a copy of key's value, or ErrNotFound. It sees the
	// transaction's own writes. In a read-write transaction the key joins
	// the read set.
	Get(key []byte) ([]byte, error)
	// Scan iterates keys in [lower, upper) in ascending order, or
	// descending when reverse is set, over the state the transaction began
	// with (not its own writes). An empty lower or upper bound means
	// unbounded on that side. The iterator must be closed.
	Scan(lower, upper []byte, reverse bool) (Iterator, error)
	// Set buffers a write of value at key.
	Set(key, value []byte) error
	// Delete buffers a deletion of key.
	Delete(key []byte) error
	// SetStamped buffers a write of value at prefix | stamp | suffix. The
	// stamp is StampLen bytes: the transaction's commit stamp (8 bytes,
	// big-endian, chosen at Commit) and then the call's position among
	// the transaction's SetStamped calls (2 bytes, big-endian, from 0; at
	// most 65,536 calls). Commit stamps increase across the whole store
	// and across restarts, in commit order for any two transactions that
	// share a key (one writes it, the other reads or writes it), and a
	// reader that ignores stamps above Store.StampHorizon never finds a
	// gap filled in behind the keys it has read. Stamped keys are not
	// visible to the transaction's own Get. This is what orders stream
	// records (FoundationDB calls it a versionstamp).
	SetStamped(prefix, suffix, value []byte) error
	// Commit applies the buffered writes atomically and durably, or returns
	// ErrConflict (nothing applied). The transaction is over either way.
	Commit() error
	// Rollback discards the transaction. It is safe to call after Commit.
	Rollback()
}

// Iterator walks a key range. Usage:
//
//	for it.Next() { use(it.Key(), it.Value()) }
//	if err := it.Close(); err != nil { ... }
type Iterator interface {
	// Next advances to the next key and reports whether there is one.
	Next() bool
	// Key returns the current key, valid until the next call to Next.
	Key() []byte
	// Value returns the current value, valid until the next call to Next.
	Value() []byte
	// Close releases the iterator and returns any error met while
	// iterating. Calling it again returns the same result.
	Close() error
}
