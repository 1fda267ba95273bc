package engine

import (
	"context"
	"errors"
	"time"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/storage"
)

// Stream upkeep: shard rollover and the 24-hour retention.
//
// Every Options.StreamUpkeep the engine
//   - rolls over each open shard older than Options.StreamRollover: one
//     transaction closes it (close marker) and opens a child shard with
//     the same hash range (open marker). Writers read the stream
//     descriptor in their own transactions, so a write racing the
//     rollover conflicts and retries into the child: no record lands in
//     a shard after its close marker;
//   - trims records older than StreamRetention from each shard, moving
//     the shard's trim horizon past them (an iterator before it gets
//     TrimmedDataAccessException);
//   - forgets closed shards, and disabled streams, once everything in
//     them is past the retention period, and deletes their key spaces.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html#Streams.DataRetention

// trimBatch bounds the records one trimming transaction deletes.
const trimBatch = 1000

// streamUpkeep runs one round of upkeep over every stream.
func (e *Engine) streamUpkeep(ctx context.Context) error {
	var streams []*catalog.Stream
	err := e.read(ctx, func(tx storage.Txn) error {
		var err error
		streams, err = catalog.ListStreams(tx, "", "", "")
		return err
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

// upkeepStream rolls over, trims and forgets for one stream.
func (e *Engine) upkeepStream(ctx context.Context, st *catalog.Stream) error {
	now := e.opts.Now()
	cutoff := now.Add(-StreamRetention).UnixNano()
	if st.Disabled != 0 && st.Disabled < cutoff {
		// Every shard closed when the stream was disabled.
		err := e.update(ctx, func(tx storage.Txn) error { return catalog.DeleteStream(tx, st) })
		if err != nil {
			return err
		}
		lo, hi := streamBounds(st.Number)
		return e.store.DeleteRange(ctx, lo, hi)
	}
	var gone []uint32
	err := e.update(ctx, func(tx storage.Txn) error {
		gone = gone[:0]
		cur, _, err := catalog.GetStream(tx, st.Table, st.Label)
		if errors.Is(err, catalog.ErrStreamNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		changed := false
		var kept, children []catalog.Shard
		for _, sh := range cur.Shards {
			switch {
			case sh.Closed != 0 && sh.Closed < cutoff:
				gone, changed = append(gone, sh.Number), true
				continue
			case sh.Closed == 0 && cur.Disabled == 0 && now.Sub(time.Unix(0, sh.Created)) >= e.opts.StreamRollover:
				if err := closeShard(tx, cur, &sh, now); err != nil {
					return err
				}
				child, err := newShard(tx, cur, sh.ID, sh.HashLo, sh.HashHi, now)
				if err != nil {
					return err
				}
				children, changed = append(children, child), true
			}
			kept = append(kept, sh)
		}
		cur.Shards = append(kept, children...)
		if !changed {
			return nil
		}
		return catalog.PutStream(tx, cur)
	})
	if err != nil {
		return err
	}
	for _, n := range gone {
		lo, hi := shardPrefix(st.Number, n), shardPrefix(st.Number, n+1)
		if err := e.store.DeleteRange(ctx, lo, hi); err != nil {
			return err
		}
	}
	for _, sh := range st.Shards {
		if err := e.trimShard(ctx, st, sh.Number, now.Add(-StreamRetention).Unix()); err != nil {
			return err
		}
	}
	return nil
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
				return err
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

// streamUpkeepLoop runs streamUpkeep every interval until Close.
func (e *Engine) streamUpkeepLoop(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-e.bgCtx.Done():
			return
		case <-t.C:
		}
		if err := e.streamUpkeep(e.bgCtx); err != nil && e.bgCtx.Err() == nil {
			e.opts.Logger.Warn("stream upkeep", "err", err)
		}
	}
}
