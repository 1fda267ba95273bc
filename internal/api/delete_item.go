package api

import (
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/wire"
)

// DeleteItemInput is the DeleteItem request. Prepare sets Condition (from
// ConditionExpression or Expected) and canonicalises Key's values.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteItem.html
type DeleteItemInput struct {
	CommonWrite
	Key attr.Item
}

// Decode implements Input.
func (in *DeleteItemInput) Decode(r *wire.Reader) error {
	return in.decodeWith(r, "DeleteItemInput", "Key", &in.Key)
}

// Prepare checks the request without the table, in the single-error
// envelope DynamoDB uses for DeleteItem, and parses its condition.
func (in *DeleteItemInput) Prepare() error { return in.prepareEnvelope("key", in.Key) }
