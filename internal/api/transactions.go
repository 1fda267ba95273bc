package api

import (
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// Transaction limits.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
const (
	MaxTransactItems     = 100
	MaxTransactBytes     = 4 << 20
	maxClientTokenLength = 36
)

// decodeAction decodes one action object into a new *T unless it is
// null.
func decodeAction[T any](r *wire.Reader, dst **T, decode func(*T) error) error {
	if r.Peek() == wire.Null {
		return r.Skip()
	}
	a := new(T)
	*dst = a
	return decode(a)
}

// tooManyItems is the over-100 TransactItems error, in the current form
// of DynamoDB's message (which no longer echoes the list).
//
// Source: docs/research-transactions.md §3.
func tooManyItems(n int) error {
	if n <= MaxTransactItems {
		return nil
	}
	return ddberr.Validation("1 validation error detected: Value at 'TransactItems' failed to satisfy constraint: Member must have length less than or equal to 100")
}
