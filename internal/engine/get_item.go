package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/eval"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/throttle"
)

// GetItem returns the item with the given key, projected, or no item.
// Reads are always strongly consistent in dynago; ConsistentRead only
// changes the capacity reported.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GetItem.html
func (e *Engine) GetItem(ctx context.Context, in *api.GetItemInput) (*api.ItemOutput, error) {
	out := &api.ItemOutput{Member: "Item"}
	err := e.read(ctx, func(tx storage.Txn) error {
		t, err := e.activeTable(tx, *in.TableName)
		if err != nil {
			return err
		}
		k, err := extractKey(t, in.Key, keyOfKey)
		if err != nil {
			return err
		}
		if err := checkKeyPaths(t, pathHeads(in.Projection)); err != nil {
			return err
		}
		if e.limiter != nil {
			if err := e.admit(ctx, t, tableDemand(t, k, false, 0)); err != nil {
				return err
			}
		}
		raw, err := tx.Get(storageKey(t, k))
		size := 0
		switch {
		case errors.Is(err, storage.ErrNotFound):
		case err != nil:
			return fmt.Errorf("read item %s of %s: %w", k, t.Name, err)
		default:
			var js []byte
			if size, js, err = splitItem(raw); err != nil {
				return fmt.Errorf("read item %s of %s: %w", k, t.Name, err)
			}
			if out.Item, err = projectJSON(js, in.Projection); err != nil {
				return err
			}
		}
		units := readUnits(size, in.IsConsistent())
		e.charge([]throttle.Demand{tableDemand(t, k, false, units)})
		out.ConsumedCapacity = consumed(in.ReturnConsumedCapacity, t.Name, units, 0)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// projectJSON returns a stored item's JSON as is, or decoded, projected
// and re-encoded when a projection is given.
func projectJSON(js []byte, proj []*expr.Path) ([]byte, error) {
	if proj == nil {
		return js, nil
	}
	item, err := attr.DecodeItem(js)
	if err != nil {
		return nil, err
	}
	return attr.AppendItem(nil, eval.NewProjection(proj).Apply(item)), nil
}
