package engine

import (
	"encoding/binary"
	"errors"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
)

// Simulated GSI propagation lag.
//
// DynamoDB updates global secondary indexes asynchronously: a Query on a
// GSI may miss a write that just succeeded, or still return an item that
// was just changed. With Options.GSILag > 0, dynago reproduces that so
// applications can test their handling of stale index reads: a write
// queues its GSI changes in the table's reserved key space
// keycodec.Space{Index: 0xFFFE}, in the same storage transaction as the
// item (so no change is ever lost, crash included), and a background
// propagator applies each queued change once it is GSILag old, in commit
// order. LSIs stay synchronous, as in DynamoDB.
//
// Queue key: space | timestamp (Unix ns, 8 bytes BE) | node (8 random
// bytes chosen per engine, so that two nodes never write one key). Any two writes to one item conflict in storage, so the one that
// commits later took its timestamp later (it began after the other
// committed): per item, changes apply in order.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Writes

// queueSpace is the key space of a table's queued GSI changes.
func queueSpace(table uint64) keycodec.Space {
	return keycodec.Space{Table: table, Index: catalog.MaxIndexNumber + 2}
}

// indexOp is one queued change to an index entry; a nil value deletes.
type indexOp struct {
	index      uint16
	key, value []byte
}

// nextQueueKey returns a queue key later than every one this engine
// issued before.
func (e *Engine) nextQueueKey(table uint64) []byte {
	now := e.opts.Now().UnixNano()
	for {
		last := e.lastQueueTS.Load()
		ts := max(now, last+1)
		if e.lastQueueTS.CompareAndSwap(last, ts) {
			k := keycodec.AppendSpace(nil, queueSpace(table))
			k = binary.BigEndian.AppendUint64(k, uint64(ts))
			return binary.BigEndian.AppendUint64(k, e.nodeID)
		}
	}
}

// queueIndexOps stores ops for later propagation in tx.
func (e *Engine) queueIndexOps(tx storage.Txn, table uint64, ops []indexOp) error {
	return tx.Set(e.nextQueueKey(table), encodeIndexOps(ops))
}

// encodeIndexOps encodes queued changes: per op the index number (2
// bytes BE), the key (uvarint length, bytes), then 0 for a delete or 1,
// the value's uvarint length and the value.
func encodeIndexOps(ops []indexOp) []byte {
	var buf []byte
	for _, op := range ops {
		buf = binary.BigEndian.AppendUint16(buf, op.index)
		buf = binary.AppendUvarint(buf, uint64(len(op.key)))
		buf = append(buf, op.key...)
		if op.value == nil {
			buf = append(buf, 0)
			continue
		}
		buf = append(buf, 1)
		buf = binary.AppendUvarint(buf, uint64(len(op.value)))
		buf = append(buf, op.value...)
	}
	return buf
}

var errCorruptQueue = errors.New("engine: corrupt GSI change queue entry")

func decodeIndexOps(buf []byte) ([]indexOp, error) {
	var ops []indexOp
	for len(buf) > 0 {
		if len(buf) < 3 {
			return nil, errCorruptQueue
		}
		op := indexOp{index: binary.BigEndian.Uint16(buf)}
		buf = buf[2:]
		n, w := uvarint(buf)
		if w <= 0 || uint64(len(buf)-w) < n+1 {
			return nil, errCorruptQueue
		}
		op.key, buf = buf[w:w+int(n)], buf[w+int(n):]
		set := buf[0]
		buf = buf[1:]
		switch set {
		case 0:
		case 1:
			n, w := uvarint(buf)
			if w <= 0 || uint64(len(buf)-w) < n {
				return nil, errCorruptQueue
			}
			op.value, buf = buf[w:w+int(n)], buf[w+int(n):]
			if op.value == nil {
				op.value = []byte{}
			}
		default:
			return nil, errCorruptQueue
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// uvarint is binary.Uvarint accepting only the minimal encoding, so
// that every accepted queue entry has one form.
func uvarint(b []byte) (uint64, int) {
	n, w := binary.Uvarint(b)
	if w > 0 && w != len(binary.AppendUvarint(nil, n)) {
		return 0, 0
	}
	return n, w
}

// propagateDue applies every queued change older than GSILag.
func (e *Engine) propagateDue() error {
	var names []string
	if err := e.read(e.bgCtx, func(tx storage.Txn) error {
		var err error
		names, _, err = catalog.List(tx, "", 0)
		return err
	}); err != nil {
		return err
	}
	cutoff := e.opts.Now().Add(-e.opts.GSILag).UnixNano()
	for _, name := range names {
		for {
			more := false
			err := e.update(e.bgCtx, func(tx storage.Txn) error {
				t, err := e.lookup(tx, name)
				if errors.Is(err, catalog.ErrNotFound) {
					return nil
				}
				if err != nil {
					return err
				}
				lo := keycodec.AppendSpace(nil, queueSpace(t.Number))
				hi := binary.BigEndian.AppendUint64(keycodec.AppendSpace(nil, queueSpace(t.Number)), uint64(max(cutoff, 0))+1)
				it, err := tx.Scan(lo, hi, false)
				if err != nil {
					return err
				}
				type entry struct{ key, value []byte }
				var due []entry
				for len(due) < backfillBatch && it.Next() {
					due = append(due, entry{append([]byte(nil), it.Key()...), append([]byte(nil), it.Value()...)})
				}
				more = len(due) == backfillBatch
				if err := it.Close(); err != nil {
					return err
				}
				live := map[uint16]bool{}
				for _, ix := range t.GSIs {
					live[ix.Number] = true
				}
				for _, d := range due {
					// Get joins the read set: a concurrent propagator (another
					// node) applying the same entry conflicts.
					if _, err := tx.Get(d.key); err != nil {
						if errors.Is(err, storage.ErrNotFound) {
							continue
						}
						return err
					}
					ops, err := decodeIndexOps(d.value)
					if err != nil {
						return err
					}
					for _, op := range ops {
						if !live[op.index] {
							continue // the index was deleted since
						}
						if op.value == nil {
							err = tx.Delete(op.key)
						} else {
							err = tx.Set(op.key, op.value)
						}
						if err != nil {
							return err
						}
					}
					if err := tx.Delete(d.key); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			if !more {
				break
			}
		}
	}
	return nil
}
