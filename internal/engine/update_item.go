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
	err := e.update(ctx, func(tx storage.Txn) error {
		out.Item, out.ConsumedCapacity, out.ItemCollectionMetrics = nil, nil, nil
		t, err := e.activeTable(tx, *in.TableName)
		if err != nil {
			return err
		}
		k, err := extractKey(t, in.Key, keyOfKey)
		if err != nil {
			return err
		}
		if err := checkKeyUnchanged(t, in); err != nil {
			return err
		}
		key := storageKey(t, k)
		old, oldSize, err := readOld(tx, key, true)
		if err != nil {
			return err
		}
		if err := checkCondition(in.Condition, old.item, old.exists, &in.CommonWrite); err != nil {
			return err
		}
		base := old.item
		if !old.exists {
			base = in.Key.Clone()
		}
		var item attr.Item
		var paths []*expr.Path
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
			return err
		}
		for _, p := range paths {
			if v, ok := item[p.Elems[0].Name]; ok {
				if err := attr.CheckDepth(v); err != nil {
					return err
				}
			}
		}
		size := item.Size()
		if size > attr.MaxItemSize {
			return ddberr.Validation("Item size to update has exceeded the maximum allowed size")
		}
		if hasIndexes(t) {
			if err := checkIndexKeys(t, item, old.exists); err != nil {
				return err
			}
		}
		stored := encodeItem(item, size)
		if err := tx.Set(key, stored); err != nil {
			return err
		}
		var ch indexChange
		if out.ItemCollectionMetrics, ch, err = e.maintain(tx, t, k, old, oldSize, item, stored, size, in.WantsItemCollectionMetrics()); err != nil {
			return err
		}
		out.Item = updateReturnValues(in.ReturnValue(), old, item, paths)
		out.ConsumedCapacity = consumed(in.ReturnConsumedCapacity, t.Name, 0, writeUnits(max(size, oldSize)))
		chargeIndexes(out.ConsumedCapacity, ch)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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
