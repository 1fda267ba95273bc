package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/wire"
)

// DynamoDB Streams: the read side (ListStreams, DescribeStream,
// GetShardIterator, GetRecords).
//
// A shard iterator is "<StreamArn>|1|<base64>", the shape DynamoDB's
// have; the opaque part holds the shard number, the position (a stamp,
// and whether the record at it is included), the time the iterator was
// issued (it expires 15 minutes later) and a checksum over all of it.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Operations_Amazon_DynamoDB_Streams.html;
// messages in docs/research-streams.md §4, §5.

// maxRecordsBytes caps one GetRecords response, as DynamoDB's 1 MB.
const maxRecordsBytes = 1 << 20

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

// ListStreams lists streams, all or a table's, oldest label first per
// table, with paging by ExclusiveStartStreamArn.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_ListStreams.html
func (e *Engine) ListStreams(ctx context.Context, in *api.ListStreamsInput) (*api.ListStreamsOutput, error) {
	var table, afterTable, afterLabel string
	if in.TableName != nil {
		table = *in.TableName
	}
	if in.ExclusiveStartStreamArn != nil {
		var err error
		if afterTable, afterLabel, err = parseStreamArn(*in.ExclusiveStartStreamArn); err != nil {
			return nil, err
		}
	}
	limit := 100
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	var streams []*catalog.Stream
	err := e.read(ctx, func(tx storage.Txn) error {
		var err error
		streams, err = catalog.ListStreams(tx, table, afterTable, afterLabel)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := &api.ListStreamsOutput{Streams: []api.StreamSummary{}}
	region := e.region(ctx)
	for i, st := range streams {
		if i == limit {
			out.LastEvaluatedStreamArn = out.Streams[i-1].StreamArn
			break
		}
		out.Streams = append(out.Streams, api.StreamSummary{
			StreamArn: e.streamArn(region, st.Table, st.Label), TableName: st.Table, StreamLabel: st.Label,
		})
	}
	return out, nil
}

// DescribeStream describes a stream and its shards (in creation order),
// with paging by ExclusiveStartShardId and the CHILD_SHARDS filter.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_DescribeStream.html
func (e *Engine) DescribeStream(ctx context.Context, in *api.DescribeStreamInput) (*api.DescribeStreamOutput, error) {
	st, err := e.readStream(ctx, *in.StreamArn)
	if err != nil {
		return nil, err
	}
	table, label, _ := parseStreamArn(*in.StreamArn)
	d := api.StreamDescription{
		StreamArn: e.streamArn(e.region(ctx), table, label), StreamLabel: st.Label,
		StreamStatus: st.Status(e.opts.Now()), StreamViewType: st.ViewType, TableName: st.Table,
		CreationRequestDateTime: epochSeconds(st.Created), Shards: []api.ShardDescription{},
	}
	for _, k := range st.KeySchema {
		d.KeySchema = append(d.KeySchema, [2]string{k.AttributeName, k.KeyType})
	}
	shards := st.Shards
	if in.ShardFilterShardId != nil {
		var children []catalog.Shard
		for _, sh := range shards {
			if sh.Parent == *in.ShardFilterShardId {
				children = append(children, sh)
			}
		}
		shards = children
	}
	if in.ExclusiveStartShardId != nil {
		// An unknown start shard gives an empty page, as in DynamoDB.
		start := len(shards)
		for i, sh := range shards {
			if sh.ID == *in.ExclusiveStartShardId {
				start = i + 1
			}
		}
		shards = shards[start:]
	}
	limit := 100
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	if len(shards) > limit {
		shards = shards[:limit]
		d.LastEvaluatedShardID = shards[limit-1].ID
	}
	err = e.read(ctx, func(tx storage.Txn) error {
		for _, sh := range shards {
			first, last, err := shardEnds(tx, st.Number, sh.Number)
			if err != nil {
				return err
			}
			sd := api.ShardDescription{ShardID: sh.ID, ParentShardID: sh.Parent, Starting: sequenceNumber(first)}
			if sh.Closed != 0 {
				sd.Ending = sequenceNumber(last)
			}
			d.Shards = append(d.Shards, sd)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &api.DescribeStreamOutput{Stream: d}, nil
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
			return nil, nil, err
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

// trimHorizon returns the stamp of the last record trimmed from a shard
// (all zeros: none).
func trimHorizon(tx storage.Txn, stream uint64, shard uint32) ([]byte, error) {
	v, err := tx.Get(trimKey(stream, shard))
	if errors.Is(err, storage.ErrNotFound) {
		return make([]byte, storage.StampLen), nil
	}
	if err != nil {
		return nil, err
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

// GetShardIterator returns an iterator for a shard at TRIM_HORIZON (the
// oldest record kept), LATEST (after the newest), or at or after a
// sequence number.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetShardIterator.html
func (e *Engine) GetShardIterator(ctx context.Context, in *api.GetShardIteratorInput) (*api.GetShardIteratorOutput, error) {
	st, err := e.readStream(ctx, *in.StreamArn)
	if err != nil {
		return nil, err
	}
	sh := st.Shard(*in.ShardId)
	if sh == nil {
		return nil, ddberr.New(ddberr.ResourceNotFoundException, "Requested resource not found: Shard does not exist")
	}
	it := shardIterator{arn: *in.StreamArn, shard: sh.Number, issued: e.opts.Now()}
	err = e.read(ctx, func(tx storage.Txn) error {
		horizon, err := trimHorizon(tx, st.Number, sh.Number)
		if err != nil {
			return err
		}
		first, last, err := shardEnds(tx, st.Number, sh.Number)
		if err != nil {
			return err
		}
		switch *in.ShardIteratorType {
		case "TRIM_HORIZON":
			it.stamp = horizon
		case "LATEST":
			it.stamp = last
		default:
			stamp, ok := parseSequenceNumber(*in.SequenceNumber)
			if !ok || bytes.Compare(stamp, first) < 0 || (sh.Closed != 0 && bytes.Compare(stamp, last) > 0) {
				return ddberr.Validation("Invalid SequenceNumber: " + *in.SequenceNumber + " for shard: " + sh.ID + ", it is not in the shard's sequence number range")
			}
			it.stamp, it.inclusive = stamp, *in.ShardIteratorType == "AT_SEQUENCE_NUMBER"
			if beforeHorizon(it.stamp, it.inclusive, horizon) {
				return errTrimmed
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &api.GetShardIteratorOutput{ShardIterator: it.encode()}, nil
}

// GetRecords returns the records of a shard from an iterator's position,
// at most Limit (1,000 by default) and 1 MB of them, and the iterator
// for the next call. A closed shard read to its end has no next
// iterator; an open one always has.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetRecords.html
func (e *Engine) GetRecords(ctx context.Context, in *api.GetRecordsInput) (*api.GetRecordsOutput, error) {
	it, err := parseShardIterator(*in.ShardIterator)
	if err != nil {
		return nil, err
	}
	now := e.opts.Now()
	if now.Sub(it.issued) > iteratorLifetime {
		return nil, ddberr.New(ddberr.ExpiredIteratorException, "Iterator expired. The iterator was created at time "+
			it.issued.UTC().Format(time.RFC1123)+" while right now it is "+now.UTC().Format(time.RFC1123)+
			" which is further in the future than the tolerated delay of 900000 milliseconds.")
	}
	st, err := e.readStream(ctx, it.arn)
	if err != nil {
		return nil, err
	}
	var sh *catalog.Shard
	for i := range st.Shards {
		if st.Shards[i].Number == it.shard {
			sh = &st.Shards[i]
		}
	}
	if sh == nil {
		return nil, errTrimmed // removed with its records after the retention period
	}
	limit := 1000
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	out := &api.GetRecordsOutput{Records: [][]byte{}}
	region := e.region(ctx)
	err = e.read(ctx, func(tx storage.Txn) error {
		horizon, err := trimHorizon(tx, st.Number, sh.Number)
		if err != nil {
			return err
		}
		if beforeHorizon(it.stamp, it.inclusive, horizon) {
			return errTrimmed
		}
		prefix := shardPrefix(st.Number, sh.Number)
		lower := append(append([]byte(nil), prefix...), it.stamp...)
		if !it.inclusive {
			lower = append(lower, 0)
		}
		scan, err := tx.Scan(lower, shardPrefix(st.Number, sh.Number+1), false)
		if err != nil {
			return err
		}
		defer scan.Close() // again after the explicit Close: harmless
		pos, full, closed, bytesOut := it.stamp, false, sh.Closed != 0, 0
		inclusive := it.inclusive
		for scan.Next() {
			if len(out.Records) == limit || bytesOut >= maxRecordsBytes {
				full = true
				break
			}
			stamp := scan.Key()[len(prefix):]
			v := scan.Value()
			pos, inclusive = append(pos[:0:0], stamp...), false
			switch {
			case len(v) == 0:
				return errCorruptRecord
			case v[0] == markClose:
				closed = true
				continue
			case v[0] != markRecord:
				continue
			}
			rec, err := decodeRecord(v)
			if err != nil {
				return err
			}
			js := appendRecordJSON(nil, st, region, stamp, rec)
			bytesOut += len(js)
			out.Records = append(out.Records, js)
		}
		if err := scan.Close(); err != nil {
			return err
		}
		if full || !closed {
			next := shardIterator{arn: it.arn, shard: it.shard, stamp: pos, inclusive: inclusive, issued: now}
			out.NextShardIterator = next.encode()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// appendRecordJSON appends one record as the Streams API sends it.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_Record.html
func appendRecordJSON(dst []byte, st *catalog.Stream, region string, stamp []byte, r streamRecord) []byte {
	h := fnv.New128a()
	h.Write(binary.BigEndian.AppendUint64(nil, st.Number))
	h.Write(stamp)
	dst = append(dst, `{"eventID":"`...)
	dst = hex.AppendEncode(dst, h.Sum(nil))
	dst = append(dst, `","eventName":"`...)
	switch r.event {
	case eventInsert:
		dst = append(dst, "INSERT"...)
	case eventModify:
		dst = append(dst, "MODIFY"...)
	default:
		dst = append(dst, "REMOVE"...)
	}
	dst = append(dst, `","eventVersion":"1.1","eventSource":"aws:dynamodb","awsRegion":`...)
	dst = wire.AppendString(dst, region)
	dst = append(dst, `,"dynamodb":{"ApproximateCreationDateTime":`...)
	dst = strconv.AppendInt(dst, r.created, 10)
	dst = append(dst, `,"Keys":`...)
	dst = append(dst, r.keys...)
	if r.newImage != nil {
		dst = append(dst, `,"NewImage":`...)
		dst = append(dst, r.newImage...)
	}
	if r.oldImage != nil {
		dst = append(dst, `,"OldImage":`...)
		dst = append(dst, r.oldImage...)
	}
	dst = append(dst, `,"SequenceNumber":"`...)
	dst = append(dst, sequenceNumber(stamp)...)
	dst = append(dst, `","SizeBytes":`...)
	dst = strconv.AppendInt(dst, r.sizeBytes, 10)
	dst = append(dst, `,"StreamViewType":`...)
	dst = wire.AppendString(dst, st.ViewType)
	dst = append(dst, '}')
	if r.byService {
		dst = append(dst, `,"userIdentity":{"PrincipalId":"dynamodb.amazonaws.com","Type":"Service"}`...)
	}
	return append(dst, '}')
}
