package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"time"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
)

// DynamoDB Streams: what the read side shares (ListStreams,
// DescribeStream, GetShardIterator and GetRecords are in their own
// files).
//
// A shard iterator is "<StreamArn>|1|<base64>", the shape DynamoDB's
// have; the opaque part holds the shard number, the position (a stamp,
// and whether the record at it is included), the time the iterator was
// issued (it expires 15 minutes later) and a checksum over all of it.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Operations_Amazon_DynamoDB_Streams.html;
// messages in docs/research-streams.md §4, §5.

// parseStreamArn returns the table and label of a stream ARN
// (arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL), or
// ValidationException "Invalid StreamArn".
func parseStreamArn(arn string) (table, label string, err error) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) == 6 && parts[0] == "arn" && parts[2] == "dynamodb" && strings.HasPrefix(parts[5], "table/") {
		rest := parts[5][len("table/"):]
		if i := strings.Index(rest, "/stream/"); i > 0 && i+len("/stream/") < len(rest) {
			return rest[:i], rest[i+len("/stream/"):], nil
		}
	}
	return "", "", ddberr.Validation("Invalid StreamArn")
}

// readStream reads a stream's descriptor by ARN for a read operation.
func (e *Engine) readStream(ctx context.Context, arn string) (*catalog.Stream, error) {
	table, label, err := parseStreamArn(arn)
	if err != nil {
		return nil, err
	}
	var st *catalog.Stream
	err = e.read(ctx, func(tx storage.Txn) error {
		var err error
		st, err = e.stream(tx, table, label)
		return err
	})
	if errors.Is(err, catalog.ErrStreamNotFound) {
		return nil, streamNotFound(arn)
	}
	return st, err
}

// shardEnds returns the stamps of a shard's first and last stamped keys
// (its open marker and its newest key).
func shardEnds(tx storage.Txn, stream uint64, shard uint32) (first, last []byte, err error) {
	prefix := shardPrefix(stream, shard)
	lower := append(trimKey(stream, shard), 0)
	upper := shardPrefix(stream, shard+1)
	for _, reverse := range []bool{false, true} {
		it, err := tx.Scan(lower, upper, reverse)
		if err != nil {
			return nil, nil, fmt.Errorf("shard %d of stream %d: scan: %w", shard, stream, err)
		}
		stamp := make([]byte, storage.StampLen)
		if it.Next() {
			copy(stamp, it.Key()[len(prefix):])
		}
		if err := it.Close(); err != nil {
			return nil, nil, err
		}
		if reverse {
			last = stamp
		} else {
			first = stamp
		}
	}
	return first, last, nil
}

// capStamp returns stamp, or the position just past every key stamped
// horizon if stamp is above it.
func capStamp(stamp []byte, horizon uint64) []byte {
	if binary.BigEndian.Uint64(stamp) <= horizon {
		return stamp
	}
	out := binary.BigEndian.AppendUint64(make([]byte, 0, storage.StampLen), horizon)
	return append(out, 0xff, 0xff)
}

// trimHorizon returns the stamp of the last record trimmed from a shard
// (all zeros: none).
func trimHorizon(tx storage.Txn, stream uint64, shard uint32) ([]byte, error) {
	v, err := tx.Get(trimKey(stream, shard))
	if errors.Is(err, storage.ErrNotFound) {
		return make([]byte, storage.StampLen), nil
	}
	if err != nil {
		return nil, fmt.Errorf("trim horizon of shard %d of stream %d: %w", shard, stream, err)
	}
	if len(v) != 1+storage.StampLen || v[0] != markTrim {
		return nil, errCorruptRecord
	}
	return v[1:], nil
}

// shardIterator is a decoded shard iterator.
type shardIterator struct {
	arn       string
	shard     uint32
	stamp     []byte // position
	inclusive bool   // the record at stamp is included
	issued    time.Time
}

// encode formats the iterator.
func (it shardIterator) encode() string {
	p := make([]byte, 0, 4+1+storage.StampLen+8+4)
	p = binary.BigEndian.AppendUint32(p, it.shard)
	incl := byte(0)
	if it.inclusive {
		incl = 1
	}
	p = append(p, incl)
	p = append(p, it.stamp...)
	p = binary.BigEndian.AppendUint64(p, uint64(it.issued.UnixMilli()))
	p = binary.BigEndian.AppendUint32(p, crc32.ChecksumIEEE(append([]byte(it.arn), p...)))
	return it.arn + "|1|" + base64.StdEncoding.EncodeToString(p)
}

// errInvalidIterator is GetRecords' answer to an iterator dynago did not
// issue.
var errInvalidIterator = ddberr.Validation("Invalid ShardIterator")

// parseShardIterator decodes an iterator.
func parseShardIterator(s string) (shardIterator, error) {
	var it shardIterator
	j := strings.LastIndexByte(s, '|')
	if j < 0 {
		return it, errInvalidIterator
	}
	i := strings.LastIndexByte(s[:j], '|')
	if i < 0 || s[i+1:j] != "1" {
		return it, errInvalidIterator
	}
	it.arn = s[:i]
	p, err := base64.StdEncoding.DecodeString(s[j+1:])
	if err != nil || len(p) != 4+1+storage.StampLen+8+4 {
		return it, errInvalidIterator
	}
	body, sum := p[:len(p)-4], binary.BigEndian.Uint32(p[len(p)-4:])
	if crc32.ChecksumIEEE(append([]byte(it.arn), body...)) != sum || body[4] > 1 {
		return it, errInvalidIterator
	}
	if _, _, err := parseStreamArn(it.arn); err != nil {
		return it, errInvalidIterator
	}
	it.shard = binary.BigEndian.Uint32(body)
	it.inclusive = body[4] == 1
	it.stamp = append([]byte(nil), body[5:5+storage.StampLen]...)
	it.issued = time.UnixMilli(int64(binary.BigEndian.Uint64(body[5+storage.StampLen:])))
	return it, nil
}

// errTrimmed is DynamoDB Streams' TrimmedDataAccessException.
var errTrimmed = ddberr.New(ddberr.TrimmedDataAccessException, "The data you are trying to access has been trimmed")

// beforeHorizon reports whether a position would read records already
// trimmed (stamps up to horizon).
func beforeHorizon(stamp []byte, inclusive bool, horizon []byte) bool {
	c := bytes.Compare(stamp, horizon)
	return c < 0 || (c == 0 && inclusive && !allZero(horizon))
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
