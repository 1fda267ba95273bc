package engine

import (
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/storage"
)

// PutItem creates or replaces an item, if its condition holds. It makes
// one change on the write path (write.go).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html
func (e *Engine) PutItem(ctx context.Context, in *api.PutItemInput) (*api.ItemOutput, error) {
	size := in.Item.Size()
	stored := encodeItem(in.Item, size)
	rv := in.ReturnValue()
	return writeOne(ctx, e, func(tx storage.Txn, w *singleWrite) (*api.ItemOutput, error) {
		c, err := w.begin(tx, *in.TableName, in.Item, keyOfItem)
		if err != nil {
			return nil, err
		}
		if err := c.put(in.Item, stored, size); err != nil {
			return nil, err
		}
		// A plain put need not read the item it replaces: concurrent puts
		// of one key are last-writer-wins in DynamoDB too. Index
		// maintenance needs the old item's index keys, the stream its
		// image, and the capacity reported is that of the larger of the
		// two items. Metering and throttling alone do not read it: they
		// charge a plain put by its new item (reading the old one would
		// cost about 15% of a put's CPU; only an overwrite by a smaller
		// item differs).
		if hasIndexes(c.t) || streamed(c.t) || in.Condition != nil || rv == "ALL_OLD" || wantsCapacity(in.ReturnConsumedCapacity) {
			if err := c.readOld(tx, in.Condition != nil || rv == "ALL_OLD"); err != nil {
				return nil, err
			}
		}
		return w.finish(tx, &c, &in.CommonWrite)
	})
}
