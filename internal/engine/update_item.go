package engine

import (
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/eval"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/storage"
)

// UpdateItem edits an item's attributes (creating the item when it does
// not exist), if its condition holds.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html
func (e *Engine) UpdateItem(ctx context.Context, in *api.UpdateItemInput) (*api.ItemOutput, error) {
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
		if err := checkKeyUnchanged(t, in); err != nil {
			return err
		}
		if err := checkKeyPaths(t, updateHeads(in.Update)); err != nil {
			return err
		}
		key := storageKey(t, k)
		target = itemTarget{t, key}
		old, oldSize, err := readOld(tx, key, true)
		if err != nil {
			return err
		}
		if err := checkCondition(in.Condition, old.item, old.exists, &in.CommonWrite); err != nil {
			charge.failed(e, t, k, writeUnits(oldSize))
			return err
		}
		item, paths, size, err := applyUpdate(t, in, old)
		if err != nil {
			return err
		}
		var ch indexChange
		if item != nil {
			stored := encodeItem(item, size)
			if err := tx.Set(key, stored); err != nil {
				return err
			}
			if out.ItemCollectionMetrics, ch, err = e.maintain(tx, t, k, old, oldSize, item, stored, size, in.WantsItemCollectionMetrics()); err != nil {
				return err
			}
		}
		units := writeUnits(max(size, oldSize))
		if err := charge.done(ctx, e, t, k, units, ch); err != nil {
			return err
		}
		out.Item = updateReturnValues(in.ReturnValue(), old, item, paths)
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

// applyUpdate computes the item an UpdateItem (or a transaction's Update)
// leaves: the update applied to the old item, or to the key when there
// is none. It checks the result: nesting depth of the written attributes,
// the 400 KB limit and the index key attributes. paths are the updated
// attributes (for ReturnValues). item is nil when there is nothing to
// write: an update that only removes, on an item that does not exist
// (api.UpdateItemInput.OnlyRemoves; its paths, even REMOVE x.y, are not
// looked at then, as DynamoDB does not: Alternator's
// test_update_expression.py::test_nested_attribute_remove_from_missing_item).
func applyUpdate(t *catalog.Table, in *api.UpdateItemInput, old oldItem) (item attr.Item, paths []*expr.Path, size int, err error) {
	if !old.exists && in.OnlyRemoves() {
		return nil, nil, 0, nil
	}
	base := old.item
	if !old.exists {
		base = in.Key.Clone()
	}
	switch {
	case in.Update != nil:
		item, err = eval.ApplyUpdate(base, in.Update)
		paths = in.Update.Paths()
	default:
		item, err = eval.ApplyAttributeUpdates(base, in.AttributeUpdates)
		for _, n := range in.UpdatedNames() {
			paths = append(paths, &expr.Path{Elems: []expr.Elem{{Name: n, Raw: n}}})
		}
	}
	if err != nil {
		return nil, nil, 0, err
	}
	for _, p := range paths {
		if v, ok := item[p.Elems[0].Name]; ok {
			if err := attr.CheckDepth(v); err != nil {
				return nil, nil, 0, err
			}
		}
	}
	size = item.Size()
	if size > attr.MaxItemSize {
		return nil, nil, 0, ddberr.Validation("Item size to update has exceeded the maximum allowed size")
	}
	if hasIndexes(t) {
		if err := checkIndexKeys(t, item, old.exists); err != nil {
			return nil, nil, 0, err
		}
	}
	return item, paths, size, nil
}

// checkKeyUnchanged rejects updates that write a key attribute.
func checkKeyUnchanged(t *catalog.Table, in *api.UpdateItemInput) error {
	var names []string
	if in.Update != nil {
		for _, p := range in.Update.Paths() {
			names = append(names, p.Elems[0].Name)
		}
	}
	names = append(names, in.UpdatedNames()...)
	for _, n := range names {
		if t.IsKeyAttribute(n) {
			return ddberr.InvalidParam("Cannot update attribute " + n + ". This attribute is part of the key")
		}
	}
	return nil
}

// updateReturnValues builds the Attributes of an UpdateItem response.
// UPDATED_OLD and UPDATED_NEW return the updated paths only, as they were
// before and after.
func updateReturnValues(rv string, old oldItem, item attr.Item, paths []*expr.Path) []byte {
	var src attr.Item
	switch rv {
	case "ALL_OLD":
		if !old.exists {
			return nil
		}
		return old.json
	case "ALL_NEW":
		if item == nil {
			return nil
		}
		return attr.AppendItem(nil, item)
	case "UPDATED_OLD":
		if !old.exists {
			return nil
		}
		src = old.item
	case "UPDATED_NEW":
		src = item
	default:
		return nil
	}
	projected := eval.NewProjection(paths).Apply(src)
	if len(projected) == 0 {
		return nil
	}
	return attr.AppendItem(nil, projected)
}
