package engine

import (
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/storage"
)

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
