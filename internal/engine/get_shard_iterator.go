package engine

import (
	"bytes"
	"context"

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
