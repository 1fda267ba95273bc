package engine

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/wire"
)

// maxRecordsBytes caps one GetRecords response, as DynamoDB's 1 MB.
const maxRecordsBytes = 1 << 20

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
	// Records stamped above the store's horizon may still have a
	// transaction in flight below them (on TiKV). A read that meets one
	// asks the store to settle up to it and reads again; past that, the
	// next call reads them.
	stampHorizon, err := e.store.StampHorizon(ctx, 0)
	if err != nil {
		return nil, err
	}
	out, unsettled, err := e.readRecords(ctx, it, st, sh, limit, stampHorizon)
	if err != nil || unsettled == 0 {
		return out, err
	}
	// A large transaction still committing can hold the horizon for
	// seconds: past settleWait, answer with what has settled.
	wctx, cancel := context.WithTimeout(ctx, settleWait)
	defer cancel()
	if stampHorizon, err = e.store.StampHorizon(wctx, unsettled); err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return out, nil
		}
		return nil, err
	}
	out, _, err = e.readRecords(ctx, it, st, sh, limit, stampHorizon)
	return out, err
}

// settleWait bounds how long GetRecords and GetShardIterator wait for the
// store's stamp horizon to pass a record they have seen.
const settleWait = 2 * time.Second

// readRecords reads a shard from an iterator's position up to the stamp
// horizon; unsettled is 0, or, when it met a stamp above the horizon,
// the shard's newest commit stamp.
func (e *Engine) readRecords(ctx context.Context, it shardIterator, st *catalog.Stream, sh *catalog.Shard, limit int, stampHorizon uint64) (out *api.GetRecordsOutput, unsettled uint64, err error) {
	out = &api.GetRecordsOutput{Records: [][]byte{}}
	region := e.region(ctx)
	now := e.opts.Now()
	err = e.read(ctx, func(tx storage.Txn) error {
		out.Records, out.NextShardIterator, unsettled = out.Records[:0], "", 0
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
			return fmt.Errorf("read shard %s: %w", sh.ID, err)
		}
		defer scan.Close() // again after the explicit Close: harmless
		pos, full, closed, bytesOut := it.stamp, false, sh.Closed != 0, 0
		inclusive := it.inclusive
		for scan.Next() {
			if len(out.Records) == limit {
				full = true
				break
			}
			stamp := scan.Key()[len(prefix):]
			if binary.BigEndian.Uint64(stamp) > stampHorizon {
				// Not yet readable: the caller settles up to the shard's
				// newest stamp, so that a second read returns every
				// record this one could see.
				_, last, err := shardEnds(tx, st.Number, sh.Number)
				if err != nil {
					return err
				}
				unsettled = max(binary.BigEndian.Uint64(last), binary.BigEndian.Uint64(stamp))
				full = true // the next call starts here
				break
			}
			v := scan.Value()
			switch {
			case len(v) == 0:
				return errCorruptRecord
			case v[0] == markClose:
				closed = true
			case v[0] == markRecord:
				rec, err := decodeRecord(v)
				if err != nil {
					return err
				}
				js := appendRecordJSON(nil, st, region, stamp, rec)
				if len(out.Records) > 0 && bytesOut+len(js) > maxRecordsBytes {
					full = true // the next call starts with this record
				} else {
					bytesOut += len(js)
					out.Records = append(out.Records, js)
				}
			}
			if full {
				break
			}
			pos, inclusive = append(pos[:0:0], stamp...), false
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
	return out, unsettled, err
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
