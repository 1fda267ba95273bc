package engine

import (
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/storage"
)

// DeleteItem deletes the item with the given key, if its condition holds.
// Deleting a missing item succeeds (and is charged one unit). It makes one
// change on the write path (write.go).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteItem.html
func (e *Engine) DeleteItem(ctx context.Context, in *api.DeleteItemInput) (*api.ItemOutput, error) {
	return writeOne(ctx, e, func(tx storage.Txn, w *singleWrite) (*api.ItemOutput, error) {
		c, err := w.begin(tx, *in.TableName, in.Key, keyOfKey)
		if err != nil {
			return nil, err
		}
		if err := c.readOld(tx, in.Condition != nil); err != nil {
			return nil, err
		}
		return w.finish(tx, &c, &in.CommonWrite)
	})
}
