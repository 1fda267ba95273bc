package api

import (
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/wire"
)

// PutItemInput is the PutItem request. Prepare sets Condition (from
// ConditionExpression or Expected) and canonicalises Item's values.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html
type PutItemInput struct {
	CommonWrite
	Item attr.Item
}

// Decode implements Input.
func (in *PutItemInput) Decode(r *wire.Reader) error {
	return in.decodeWith(r, "PutItemInput", "Item", &in.Item)
}

// Prepare checks the request without the table and parses its
// condition. Its messages come in the single-error envelope, as
// DynamoDB's current validation layer sends them for PutItem.
func (in *PutItemInput) Prepare() error { return in.prepareEnvelope("item", in.Item) }
