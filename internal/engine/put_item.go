package engine

import (
	"context"
	"errors"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/eval"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/storage"
)

// PutItem creates or replaces an item, if its condition holds.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html
func (e *Engine) PutItem(ctx context.Context, in *api.PutItemInput) (*api.ItemOutput, error) {
	size := in.Item.Size()
	stored := encodeItem(in.Item, size)
	out := &api.ItemOutput{Member: "Attributes"}
	var target itemTarget
	var charge itemWrite
	err := e.updateItem(ctx, &target, func(tx storage.Txn) error {
		out.Item, out.ConsumedCapacity, out.ItemCollectionMetrics = nil, nil, nil
		t, err := e.activeTable(tx, *in.TableName)
		if err != nil {
			return err
		}
		k, err := extractKey(t, in.Item, keyOfItem)
		if err != nil {
			return err
		}
		if err := charge.start(ctx, e, t, k); err != nil {
			return err
		}
		if err := checkItemSize(size); err != nil {
			return err
		}
		indexed := hasIndexes(t)
		if indexed {
			if err := checkIndexKeys(t, in.Item, false); err != nil {
				return err
			}
		}
		key := storageKey(t, k)
		target = itemTarget{t, key}
		// A plain put need not read the item it replaces: concurrent puts
		// of one key are last-writer-wins in DynamoDB too. Index
		// maintenance needs the old item's index keys, and the capacity
		// reported is that of the larger of the two items. Metering and
		// throttling alone do not read it: they charge a plain put by
		// its new item (reading the old one would cost about 15% of a
		// put's CPU; only an overwrite by a smaller item differs).
		var old oldItem
		oldSize := 0
		if indexed || streamed(t) || in.Condition != nil || in.ReturnValue() == "ALL_OLD" || wantsCapacity(in.ReturnConsumedCapacity) {
			if old, oldSize, err = readOld(tx, key, indexed || in.Condition != nil || in.ReturnValue() == "ALL_OLD"); err != nil {
				return err
			}
		}
		units := writeUnits(max(size, oldSize))
		if err := checkCondition(in.Condition, old.item, old.exists, &in.CommonWrite); err != nil {
			charge.failed(e, t, k, units)
			return err
		}
		if err := tx.Set(key, stored); err != nil {
			return err
		}
		var ch indexChange
		if out.ItemCollectionMetrics, ch, err = e.maintain(tx, t, k, old, oldSize, in.Item, stored, size, in.WantsItemCollectionMetrics()); err != nil {
			return err
		}
		if err := charge.done(ctx, e, t, k, units, ch); err != nil {
			return err
		}
		if in.ReturnValue() == "ALL_OLD" && old.exists {
			out.Item = old.json
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

// oldItem is the item a write replaces.
type oldItem struct {
	exists bool
	item   attr.Item // decoded when needed
	json   []byte
}

// readOld reads the item at key (joining the transaction's read set) and
// decodes it when decode is set. It returns the stored size (0 when
// absent).
func readOld(tx storage.Txn, key []byte, decode bool) (oldItem, int, error) {
	raw, err := tx.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return oldItem{}, 0, nil
	}
	if err != nil {
		return oldItem{}, 0, err
	}
	size, js, err := splitItem(raw)
	if err != nil {
		return oldItem{}, 0, err
	}
	o := oldItem{exists: true, json: js}
	if decode {
		if o.item, err = attr.DecodeItem(js); err != nil {
			return oldItem{}, 0, err
		}
	}
	return o, size, nil
}

// checkCondition evaluates a write's condition against the current item
// and returns ConditionalCheckFailedException (with the item when
// ReturnValuesOnConditionCheckFailure=ALL_OLD) when it does not hold.
func checkCondition(cond expr.Expr, item attr.Item, exists bool, w *api.CommonWrite) error {
	if cond == nil {
		return nil
	}
	if !exists {
		item = nil
	}
	if eval.Condition(cond, item) {
		return nil
	}
	err := ddberr.ConditionalCheckFailed()
	if w.ReturnOldOnConditionFailure() && exists {
		err.Fields = map[string][]byte{"Item": attr.AppendItem(nil, item)}
	}
	return err
}
