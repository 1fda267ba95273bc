package engine

import (
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/storage"
)

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
