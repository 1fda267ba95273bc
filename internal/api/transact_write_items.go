package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strconv"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// TransactWriteItem is one entry of TransactWriteItems: exactly one of
// ConditionCheck, Put, Delete and Update, each decoded and validated as
// the single-item operation it mirrors (ConditionCheck as a DeleteItem
// that must carry a ConditionExpression and writes nothing).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItem.html
type TransactWriteItem struct {
	ConditionCheck *DeleteItemInput
	Put            *PutItemInput
	Delete         *DeleteItemInput
	Update         *UpdateItemInput
}

// actionCount returns how many actions an entry carries.
func (it *TransactWriteItem) actionCount() int {
	n := 0
	if it.ConditionCheck != nil {
		n++
	}
	if it.Put != nil {
		n++
	}
	if it.Delete != nil {
		n++
	}
	if it.Update != nil {
		n++
	}
	return n
}

// Common returns the members the entry's action shares with every write.
func (it *TransactWriteItem) Common() *CommonWrite {
	switch {
	case it.ConditionCheck != nil:
		return &it.ConditionCheck.CommonWrite
	case it.Put != nil:
		return &it.Put.CommonWrite
	case it.Delete != nil:
		return &it.Delete.CommonWrite
	}
	return &it.Update.CommonWrite
}

// TransactWriteItemsInput is the TransactWriteItems request. Prepare
// prepares every action as its single-item operation does: each action's
// Condition, and an Update's Update.
type TransactWriteItemsInput struct {
	TransactItems               []TransactWriteItem
	ReturnConsumedCapacity      *string
	ReturnItemCollectionMetrics *string
	ClientRequestToken          *string
	// Fingerprint identifies the request for ClientRequestToken
	// idempotency: the SHA-256 of its body in canonical form (object
	// members sorted, no whitespace), so that a retry of the same request
	// matches however its JSON was laid out, as DynamoDB ignores member
	// order.
	Fingerprint [sha256.Size]byte
	// PayloadSize is the request body's length in bytes.
	PayloadSize int
	hasItems    bool
}

// KeepBody implements BodyKeeper.
func (in *TransactWriteItemsInput) KeepBody(body []byte) {
	in.Fingerprint, in.PayloadSize = sha256.Sum256(canonicalJSON(body)), len(body)
}

// canonicalJSON re-encodes a decoded request body with sorted object
// members and no insignificant whitespace (numbers kept as written).
func canonicalJSON(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return body
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

// Decode implements Input.
func (in *TransactWriteItemsInput) Decode(r *wire.Reader) error {
	_, err := object(r, "TransactWriteItemsInput", func(k string) error {
		switch k {
		case "TransactItems":
			list := []TransactWriteItem{}
			ok, err := r.Array("List", func(int) error {
				var it TransactWriteItem
				_, err := object(r, "TransactWriteItem", func(k string) error {
					switch k {
					case "ConditionCheck":
						return decodeAction(r, &it.ConditionCheck, func(a *DeleteItemInput) error { return a.decodeWith(r, "ConditionCheck", "Key", &a.Key) })
					case "Put":
						return decodeAction(r, &it.Put, func(a *PutItemInput) error { return a.decodeWith(r, "Put", "Item", &a.Item) })
					case "Delete":
						return decodeAction(r, &it.Delete, func(a *DeleteItemInput) error { return a.decodeWith(r, "Delete", "Key", &a.Key) })
					case "Update":
						return decodeAction(r, &it.Update, func(a *UpdateItemInput) error { return a.Decode(r) })
					}
					return r.Skip()
				})
				list = append(list, it)
				return err
			})
			if ok {
				in.TransactItems, in.hasItems = list, true
			}
			return err
		case "ReturnConsumedCapacity":
			return readString(r, &in.ReturnConsumedCapacity)
		case "ReturnItemCollectionMetrics":
			return readString(r, &in.ReturnItemCollectionMetrics)
		case "ClientRequestToken":
			return readString(r, &in.ClientRequestToken)
		}
		return r.Skip()
	})
	return err
}

// Prepare applies TransactWriteItems' checks that need no table: member
// constraints (1 to 100 entries, the token's length), one action per
// entry, a condition on every ConditionCheck, then each action's own
// checks and parsing as its single-item operation has them, in entry
// order.
//
// Messages: docs/research-transactions.md.
func (in *TransactWriteItemsInput) Prepare() error {
	var c constraints
	// DynamoDB reports the token first (docs/research-transactions.md §3).
	if t := in.ClientRequestToken; t != nil {
		if charLen(*t) < 1 {
			c.add(*t, false, "clientRequestToken", "Member must have length greater than or equal to 1")
		}
		if charLen(*t) > maxClientTokenLength {
			c.add(*t, false, "clientRequestToken", "Member must have length less than or equal to 36")
		}
	}
	if !in.hasItems {
		c.add("", true, "transactItems", "Member must not be null")
	} else {
		if len(in.TransactItems) < 1 {
			c.add("[]", false, "transactItems", "Member must have length greater than or equal to 1")
		}
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, returnConsumedCapacityValues...)
	c.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, returnItemCollectionMetricsValues...)
	for i := range in.TransactItems {
		if cc := in.TransactItems[i].ConditionCheck; cc != nil && cc.ConditionExpression == nil {
			c.add("", true, "transactItems."+strconv.Itoa(i+1)+".member.conditionCheck.conditionExpression", "Member must not be null")
		}
	}
	if err := c.err(); err != nil {
		return err
	}
	if err := tooManyItems(len(in.TransactItems)); err != nil {
		return err
	}
	if in.PayloadSize > MaxTransactBytes {
		return ddberr.Validation("Transaction payload size cannot exceed 4 MB")
	}
	for i := range in.TransactItems {
		it := &in.TransactItems[i]
		switch it.actionCount() {
		case 0:
			// Source: docs/research-transactions.md §3 (us-east-1's text).
			return ddberr.Validation("Invalid Request: TransactWriteRequest should contain Delete or Put or Update request")
		case 1:
		default:
			return ddberr.Validation("TransactItems can only contain one of Check, Put, Update or Delete")
		}
		p := "transactItems." + strconv.Itoa(i+1) + ".member."
		// us-east-1 checks transactions' values in the older layer
		// (valueLayers.test.ts: us-east-1, eu-west-1 and us-west-2;
		// eu-west-2 runs the current one).
		it.Common().ExpressionParams.layer = attr.OlderLayer
		var err error
		switch {
		case it.ConditionCheck != nil:
			err = it.ConditionCheck.prepareWith(p+"conditionCheck.", "key", it.ConditionCheck.Key)
		case it.Put != nil:
			err = it.Put.prepareWith(p+"put.", "item", it.Put.Item)
		case it.Delete != nil:
			err = it.Delete.prepareWith(p+"delete.", "key", it.Delete.Key)
		case it.Update != nil:
			err = it.Update.prepare(p + "update.")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// TransactWriteItemsOutput is the TransactWriteItems response.
type TransactWriteItemsOutput struct {
	ConsumedCapacity      []*ConsumedCapacity
	ItemCollectionMetrics map[string][][]byte
}

// AppendJSON appends the response body.
func (o *TransactWriteItemsOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	start := len(dst)
	dst = appendCapacities(dst, o.ConsumedCapacity)
	if len(o.ItemCollectionMetrics) > 0 {
		dst = append(dst, `,"ItemCollectionMetrics":`...)
		dst = appendTableLists(dst, o.ItemCollectionMetrics)
	}
	if len(dst) > start {
		// Drop the leading comma of the first member.
		dst = append(dst[:start], dst[start+1:]...)
	}
	return append(dst, '}')
}
