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
// not exist), if its condition holds. It makes one change on the write
// path (write.go); the new item is the update applied to the old one.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html
func (e *Engine) UpdateItem(ctx context.Context, in *api.UpdateItemInput) (*api.ItemOutput, error) {
	return writeOne(ctx, e, func(tx storage.Txn, w *singleWrite) (*api.ItemOutput, error) {
		c, err := w.begin(tx, *in.TableName, in.Key, keyOfKey)
		if err != nil {
			return nil, err
		}
		if err := checkKeyUnchanged(c.t, in); err != nil {
			return nil, err
		}
		if err := checkKeyPaths(c.t, updateHeads(in.Update)); err != nil {
			return nil, err
		}
		if err := c.readOld(tx, true); err != nil {
			return nil, err
		}
		if err := w.check(&c, in.Condition, &in.CommonWrite); err != nil {
			return nil, err
		}
		item, paths, size, err := applyUpdate(c.t, in, c.old)
		if err != nil {
			return nil, err
		}
		c.become(item, nil, size)
		a, err := w.apply(tx, &c, in.WantsItemCollectionMetrics())
		if err != nil {
			return nil, err
		}
		out := w.output(&c, a, in.ReturnConsumedCapacity, "")
		out.Item = updateReturnValues(in.ReturnValue(), c.old, item, paths)
		return out, nil
	})
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
func applyUpdate(t *catalog.Table, in *api.UpdateItemInput, old version) (item attr.Item, paths []*expr.Path, size int, err error) {
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
func updateReturnValues(rv string, old version, item attr.Item, paths []*expr.Path) []byte {
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
