package engine

import (
	"context"
	"fmt"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/throttle"
)

// TransactGetItems reads up to 100 items from one snapshot of the store:
// the items are returned as they all were at one instant.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html
func (e *Engine) TransactGetItems(ctx context.Context, in *api.TransactGetItemsInput) (*api.TransactGetItemsOutput, error) {
	tx, err := e.store.Begin(ctx, storage.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("begin a snapshot read: %w", err)
	}
	defer tx.Rollback()
	out := &api.TransactGetItemsOutput{Responses: make([][]byte, len(in.Gets))}
	tables := make([]*catalog.Table, len(in.Gets))
	sizes := make([]int, len(in.Gets)) // for throttling's charge
	for i, g := range in.Gets {
		if tables[i], err = e.activeTable(tx, *g.TableName); err != nil {
			return nil, err
		}
	}
	keys := make([][]byte, len(in.Gets))
	reasons := make([]ddberr.CancellationReason, len(in.Gets))
	failed := false
	seen := map[string]bool{}
	for i, g := range in.Gets {
		k, err := extractKey(tables[i], g.Key, keyOfKey)
		if err != nil {
			if isEmptyKeyError(err) {
				return nil, err
			}
			if !failed {
				reasons[i], failed = validationReason(err), true
			}
			continue
		}
		keys[i] = storageKey(tables[i], k)
		if seen[string(keys[i])] {
			return nil, ddberr.Validation("Transaction request cannot include multiple operations on one item")
		}
		seen[string(keys[i])] = true
	}
	// A throttled Get cancels the transaction.
	tks := make([]tableKey, len(in.Gets))
	for i, g := range in.Gets {
		tks[i], _ = extractKey(tables[i], g.Key, keyOfKey) // checked above
		if err := e.admitIf(ctx, tables[i], func() throttle.Demand { return tableDemand(tables[i], tks[i], false, 0) }); err != nil {
			reasons[i], failed = throttleReason(err), true
		}
	}
	if !failed {
		defer func() {
			var ds []throttle.Demand
			for i := range in.Gets {
				ds = append(ds, tableDemand(tables[i], tks[i], false, transactionalFactor*readUnits(sizes[i], true)))
			}
			e.charge(ds)
		}()
	}
	if failed {
		return nil, cancelled(reasons)
	}
	capacity := map[string]*api.ConsumedCapacity{}
	total := 0
	for i, g := range in.Gets {
		t, key := tables[i], keys[i]
		v, err := readVersion(tx, key, false)
		if err != nil {
			return nil, fmt.Errorf("read item %s of %s: %w", tks[i], t.Name, err)
		}
		size := v.size
		if v.exists {
			js := v.json
			sizes[i] = size
			if total += size; total > api.MaxTransactBytes {
				// Source: API_TransactGetItems ("The aggregate size of the
				// items in the transaction exceeded 4 MB"); the exact
				// message is not known.
				return nil, ddberr.Validation("The aggregate size of the items in the transaction exceeded 4 MB")
			}
			if out.Responses[i], err = projectJSON(js, g.Projection); err != nil {
				return nil, err
			}
		}
		c, ok := capacity[t.Name]
		if !ok {
			if c = consumed(in.ReturnConsumedCapacity, t.Name, 0, 0); c != nil {
				c.Split = true
				capacity[t.Name] = c
				out.ConsumedCapacity = append(out.ConsumedCapacity, c)
			}
		}
		if c != nil {
			units := transactionalFactor * readUnits(size, true)
			c.ReadUnits += units
			c.TableUnits += units
			c.CapacityUnits += units
		}
	}
	return out, nil
}
