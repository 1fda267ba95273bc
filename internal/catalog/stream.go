package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dynago/dynago/internal/storage"
)

// Streams.
//
// A table's catalog entry says whether its stream is enabled and names
// its latest stream (TableStream). Each stream, current or past, has its
// own descriptor at "c/s/<TableName>/<StreamLabel>" (Stream), so that a
// disabled stream, or the stream of a deleted table, stays listable and
// readable for the 24-hour retention period, as in DynamoDB. Keys sort
// by table name, then label (the enabling time), which is ListStreams'
// order.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html

// Stream view types.
const (
	ViewKeysOnly       = "KEYS_ONLY"
	ViewNewImage       = "NEW_IMAGE"
	ViewOldImage       = "OLD_IMAGE"
	ViewNewAndOldImage = "NEW_AND_OLD_IMAGES"
)

// Stream statuses.
const (
	StreamEnabling  = "ENABLING"
	StreamEnabled   = "ENABLED"
	StreamDisabling = "DISABLING"
	StreamDisabled  = "DISABLED"
)

// TableStream is a table's stream setting: whether its latest stream is
// enabled, with which view type, and that stream's label. Label stays
// set after the stream is disabled (DescribeTable keeps reporting
// LatestStreamArn and LatestStreamLabel).
type TableStream struct {
	Enabled  bool   `json:"on"`
	ViewType string `json:"view,omitempty"`
	Label    string `json:"label"`
	// Tags are the live stream's own tags (TagResource on its ARN), apart
	// from the table's; a new stream starts with none.
	Tags []Tag `json:"tags,omitempty"`
}

// Stream is one stream's descriptor.
type Stream struct {
	Table string `json:"table"`
	// TableNumber is the number of the table it was created on (a table
	// re-created under the same name has a new number).
	TableNumber uint64 `json:"tableNum"`
	// Number names the key space of the stream's records.
	Number    uint64       `json:"num"`
	Label     string       `json:"label"`
	ViewType  string       `json:"view"`
	KeySchema []KeyElement `json:"keySchema"`
	// Created is when the stream was enabled, Disabled when it was
	// disabled (0: never), Settled when the latest of those changes
	// completes (ENABLING → ENABLED, DISABLING → DISABLED); all Unix ns.
	Created  int64 `json:"created"`
	Disabled int64 `json:"disabled,omitempty"`
	Settled  int64 `json:"settled,omitempty"`
	// Shards are the stream's shards not yet trimmed away, in creation
	// order; LastShard is the last shard number allocated.
	Shards    []Shard `json:"shards"`
	LastShard uint32  `json:"lastShard"`
}

// Shard is one shard of a stream. Records of items whose partition-key
// hash falls in [HashLo, HashHi] go to the open shard covering it, so all
// records of one item are in one shard at a time, and a closed shard's
// child continues its range.
type Shard struct {
	// Number names the shard's key space inside the stream's.
	Number uint32 `json:"num"`
	ID     string `json:"id"`
	Parent string `json:"parent,omitempty"`
	HashLo uint64 `json:"lo"`
	HashHi uint64 `json:"hi"`
	// Created and Closed (0: open) are Unix ns.
	Created int64 `json:"created"`
	Closed  int64 `json:"closed,omitempty"`
}

// Status returns the stream's status at time now.
func (s *Stream) Status(now time.Time) string {
	settling := now.UnixNano() < s.Settled
	switch {
	case s.Disabled == 0 && settling:
		return StreamEnabling
	case s.Disabled == 0:
		return StreamEnabled
	case settling:
		return StreamDisabling
	}
	return StreamDisabled
}

// Shard returns the shard with id, or nil.
func (s *Stream) Shard(id string) *Shard {
	for i := range s.Shards {
		if s.Shards[i].ID == id {
			return &s.Shards[i]
		}
	}
	return nil
}

// OpenShard returns the open shard whose range covers hash, or nil (the
// stream is disabled).
func (s *Stream) OpenShard(hash uint64) *Shard {
	for i := range s.Shards {
		sh := &s.Shards[i]
		if sh.Closed == 0 && sh.HashLo <= hash && hash <= sh.HashHi {
			return sh
		}
	}
	return nil
}

var streamPrefix = []byte("c/s/")

// StreamKey returns the storage key of a stream's descriptor.
func StreamKey(table, label string) []byte {
	k := append(append([]byte(nil), streamPrefix...), table...)
	return append(append(k, '/'), label...)
}

// ErrStreamNotFound is returned when a stream does not exist.
var ErrStreamNotFound = errors.New("catalog: stream not found")

// DecodeStream decodes a stored stream descriptor.
func DecodeStream(raw []byte) (*Stream, error) {
	var s Stream
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("decode stream descriptor: %w", err)
	}
	return &s, nil
}

// GetStream reads a stream's descriptor in tx, with its stored bytes.
func GetStream(tx storage.Txn, table, label string) (*Stream, []byte, error) {
	raw, err := tx.Get(StreamKey(table, label))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil, ErrStreamNotFound
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read stream %s/%s: %w", table, label, err)
	}
	s, err := DecodeStream(raw)
	return s, raw, err
}

// PutStream writes a stream's descriptor in tx.
func PutStream(tx storage.Txn, s *Stream) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return tx.Set(StreamKey(s.Table, s.Label), raw)
}

// DeleteStream removes a stream's descriptor in tx.
func DeleteStream(tx storage.Txn, s *Stream) error {
	return tx.Delete(StreamKey(s.Table, s.Label))
}

// ListStreams returns the descriptors of every stream (of table, when
// not empty) in key order, starting after the stream (afterTable,
// afterLabel) when afterTable is not empty.
func ListStreams(tx storage.Txn, table, afterTable, afterLabel string) ([]*Stream, error) {
	var out []*Stream
	err := ScanStreams(tx, table, afterTable, afterLabel, func(_, raw []byte) error {
		s, err := DecodeStream(raw)
		if err == nil {
			out = append(out, s)
		}
		return err
	})
	return out, err
}

// ScanStreams calls fn with the storage key and stored bytes of each
// stream descriptor ListStreams would return, in the same order; the
// slices are valid only during the call.
func ScanStreams(tx storage.Txn, table, afterTable, afterLabel string, fn func(key, raw []byte) error) error {
	lower := append([]byte(nil), streamPrefix...)
	upper := append([]byte(nil), streamPrefix...)
	upper[len(upper)-1]++
	if table != "" {
		lower = append(append(lower, table...), '/')
		upper = append(append(append([]byte(nil), streamPrefix...), table...), '/'+1)
	}
	if afterTable != "" {
		if after := append(StreamKey(afterTable, afterLabel), 0); string(after) > string(lower) {
			lower = after
		}
	}
	it, err := tx.Scan(lower, upper, false)
	if err != nil {
		return err
	}
	for it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			it.Close()
			return err
		}
	}
	return it.Close()
}
