package engine

import (
	"cmp"
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/throttle"
)

// BatchWriteItem puts or deletes up to 25 items in one or more tables.
// dynago applies the whole batch in one storage transaction (each item's
// write is atomic, as DynamoDB promises; the batch as a whole happens to
// be too). UnprocessedItems holds the writes throttling refused (only
// with Options.Throttle); when every write is refused, the request fails
// with the throttling error.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
func (e *Engine) BatchWriteItem(ctx context.Context, in *api.BatchWriteItemInput) (*api.BatchWriteItemOutput, error) {
	type write struct {
		key    []byte
		tk     tableKey
		item   attr.Item // nil for a delete
		stored []byte    // nil for a delete
		size   int
	}
	out := &api.BatchWriteItemOutput{}
	err := e.update(ctx, func(tx storage.Txn) error {
		out.ConsumedCapacity, out.ItemCollectionMetrics = nil, nil
		out.Unprocessed = map[string][][]byte{}
		var throttled error
		requested, throttledWrites := 0, 0
		tables := make(map[string]*catalog.Table, len(in.Tables))
		writes := make(map[string][]write, len(in.Tables))
		for _, name := range in.Tables {
			t, err := e.activeTable(tx, name)
			if err != nil {
				return err
			}
			tables[name] = t
			seen := map[string]bool{}
			for _, wr := range in.RequestItems[name] {
				var w write
				if wr.HasPut {
					k, err := extractKey(t, wr.Put, keyOfBatchItem)
					if err != nil {
						return err
					}
					w.size = wr.Put.Size()
					if err := checkItemSize(w.size); err != nil {
						return err
					}
					if hasIndexes(t) {
						if err := checkIndexKeys(t, wr.Put, false); err != nil {
							return err
						}
					}
					w.key, w.tk, w.item = storageKey(t, k), k, wr.Put
					w.stored = encodeItem(wr.Put, w.size)
				} else {
					k, err := extractKey(t, wr.Delete, keyOfKey)
					if err != nil {
						return err
					}
					w.key, w.tk = storageKey(t, k), k
				}
				if seen[string(w.key)] {
					return ddberr.Validation("Provided list of item keys contains duplicates")
				}
				seen[string(w.key)] = true
				writes[name] = append(writes[name], w)
			}
		}
		for _, name := range in.Tables {
			units := 0.0
			t := tables[name]
			var charged []indexChange
			for _, w := range writes[name] {
				requested++
				// A throttled write, on its table or one of its GSIs, is
				// returned unprocessed.
				if err := e.admitIf(ctx, t, func() throttle.Demand { return tableDemand(t, w.tk, true, 0) }); err != nil {
					throttled = cmp.Or(throttled, err)
					throttledWrites++
					out.Unprocessed[name] = append(out.Unprocessed[name], unprocessedWrite(t, w.tk, w.item))
					continue
				}
				old, oldSize, err := readOld(tx, w.key, hasIndexes(t))
				if err != nil {
					return err
				}
				if e.limiter != nil {
					if err := e.admit(ctx, t, gsiTouched(t, old.item, w.item)...); err != nil {
						throttled = cmp.Or(throttled, err)
						throttledWrites++
						out.Unprocessed[name] = append(out.Unprocessed[name], unprocessedWrite(t, w.tk, w.item))
						continue
					}
				}
				if w.stored == nil {
					if err := tx.Delete(w.key); err != nil {
						return err
					}
				} else if err := tx.Set(w.key, w.stored); err != nil {
					return err
				}
				if w.stored != nil || old.exists {
					m, ch, err := e.maintain(tx, t, w.tk, old, oldSize, w.item, w.stored, w.size, in.WantsItemCollectionMetrics())
					if err != nil {
						return err
					}
					charged = append(charged, ch)
					if m != nil {
						if out.ItemCollectionMetrics == nil {
							out.ItemCollectionMetrics = map[string][][]byte{}
						}
						out.ItemCollectionMetrics[name] = append(out.ItemCollectionMetrics[name], m)
					}
				}
				units += writeUnits(max(w.size, oldSize))
				var ch indexChange
				if len(charged) > 0 && (w.stored != nil || old.exists) {
					ch = charged[len(charged)-1]
				}
				// Charged at once: each write is its own request to its
				// partitions, so the next write of the same partition sees
				// it (a retried batch is charged again).
				gsi, lsiUnits := indexDemands(t, ch)
				e.charge(append([]throttle.Demand{tableDemand(t, w.tk, true, writeUnits(max(w.size, oldSize))+lsiUnits)}, gsi...))
			}
			if c := consumed(in.ReturnConsumedCapacity, name, 0, units); c != nil {
				for _, ch := range charged {
					chargeIndexes(c, ch)
				}
				out.ConsumedCapacity = append(out.ConsumedCapacity, c)
			}
		}
		if throttledWrites == requested {
			// Every write throttled: the request fails.
			return throttled
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
