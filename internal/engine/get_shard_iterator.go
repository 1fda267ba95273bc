package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
)

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
	var stampHorizon uint64 // only LATEST needs it
	if *in.ShardIteratorType == "LATEST" {
		if stampHorizon, err = e.store.StampHorizon(ctx, 0); err != nil {
			return nil, err
		}
	}
	read := func(tx storage.Txn) error {
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
			// After the newest record, once every stamp below it has
			// settled (a record stamped below a visible one may still be
			// committing on TiKV, and it belongs after this iterator).
			if commit := binary.BigEndian.Uint64(last); commit > stampHorizon {
				return errUnsettled{stamp: commit, last: last}
			}
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
	}
	err = e.read(ctx, read)
	var unsettled errUnsettled
	if errors.As(err, &unsettled) {
		wctx, cancel := context.WithTimeout(ctx, settleWait)
		h, herr := e.store.StampHorizon(wctx, unsettled.stamp)
		cancel()
		switch {
		case herr == nil:
			stampHorizon = h
			err = e.read(ctx, read)
		case ctx.Err() == nil && errors.Is(herr, context.DeadlineExceeded):
			// Still settling: start after what has settled.
		default:
			err = herr
		}
	}
	if errors.As(err, &unsettled) {
		// Newer records arrived meanwhile: start after the settled ones.
		it.stamp, err = capStamp(unsettled.last, stampHorizon), nil
	}
	if err != nil {
		return nil, err
	}
	return &api.GetShardIteratorOutput{ShardIterator: it.encode()}, nil
}

// errUnsettled stops a read that met a stamp above the stamp horizon.
type errUnsettled struct {
	stamp uint64 // the commit stamp met
	last  []byte // its full stamp
}

func (e errUnsettled) Error() string { return "stamp above the stamp horizon" }
