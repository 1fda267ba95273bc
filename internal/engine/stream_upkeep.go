package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/storage"
)

// Stream upkeep: shard rollover and the 24-hour retention.
//
// Every Options.StreamUpkeep the engine
//   - rolls over each open shard older than Options.StreamRollover that
//     holds a record (an empty shard stays open): one transaction closes
//     it (close marker) and opens a child shard with the same hash range
//     (open marker). Writers read the stream
//     descriptor in their own transactions, so a write racing the
//     rollover conflicts and retries into the child: no record lands in
//     a shard after its close marker;
//   - trims records older than StreamRetention from each shard, moving
//     the shard's trim horizon past them (an iterator before it gets
//     TrimmedDataAccessException);
//   - forgets closed shards, and disabled streams, once everything in
//     them is past the retention period (closed shards also beyond
//     Options.MaxClosedShards), and deletes their key spaces.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html#Streams.DataRetention

// trimBatch bounds the records one trimming transaction deletes.
const trimBatch = 1000

// DefaultMaxClosedShards bounds the closed shards a stream keeps (see
// Options.MaxClosedShards).
const DefaultMaxClosedShards = 1000

// streamUpkeep runs one round of upkeep over every stream.
func (e *Engine) streamUpkeep(ctx context.Context) error {
	var streams []*catalog.Stream
	err := e.read(ctx, func(tx storage.Txn) error {
		return catalog.ScanStreams(tx, "", "", "", func(key, raw []byte) error {
			st, err := e.streams.get(string(key), raw, catalog.DecodeStream)
			if err == nil {
				streams = append(streams, st)
			}
			return err
		})
	})
	if err != nil {
		return err
	}
	for _, st := range streams {
		if err := e.upkeepStream(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// upkeepStream rolls over, trims and forgets for one stream. st is a
// snapshot (shared, not modified); changes are made on a fresh copy in a
// transaction, and only when the snapshot shows something is due, so an
// idle stream costs a few reads per round.
func (e *Engine) upkeepStream(ctx context.Context, st *catalog.Stream) error {
	now := e.opts.Now()
	cutoff := now.Add(-StreamRetention).UnixNano()
	if st.Disabled != 0 && st.Disabled < cutoff {
		// Every shard closed when the stream was disabled.
		err := e.update(ctx, func(tx storage.Txn) error { return catalog.DeleteStream(tx, st) })
		if err != nil {
			return err
		}
		e.streams.forget(string(catalog.StreamKey(st.Table, st.Label)))
		lo, hi := streamBounds(st.Number)
		return e.store.DeleteRange(ctx, lo, hi)
	}
	due, err := e.upkeepDue(ctx, st, now)
	if err != nil {
		return err
	}
	var gone []uint32
	if due {
		err := e.update(ctx, func(tx storage.Txn) error {
			var err error
			gone, err = e.rollOver(tx, st.Table, st.Label, now)
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, n := range gone {
		lo, hi := shardPrefix(st.Number, n), shardPrefix(st.Number, n+1)
		if err := e.store.DeleteRange(ctx, lo, hi); err != nil {
			return err
		}
	}
	for _, sh := range st.Shards {
		// Only a shard opened before the cutoff can hold records past it.
		if sh.Created < cutoff && !slices.Contains(gone, sh.Number) {
			if err := e.trimShard(ctx, st, sh.Number, now.Add(-StreamRetention).Unix()); err != nil {
				return err
			}
		}
	}
	return nil
}

// upkeepDue reports whether the snapshot st has a shard to roll over (an
// open one past the rollover age that holds a record: an empty shard is
// left open, so that idle streams do not grow) or closed shards to drop.
func (e *Engine) upkeepDue(ctx context.Context, st *catalog.Stream, now time.Time) (bool, error) {
	cutoff := now.Add(-StreamRetention).UnixNano()
	closed := 0
	var aging []uint32
	for _, sh := range st.Shards {
		switch {
		case sh.Closed != 0:
			closed++
			if sh.Closed < cutoff {
				return true, nil
			}
		case st.Disabled == 0 && now.Sub(time.Unix(0, sh.Created)) >= e.opts.StreamRollover:
			aging = append(aging, sh.Number)
		}
	}
	if closed > e.opts.MaxClosedShards {
		return true, nil
	}
	due := false
	err := e.read(ctx, func(tx storage.Txn) error {
		for _, n := range aging {
			has, err := hasRecords(tx, st.Number, n)
			if err != nil || has {
				due = has
				return err
			}
		}
		return nil
	})
	return due, err
}

// hasRecords reports whether a shard holds anything after its open
// marker.
func hasRecords(tx storage.Txn, stream uint64, shard uint32) (bool, error) {
	it, err := tx.Scan(append(trimKey(stream, shard), 0), shardPrefix(stream, shard+1), true)
	if err != nil {
		return false, fmt.Errorf("shard %d of stream %d: scan: %w", shard, stream, err)
	}
	defer it.Close()
	has := it.Next() && len(it.Value()) > 0 && it.Value()[0] != markOpen
	return has, it.Close()
}

// rollOver, in tx, closes each open shard of the stream (table, label)
// past the rollover age that holds records, opening a child shard with
// its range, and forgets closed shards past the retention period or
// beyond Options.MaxClosedShards. It returns the numbers of the shards forgotten,
// whose key spaces the caller deletes after the commit.
func (e *Engine) rollOver(tx storage.Txn, table, label string, now time.Time) ([]uint32, error) {
	cur, _, err := catalog.GetStream(tx, table, label)
	if errors.Is(err, catalog.ErrStreamNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cutoff := now.Add(-StreamRetention).UnixNano()
	var gone []uint32
	var kept, children []catalog.Shard
	closed := 0
	for _, sh := range cur.Shards {
		switch {
		case sh.Closed != 0 && sh.Closed < cutoff:
			gone = append(gone, sh.Number)
			continue
		case sh.Closed == 0 && cur.Disabled == 0 && now.Sub(time.Unix(0, sh.Created)) >= e.opts.StreamRollover:
			has, err := hasRecords(tx, cur.Number, sh.Number)
			if err != nil {
				return nil, err
			}
			if !has {
				break
			}
			if err := closeShard(tx, cur, &sh, now); err != nil {
				return nil, err
			}
			child, err := newShard(tx, cur, sh.ID, sh.HashLo, sh.HashHi, now)
			if err != nil {
				return nil, err
			}
			children = append(children, child)
		}
		if sh.Closed != 0 {
			closed++
		}
		kept = append(kept, sh)
	}
	// Past the cap, drop the oldest closed shards early.
	for i := 0; closed > e.opts.MaxClosedShards && i < len(kept); {
		if kept[i].Closed == 0 {
			i++
			continue
		}
		gone = append(gone, kept[i].Number)
		kept = slices.Delete(kept, i, i+1)
		closed--
	}
	if len(gone) == 0 && len(children) == 0 {
		return nil, nil
	}
	cur.Shards = append(kept, children...)
	return gone, catalog.PutStream(tx, cur)
}

// trimShard deletes a shard's records created before cutoff (epoch
// seconds), oldest first, and moves its trim horizon past them.
func (e *Engine) trimShard(ctx context.Context, st *catalog.Stream, shard uint32, cutoff int64) error {
	prefix := shardPrefix(st.Number, shard)
	for {
		n := 0
		err := e.update(ctx, func(tx storage.Txn) error {
			n = 0
			lower := append(trimKey(st.Number, shard), 0)
			it, err := tx.Scan(lower, shardPrefix(st.Number, shard+1), false)
			if err != nil {
				return fmt.Errorf("trim shard %d of stream %d: scan: %w", shard, st.Number, err)
			}
			defer it.Close()
			var last []byte
			for n < trimBatch && it.Next() {
				v := it.Value()
				if len(v) == 0 || v[0] != markRecord {
					continue // markers stay: they bound the shard
				}
				rec, err := decodeRecord(v)
				if err != nil {
					return err
				}
				if rec.created >= cutoff {
					break
				}
				if err := tx.Delete(it.Key()); err != nil {
					return err
				}
				last = append(last[:0], it.Key()[len(prefix):]...)
				n++
			}
			if n == 0 {
				return nil
			}
			return tx.Set(trimKey(st.Number, shard), append([]byte{markTrim}, last...))
		})
		if err != nil || n < trimBatch {
			return err
		}
	}
}
