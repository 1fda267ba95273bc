package tikv

import (
	"bytes"

	"github.com/tikv/client-go/v2/txnkv/txnsnapshot"

	"github.com/dynago/dynago/internal/storage"
)

// Scan batches: client-go's scanner fetches a fixed number of keys and
// values per request (256 by default). Many of dynago's scans stop after
// a key or a few (is there a record in this shard? the newest one?), and
// a batch of 256 stream records or items can be tens of megabytes. So an
// iterator starts with firstBatch keys and, each time it has used a
// whole batch, continues from the next key with a batch four times
// larger, up to maxBatch. A reverse scan starts with one key: client-go's
// reverse scanner (2.0.7) takes no lower bound, so a batch reaches past
// the range into the keys below it (an older stream shard's records),
// and the first request should fetch no more than it needs.
const (
	firstBatch        = 4
	firstReverseBatch = 1
	maxBatch          = 256
)

// scan iterates [lower, upper) of snap, keys and values unescaped.
func (s *Store) scan(snap *txnsnapshot.KVSnapshot, lower, upper []byte, reverse bool) (storage.Iterator, error) {
	lo, hi := s.bounds(lower, upper)
	it := &iterator{snap: snap, n: len(s.prefix), lo: lo, hi: hi, reverse: reverse, batch: firstBatch}
	if reverse {
		it.batch = firstReverseBatch
	}
	if bytes.Compare(lo, hi) >= 0 {
		it.done = true
		return it, nil
	}
	if err := it.open(lo, hi); err != nil {
		return nil, err
	}
	return it, nil
}

// iterator adapts client-go's iterator, which is positioned on its first
// entry when made, to storage.Iterator, which is positioned by Next.
type iterator struct {
	snap    *txnsnapshot.KVSnapshot
	it      clientIterator
	n       int    // namespace prefix length
	lo, hi  []byte // bounds
	reverse bool
	batch   int // keys per request of the current client iterator
	used    int // entries taken from it
	started bool
	done    bool
	err     error
	key     []byte
	value   []byte
}

// clientIterator is client-go's unionstore.Iterator.
type clientIterator interface {
	Valid() bool
	Key() []byte
	Value() []byte
	Next() error
	Close()
}

// open starts a client iterator over [from, to) with the current batch.
func (it *iterator) open(from, to []byte) error {
	it.snap.SetScanBatchSize(it.batch)
	var err error
	var ci clientIterator
	if it.reverse {
		// IterReverse starts at the greatest key below to and has no
		// lower bound: Next stops at lo.
		ci, err = it.snap.IterReverse(to)
	} else {
		ci, err = it.snap.Iter(from, to)
	}
	if err != nil {
		return mapErr(err)
	}
	it.it, it.used, it.started = ci, 0, false
	return nil
}

func (it *iterator) Next() bool {
	if it.done {
		return false
	}
	if it.started {
		if it.used == it.batch && it.batch < maxBatch {
			// A whole batch used: continue after the current key with a
			// larger one.
			last := bytes.Clone(it.it.Key())
			it.it.Close()
			it.it = nil
			it.batch = min(it.batch*4, maxBatch)
			var err error
			if it.reverse {
				err = it.open(it.lo, last)
			} else {
				err = it.open(append(last, 0), it.hi)
			}
			if err != nil {
				it.err, it.done = err, true
				return false
			}
		} else if err := it.it.Next(); err != nil {
			it.err, it.done = mapErr(err), true
			return false
		}
	}
	it.started = true
	if !it.it.Valid() || (it.reverse && bytes.Compare(it.it.Key(), it.lo) < 0) {
		it.done = true
		return false
	}
	it.used++
	it.key, it.value = it.it.Key()[it.n:], decodeValue(it.it.Value())
	return true
}

func (it *iterator) Key() []byte   { return it.key }
func (it *iterator) Value() []byte { return it.value }

func (it *iterator) Close() error {
	it.done = true
	if it.it != nil {
		it.it.Close()
		it.it = nil
	}
	return it.err
}
