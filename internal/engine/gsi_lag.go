package engine

import (
	"encoding/binary"
	"errors"
	"fmt"

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
// Queue key: space | stamp (the storage commit stamp, Txn.SetStamped),
// and value: the write's time (Unix ns, 8 bytes BE) | the changes. Stamps
// follow commit order across every node sharing the store (any two writes
// to one item conflict, so the one that commits later has the later
// stamp): per item, changes apply in order whatever the nodes' clocks
// say. The propagator reads up to the store's stamp horizon, so it never
// applies a change with an earlier one still committing behind it.
// Entries of the earlier format (space | timestamp | node ID, value the
// changes alone) are still read.
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

// queueIndexOps stores ops for later propagation in tx.
func (e *Engine) queueIndexOps(tx storage.Txn, table uint64, ops []indexOp) error {
	v := binary.BigEndian.AppendUint64(nil, uint64(e.opts.Now().UnixNano()))
	return tx.SetStamped(keycodec.AppendSpace(nil, queueSpace(table)), nil, append(v, encodeIndexOps(ops)...))
}

// legacyQueueKeyLen is the length after the space of a queue key of the
// earlier format (timestamp | node ID).
const legacyQueueKeyLen = 16

// queuedAt splits a queue entry into the time of its write and its
// changes.
func queuedAt(key, value []byte, spaceLen int) (int64, []byte, error) {
	switch len(key) - spaceLen {
	case storage.StampLen:
		if len(value) < 8 {
			return 0, nil, errCorruptQueue
		}
		return int64(binary.BigEndian.Uint64(value)), value[8:], nil
	case legacyQueueKeyLen:
		return int64(binary.BigEndian.Uint64(key[spaceLen:])), value, nil
	}
	return 0, nil, errCorruptQueue
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
	horizon, err := e.store.StampHorizon(e.bgCtx, 0)
	if err != nil {
		return err
	}
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
				lo, hi := keycodec.SpaceBounds(queueSpace(t.Number))
				// Entries of the earlier format (their timestamps start
				// with a byte of at least 0x10; stamps will not before
				// 2109) were written before any stamped one: they go
				// first, and stamped ones wait until none is left.
				legacy := append(append([]byte(nil), lo...), 0x10)
				type entry struct{ key, value []byte }
				var due []entry
				for _, r := range [][2][]byte{{legacy, hi}, {lo, legacy}} {
					it, err := tx.Scan(r[0], r[1], false)
					if err != nil {
						return fmt.Errorf("GSI propagation queue: scan: %w", err)
					}
					pending := false
					for it.Next() {
						if len(due) == backfillBatch {
							pending = true
							break
						}
						k := it.Key()
						at, _, err := queuedAt(k, it.Value(), len(lo))
						if err != nil {
							it.Close()
							return err
						}
						if at > cutoff || (len(k)-len(lo) == storage.StampLen && binary.BigEndian.Uint64(k[len(lo):]) > horizon) {
							pending = true // not due, or not settled: later entries wait too
							break
						}
						due = append(due, entry{append([]byte(nil), k...), append([]byte(nil), it.Value()...)})
					}
					if err := it.Close(); err != nil {
						return err
					}
					if pending {
						break
					}
				}
				more = len(due) == backfillBatch
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
						return fmt.Errorf("GSI propagation queue: read %x: %w", d.key, err)
					}
					_, changes, err := queuedAt(d.key, d.value, len(lo))
					if err != nil {
						return err
					}
					ops, err := decodeIndexOps(changes)
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
