package engine

import (
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/storage"
)

// DeleteItem deletes the item with the given key, if its condition holds.
// Deleting a missing item succeeds.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteItem.html
func (e *Engine) DeleteItem(ctx context.Context, in *api.DeleteItemInput) (*api.ItemOutput, error) {
	out := &api.ItemOutput{Member: "Attributes"}
	var target itemTarget
	var charge itemWrite
	err := e.updateItem(ctx, &target, func(tx storage.Txn) error {
		out.Item, out.ConsumedCapacity, out.ItemCollectionMetrics = nil, nil, nil
		t, err := e.activeTable(tx, *in.TableName)
		if err != nil {
			return err
		}
		k, err := extractKey(t, in.Key, keyOfKey)
		if err != nil {
			return err
		}
		if err := charge.start(ctx, e, t, k); err != nil {
			return err
		}
		key := storageKey(t, k)
		target = itemTarget{t, key}
		old, oldSize, err := readOld(tx, key, in.Condition != nil || hasIndexes(t))
		if err != nil {
			return err
		}
		units := writeUnits(oldSize)
		if err := checkCondition(in.Condition, old.item, old.exists, &in.CommonWrite); err != nil {
			charge.failed(e, t, k, units)
			return err
		}
		var ch indexChange
		if old.exists {
			if err := tx.Delete(key); err != nil {
				return err
			}
			if out.ItemCollectionMetrics, ch, err = e.maintain(tx, t, k, old, oldSize, nil, nil, 0, in.WantsItemCollectionMetrics()); err != nil {
				return err
			}
			if in.ReturnValue() == "ALL_OLD" {
				out.Item = old.json
			}
		}
		if err := charge.done(ctx, e, t, k, units, ch); err != nil {
			return err
		}
		out.ConsumedCapacity = consumed(in.ReturnConsumedCapacity, t.Name, 0, units)
		chargeIndexes(out.ConsumedCapacity, ch)
		return nil
	})
	charge.finish(e, err)
	if err != nil {
		return nil, err
	}
	return out, nil
}
