// Transactions and iterators over one instance of the store.

package pebble

import (
	"errors"
	"io"

	"github.com/cockroachdb/pebble/v2"

	"github.com/dynago/dynago/internal/storage"
)

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

// scan opens an iterator on r over [lower, upper) once every batch in
// flight that it may reflect is durable.
func (in *instance) scan(r reader, lower, upper []byte, reverse bool) (storage.Iterator, error) {
	it, err := r.NewIter(iterOptions(lower, upper))
	if err != nil {
		return nil, err
	}
	if err := in.await(in.pending.forRange(lower, upper)); err != nil {
		it.Close()
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
	in      *instance // the instance it began on
	start   uint64
	reads   []string
	writes  []write
	stamped []stampedWrite
	batch   *pebble.Batch
	ranges  [][2][]byte // DeleteRange's [lower, upper), for the read cache
	scans   [][2][]byte // the ranges Scan read, for awaitReads
	// Set by commit: the stamped keys as written, and the batch's entry
	// among the instance's pending writes.
	stampedKeys [][]byte
	inflight    *inflight
	done        bool
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
	// Not waited for here (see awaitReads): a hot item's writers would
	// each wait an fsync before conflicting.
	return t.in.getLatest(key)
}

func (t *rwTxn) Scan(lower, upper []byte, reverse bool) (storage.Iterator, error) {
	if t.done {
		return nil, errFinished
	}
	t.scans = append(t.scans, [2][]byte{append([]byte(nil), lower...), append([]byte(nil), upper...)})
	it, err := t.in.db.NewIter(iterOptions(lower, upper))
	if err != nil {
		return nil, err
	}
	return &iterator{it: it, reverse: reverse}, nil
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
		return t.awaitReads()
	}
	t.batch = t.in.db.NewBatch()
	for _, w := range t.writes {
		var err error
		if w.delete {
			err = t.batch.Delete([]byte(w.key), nil)
		} else {
			err = t.batch.Set([]byte(w.key), w.value, nil)
		}
		if err != nil {
			t.batch.Close()
			return err
		}
	}
	return t.in.commit(t) // it owns the batch from here
}

// Rollback ends the transaction; unless it committed, it first waits until
// what it read is durable (awaitReads), since its caller answers from it.
func (t *rwTxn) Rollback() {
	if !t.done {
		t.done = true
		t.awaitReads() // a failure breaks the instance; nothing more to do here
	}
}

// awaitReads waits until every batch in flight that wrote a key t read, or
// into a range it scanned, is durable. A read-write transaction's reads
// need no wait while it may still commit: a batch it commits is synced
// after every batch applied before it (one WAL, synced in order), so a
// client answered after the commit is answered from durable data. Only a
// transaction that ends without writing (a failed condition, a write that
// changes nothing) waits, in Rollback or Commit.
func (t *rwTxn) awaitReads() error {
	if t.in.pending.n.Load() == 0 {
		return nil
	}
	var fs []*inflight
	for _, k := range t.reads {
		fs = append(fs, t.in.pending.forKey([]byte(k))...)
	}
	for _, r := range t.scans {
		fs = append(fs, t.in.pending.forRange(r[0], r[1])...)
	}
	return t.in.await(fs)
}

// roTxn is a ReadOnly (r is the DB, s is set) or Snapshot (r is snap)
// transaction.
type roTxn struct {
	in     *instance
	cached bool // ReadOnly: reads go through the instance's read cache
	r      reader
	snap   *pebble.Snapshot
	done   bool
}

func (t *roTxn) Get(key []byte) ([]byte, error) {
	if t.done {
		return nil, errFinished
	}
	if t.cached {
		return t.in.get(key)
	}
	v, err := get(t.r, key)
	if werr := t.in.await(t.in.pending.forKey(key)); werr != nil {
		return nil, werr
	}
	return v, err
}

func (t *roTxn) Scan(lower, upper []byte, reverse bool) (storage.Iterator, error) {
	if t.done {
		return nil, errFinished
	}
	return t.in.scan(t.r, lower, upper, reverse)
}

func (t *roTxn) Set(key, value []byte) error { return storage.ErrReadOnly }

func (t *roTxn) Delete(key []byte) error { return storage.ErrReadOnly }

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

func (i *iterator) Key() []byte { return i.it.Key() }

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
