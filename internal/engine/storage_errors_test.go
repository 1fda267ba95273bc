package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/storage"
)

// TestStorageErrorsNameTheItem: an error from storage reaches the caller
// wrapped with what the engine was doing and on which item (house rule 6:
// "wrap with a few words"), and stays classifiable with errors.Is. A
// stored item that does not decode is errCorruptItem, named the same way.
func TestStorageErrorsNameTheItem(t *testing.T) {
	e, _ := faultEngine(t)
	tab := mustLookup(t, e, "Retry")
	corrupt(t, e, storageKey(tab, tableKey{hash: attr.Str("a")}))
	for _, tc := range []struct {
		name, want string
		do         func() error
	}{
		{"GetItem", `read item S:"a" of Retry`, func() error {
			_, err := run(e, (*Engine).GetItem, `{"TableName":"Retry","Key":{"pk":{"S":"a"}}}`)
			return err
		}},
		{"UpdateItem", `read item S:"a" of Retry`, func() error {
			_, err := run(e, (*Engine).UpdateItem, `{"TableName":"Retry","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET n = :n","ExpressionAttributeValues":{":n":{"N":"1"}}}`)
			return err
		}},
		{"Scan", `read table Retry`, func() error {
			_, err := run(e, (*Engine).Scan, `{"TableName":"Retry"}`)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			if !errors.Is(err, errCorruptItem) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s: %v, want errCorruptItem wrapped with %q", tc.name, err, tc.want)
			}
		})
	}
}

// corrupt overwrites the stored value at key with bytes that are no
// stored item.
func corrupt(t testing.TB, e *Engine, key []byte) {
	t.Helper()
	if err := e.update(context.Background(), func(tx storage.Txn) error { return tx.Set(key, []byte{0xEE, 0x01}) }); err != nil {
		t.Fatal(err)
	}
}
