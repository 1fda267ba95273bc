package engine

import (
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/keycodec"
)

// Stored item format: one version byte, the item's DynamoDB size as a
// uvarint, then the item's JSON (attr.AppendItem). Keeping the wire form
// means GetItem and Query copy stored bytes into the response without
// re-encoding; the size lets DescribeTable and capacity accounting avoid
// decoding.
const itemFormatV1 = 1

// encodeItem returns the stored form of a validated item.
func encodeItem(item attr.Item, size int) []byte {
	buf := make([]byte, 0, size+size/4+32)
	buf = append(buf, itemFormatV1)
	buf = binary.AppendUvarint(buf, uint64(size))
	return attr.AppendItem(buf, item)
}

// errCorruptItem is a stored item that does not decode; the reader wraps
// it with the item's key.
var errCorruptItem = errors.New("engine: corrupt stored item")

// splitItem returns a stored item's size and JSON.
func splitItem(stored []byte) (size int, json []byte, err error) {
	if len(stored) < 2 || stored[0] != itemFormatV1 {
		return 0, nil, errCorruptItem
	}
	n, w := binary.Uvarint(stored[1:])
	if w <= 0 {
		return 0, nil, errCorruptItem
	}
	return int(n), stored[1+w:], nil
}

// decodeStored decodes a stored item.
func decodeStored(stored []byte) (attr.Item, int, error) {
	size, js, err := splitItem(stored)
	if err != nil {
		return nil, 0, err
	}
	item, err := attr.DecodeItem(js)
	return item, size, err
}

// Key size limits.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-partition-sort-keys
const (
	maxPartitionKeyBytes = 2048
	maxSortKeyBytes      = 1024
)

// keyStyle selects how key errors are worded.
type keyStyle uint8

const (
	// keyOfItem: PutItem's item ("Missing the key ... in the item").
	keyOfItem keyStyle = iota
	// keyOfKey: a Key parameter: exactly the key attributes ("The
	// provided key element does not match the schema").
	keyOfKey
	// keyOfBatchItem: a BatchWriteItem PutRequest's item, which DynamoDB
	// words like a Key although it has other attributes too.
	keyOfBatchItem
)

// tableKey is a table item's primary key, resolved against its schema.
type tableKey struct {
	hash, rng attr.Value
	hasRange  bool
}

// String returns the key for errors and logs: the partition key value,
// then the sort key's, each as type:value ("S:USER#1/S:PROFILE").
func (k tableKey) String() string {
	s := k.hash.Kind().String() + ":" + strconv.Quote(k.hash.Text())
	if k.hasRange {
		s += "/" + k.rng.Kind().String() + ":" + strconv.Quote(k.rng.Text())
	}
	return s
}

// extractKey checks that item (or key) carries the table's key attributes
// with the right types and within DynamoDB's limits. With keyOfKey the
// attributes must be exactly the key attributes.
func extractKey(t *catalog.Table, item attr.Item, style keyStyle) (tableKey, error) {
	var k tableKey
	if style == keyOfKey && len(item) != len(t.KeySchema) {
		return k, ddberr.KeySchemaMismatch()
	}
	for i, ks := range t.KeySchema {
		name := ks.AttributeName
		want := t.AttributeType(name)
		v, ok := item[name]
		if !ok {
			if style == keyOfItem {
				return k, ddberr.InvalidParam("Missing the key " + name + " in the item")
			}
			return k, ddberr.KeySchemaMismatch()
		}
		if v.Kind() != want {
			if style == keyOfItem {
				return k, ddberr.InvalidParamf("Type mismatch for key %s expected: %s actual: %s", name, want, v.Kind())
			}
			return k, ddberr.KeySchemaMismatch()
		}
		if err := checkKeyValue(name, v, i == 0); err != nil {
			return k, err
		}
		if i == 0 {
			k.hash = v
		} else {
			k.rng, k.hasRange = v, true
		}
	}
	return k, nil
}

// emptyKeyValueError is the ValidationException for an empty string or
// binary key or index key value. TransactWriteItems raises it for the whole
// request rather than as a cancellation reason (isEmptyKeyError), so it is
// told apart by its type, not its text.
type emptyKeyValueError struct{ err *ddberr.Error }

func (e emptyKeyValueError) Error() string { return e.err.Error() }
func (e emptyKeyValueError) Unwrap() error { return e.err }

func emptyKeyValue(msg string) error { return emptyKeyValueError{ddberr.Validation(msg)} }

// isEmptyKeyError reports whether err is an emptyKeyValueError.
func isEmptyKeyError(err error) bool {
	var e emptyKeyValueError
	return errors.As(err, &e)
}

// checkKeyValue applies the empty-value and size rules to one key value.
func checkKeyValue(name string, v attr.Value, partition bool) error {
	if v.Kind() == attr.S && v.Text() == "" {
		return emptyKeyValue("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: " + name)
	}
	if v.Kind() == attr.B && v.Text() == "" {
		return emptyKeyValue("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: " + name)
	}
	if v.Kind() == attr.N {
		return nil
	}
	if partition && len(v.Text()) > maxPartitionKeyBytes {
		return ddberr.InvalidParam("Size of hashkey has exceeded the maximum size limit of2048 bytes")
	}
	if !partition && len(v.Text()) > maxSortKeyBytes {
		return ddberr.InvalidParam("Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
	}
	return nil
}

// space returns the key space of a table's items.
func space(t *catalog.Table) keycodec.Space { return keycodec.Space{Table: t.Number} }

// storageKey returns the storage key of a table item.
func storageKey(t *catalog.Table, k tableKey) []byte {
	if k.hasRange {
		return keycodec.AppendKey(nil, space(t), k.hash, k.rng)
	}
	return keycodec.AppendKey(nil, space(t), k.hash)
}

// checkItemSize enforces the 400 KB item limit.
func checkItemSize(size int) error {
	if size > attr.MaxItemSize {
		return ddberr.Validation("Item size has exceeded the maximum allowed size")
	}
	return nil
}

// prefixEnd returns the smallest key greater than every key with the
// given prefix (nil if there is none).
func prefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// successor returns the smallest key greater than k.
func successor(k []byte) []byte {
	return append(append(make([]byte, 0, len(k)+1), k...), 0)
}
