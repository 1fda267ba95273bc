package engine

import (
	"cmp"
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/throttle"
)

// BatchWriteItem puts or deletes up to 25 items in one or more tables.
// Each write is a change on the write path (write.go), without a
// condition. dynago applies the whole batch in one storage transaction
// (each item's write is atomic, as DynamoDB promises; the batch as a whole
// happens to be too). UnprocessedItems holds the writes throttling
// refused (only with Options.Throttle); when every write is refused, the
// request fails with the throttling error.
//
// Throttling sees each write as DynamoDB does, as its own request to its
// partitions: a write is charged as soon as it is applied, so that the
// next write of the batch to the same partition is admitted against it.
// A write is charged once however often a commit conflict retries the
// batch.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
func (e *Engine) BatchWriteItem(ctx context.Context, in *api.BatchWriteItemInput) (*api.BatchWriteItemOutput, error) {
	charged := map[int]bool{} // writes charged by an earlier attempt, by position in the request
	var out *api.BatchWriteItemOutput
	err := e.update(ctx, func(tx storage.Txn) error {
		changes, err := e.prepareBatch(tx, in)
		if err != nil {
			return err
		}
		o := &api.BatchWriteItemOutput{Unprocessed: map[string][][]byte{}}
		var throttled error
		requested, throttledWrites, pos := 0, 0, 0
		for _, name := range in.Tables {
			units := 0.0
			var written []applied
			for i := range changes[name] {
				c := &changes[name][i]
				requested++
				pos++
				// A throttled write, on its table or one of its GSIs, is
				// returned unprocessed.
				refuse := func(err error) {
					throttled = cmp.Or(throttled, err)
					throttledWrites++
					o.Unprocessed[name] = append(o.Unprocessed[name], unprocessedWrite(c.t, c.tk, c.new.item))
				}
				if err := e.admitIf(ctx, c.t, func() throttle.Demand { return tableDemand(c.t, c.tk, true, 0) }); err != nil {
					refuse(err)
					continue
				}
				if err := c.readOld(tx, false); err != nil {
					return err
				}
				if e.limiter != nil {
					if err := e.admit(ctx, c.t, gsiTouched(c.t, c.old.item, c.new.item)...); err != nil {
						refuse(err)
						continue
					}
				}
				a, err := e.apply(tx, c, in.WantsItemCollectionMetrics())
				if err != nil {
					return err
				}
				written = append(written, a)
				if a.metrics != nil {
					if o.ItemCollectionMetrics == nil {
						o.ItemCollectionMetrics = map[string][][]byte{}
					}
					o.ItemCollectionMetrics[name] = append(o.ItemCollectionMetrics[name], a.metrics)
				}
				units += c.units()
				if !charged[pos] {
					e.charge(a.demands(c, 1))
					charged[pos] = true
				}
			}
			if cc := consumed(in.ReturnConsumedCapacity, name, 0, units); cc != nil {
				for _, a := range written {
					chargeIndexes(cc, a.index)
				}
				o.ConsumedCapacity = append(o.ConsumedCapacity, cc)
			}
		}
		if throttledWrites == requested {
			// Every write throttled: the request fails.
			return throttled
		}
		out = o
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// prepareBatch prepares the changes of a BatchWriteItem, by table: each
// put's new item (checked like a PutItem's) or each delete's key. Two
// writes of one item are a ValidationException.
func (e *Engine) prepareBatch(tx storage.Txn, in *api.BatchWriteItemInput) (map[string][]change, error) {
	changes := make(map[string][]change, len(in.Tables))
	for _, name := range in.Tables {
		t, err := e.activeTable(tx, name)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, wr := range in.RequestItems[name] {
			var c change
			if wr.HasPut {
				if c, err = newChange(t, wr.Put, keyOfBatchItem); err == nil {
					size := wr.Put.Size()
					err = c.put(wr.Put, encodeItem(wr.Put, size), size)
				}
			} else {
				c, err = newChange(t, wr.Delete, keyOfKey)
			}
			if err != nil {
				return nil, err
			}
			if seen[string(c.key)] {
				return nil, ddberr.Validation("Provided list of item keys contains duplicates")
			}
			seen[string(c.key)] = true
			changes[name] = append(changes[name], c)
		}
	}
	return changes, nil
}
