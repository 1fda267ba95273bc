package tikv

import (
	"bytes"

	"github.com/tikv/client-go/v2/txnkv/txnsnapshot"

	"github.com/dynago/dynago/internal/storage"
)

// scan iterates [lower, upper) of snap, keys and values unescaped.
func (s *Store) scan(snap *txnsnapshot.KVSnapshot, lower, upper []byte, reverse bool) (storage.Iterator, error) {
	lo, hi := s.bounds(lower, upper)
	it := &iterator{n: len(s.prefix), lo: lo, reverse: reverse}
	if bytes.Compare(lo, hi) >= 0 {
		it.done = true
		return it, nil
	}
	var err error
	if reverse {
		// IterReverse starts at the greatest key below hi and has no
		// lower bound: Next stops at lo.
		it.it, err = snap.IterReverse(hi)
	} else {
		it.it, err = snap.Iter(lo, hi)
	}
	if err != nil {
		return nil, mapErr(err)
	}
	return it, nil
}

// iterator adapts client-go's iterator, which is positioned on its first
// entry when made, to storage.Iterator, which is positioned by Next.
type iterator struct {
	it interface {
		Valid() bool
		Key() []byte
		Value() []byte
		Next() error
		Close()
	}
	n       int    // namespace prefix length
	lo      []byte // lower bound, for reverse scans
	reverse bool
	started bool
	done    bool
	err     error
	key     []byte
	value   []byte
}

func (it *iterator) Next() bool {
	if it.done {
		return false
	}
	if it.started {
		if err := it.it.Next(); err != nil {
			it.err, it.done = mapErr(err), true
			return false
		}
	}
	it.started = true
	if !it.it.Valid() || (it.reverse && bytes.Compare(it.it.Key(), it.lo) < 0) {
		it.done = true
		return false
	}
	it.key, it.value = it.it.Key()[it.n:], decodeValue(it.it.Value())
	return true
}

func (it *iterator) Key() []byte   { return it.key }
func (it *iterator) Value() []byte { return it.value }

func (it *iterator) Close() error {
	if !it.done {
		it.done = true
	}
	if it.it != nil {
		it.it.Close()
		it.it = nil
	}
	return it.err
}
