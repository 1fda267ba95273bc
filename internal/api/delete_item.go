package api

import (
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/wire"
)

// DeleteItemInput is the DeleteItem request.
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

// Validate checks the request without the table, in the single-error
// envelope DynamoDB uses for DeleteItem.
func (in *DeleteItemInput) Validate() error { return in.validateEnvelope("key", in.Key) }
