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

// BatchGetItem reads up to 100 items from one or more tables. Once the
// items read would pass 16 MB (api.MaxBatchGetBytes of item size), that
// item's key and every later one are returned in UnprocessedKeys.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
func (e *Engine) BatchGetItem(ctx context.Context, in *api.BatchGetItemInput) (*api.BatchGetItemOutput, error) {
	out := &api.BatchGetItemOutput{
		Tables:      in.Tables,
		Responses:   map[string][][]byte{},
		Unprocessed: map[string][]byte{},
	}
	err := e.read(ctx, func(tx storage.Txn) error {
		tables := make(map[string]*catalog.Table, len(in.Tables))
		keys := make(map[string][][]byte, len(in.Tables))
		tks := make(map[string][]tableKey, len(in.Tables))
		// Resolve every table and key first: one bad table or key fails
		// the whole request.
		for _, name := range in.Tables {
			t, err := e.activeTable(tx, name)
			if err != nil {
				return err
			}
			tables[name] = t
			seen := map[string]bool{}
			for _, k := range in.RequestItems[name].Keys {
				tk, err := extractKey(t, k, keyOfKey)
				if err != nil {
					return err
				}
				sk := storageKey(t, tk)
				if seen[string(sk)] {
					return ddberr.Validation("Provided list of item keys contains duplicates")
				}
				seen[string(sk)] = true
				keys[name] = append(keys[name], sk)
				tks[name] = append(tks[name], tk)
			}
			if err := checkKeyPaths(t, pathHeads(in.RequestItems[name].Projection)); err != nil {
				return err
			}
		}
		total, full, requested := 0, false, 0
		var throttled error
		throttledKeys := 0
		for _, name := range in.Tables {
			t, ka := tables[name], in.RequestItems[name]
			items := [][]byte{}
			var unprocessed []attr.Item
			units := 0.0
			consistent := ka.ConsistentRead != nil && *ka.ConsistentRead
			for i, sk := range keys[name] {
				requested++
				if full {
					unprocessed = append(unprocessed, ka.Keys[i])
					continue
				}
				// A throttled key is returned unprocessed.
				if err := e.admitIf(ctx, t, func() throttle.Demand { return tableDemand(t, tks[name][i], false, 0) }); err != nil {
					throttled = cmp.Or(throttled, err)
					throttledKeys++
					unprocessed = append(unprocessed, ka.Keys[i])
					continue
				}
				v, err := readVersion(tx, sk, false)
				if err != nil {
					return err
				}
				if !v.exists {
					// A missing item still costs a read.
					units += readUnits(0, consistent)
					e.charge([]throttle.Demand{tableDemand(t, tks[name][i], false, readUnits(0, consistent))})
					continue
				}
				size, js := v.size, v.json
				if total+size > api.MaxBatchGetBytes {
					// This item and every later one would not fit.
					full = true
					unprocessed = append(unprocessed, ka.Keys[i])
					continue
				}
				if js, err = projectJSON(js, ka.Projection); err != nil {
					return err
				}
				items = append(items, js)
				total += size
				units += readUnits(size, consistent)
				// Charged at once: each item is its own request to its
				// partition, so the next key of the same partition sees it.
				e.charge([]throttle.Demand{tableDemand(t, tks[name][i], false, readUnits(size, consistent))})
			}
			out.Responses[name] = items
			if len(unprocessed) > 0 {
				out.Unprocessed[name] = ka.AppendUnprocessed(nil, unprocessed)
			}
			if c := consumed(in.ReturnConsumedCapacity, t.Name, units, 0); c != nil {
				out.ConsumedCapacity = append(out.ConsumedCapacity, c)
			}
		}
		if throttledKeys == requested {
			// Every key throttled: the request fails (a partly throttled
			// one returns the rest as UnprocessedKeys).
			return throttled
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
