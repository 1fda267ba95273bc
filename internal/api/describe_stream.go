package api

import "github.com/dynago/dynago/internal/wire"

// DescribeStreamInput is the DescribeStream request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_DescribeStream.html
type DescribeStreamInput struct {
	StreamArn             *string
	Limit                 *int64 // 1..100; default 100
	ExclusiveStartShardId *string
	// ShardFilterType ("CHILD_SHARDS") and ShardFilterShardId are the
	// ShardFilter's members.
	ShardFilterType, ShardFilterShardId *string
	hasShardFilter                      bool
}

// Decode implements Input.
func (in *DescribeStreamInput) Decode(r *wire.Reader) error {
	_, err := object(r, "DescribeStreamInput", func(k string) error {
		switch k {
		case "StreamArn":
			return readString(r, &in.StreamArn)
		case "Limit":
			return readInt(r, "Integer", &in.Limit)
		case "ExclusiveStartShardId":
			return readString(r, &in.ExclusiveStartShardId)
		case "ShardFilter":
			ok, err := object(r, "ShardFilter", func(k string) error {
				switch k {
				case "Type":
					return readString(r, &in.ShardFilterType)
				case "ShardId":
					return readString(r, &in.ShardFilterShardId)
				}
				return r.Skip()
			})
			in.hasShardFilter = ok
			return err
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the members' constraints.
func (in *DescribeStreamInput) Prepare() error {
	var c constraints
	c.length("streamArn", in.StreamArn, 37, 1024, true)
	c.min("limit", in.Limit, 1)
	c.max("limit", in.Limit, 100)
	c.length("exclusiveStartShardId", in.ExclusiveStartShardId, 28, 65, false)
	if in.hasShardFilter {
		// A ShardFilter with no Type, or CHILD_SHARDS with no ShardId, is
		// a ValidationException, though the API reference marks both
		// members optional (ScyllaDB Alternator's test_streams.py
		// shard-filter tests, written against DynamoDB: PR
		// scylladb/scylladb#28189, 2026-03). Those tests pin the type
		// only; the texts are dynago's, in DynamoDB's constraint form.
		if in.ShardFilterType == nil {
			c.add("", true, "shardFilter.type", "Member must not be null")
		}
		c.enum("shardFilter.type", in.ShardFilterType, "CHILD_SHARDS")
		if in.ShardFilterShardId == nil && in.ShardFilterType != nil && *in.ShardFilterType == "CHILD_SHARDS" {
			c.add("", true, "shardFilter.shardId", "Member must not be null")
		}
		c.length("shardFilter.shardId", in.ShardFilterShardId, 28, 65, false)
	}
	return c.err()
}

// ShardDescription is one shard of a StreamDescription.
type ShardDescription struct {
	ShardID, ParentShardID string // ParentShardID "": omitted
	Starting, Ending       string // sequence numbers; Ending "": open
}

// StreamDescription is DescribeStream's StreamDescription.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_StreamDescription.html
type StreamDescription struct {
	StreamArn, StreamLabel, StreamStatus, StreamViewType, TableName string
	CreationRequestDateTime                                         float64 // epoch seconds
	KeySchema                                                       [][2]string
	Shards                                                          []ShardDescription
	LastEvaluatedShardID                                            string // "": omitted
}

// DescribeStreamOutput is the DescribeStream response.
type DescribeStreamOutput struct {
	Stream StreamDescription
}

// AppendJSON appends the response body.
func (o *DescribeStreamOutput) AppendJSON(dst []byte) []byte {
	d := &o.Stream
	dst = append(dst, `{"StreamDescription":{"StreamArn":`...)
	dst = wire.AppendString(dst, d.StreamArn)
	dst = append(dst, `,"StreamLabel":`...)
	dst = wire.AppendString(dst, d.StreamLabel)
	dst = append(dst, `,"StreamStatus":`...)
	dst = wire.AppendString(dst, d.StreamStatus)
	dst = append(dst, `,"StreamViewType":`...)
	dst = wire.AppendString(dst, d.StreamViewType)
	dst = append(dst, `,"CreationRequestDateTime":`...)
	dst = wire.AppendFloat(dst, d.CreationRequestDateTime)
	dst = append(dst, `,"TableName":`...)
	dst = wire.AppendString(dst, d.TableName)
	dst = append(dst, `,"KeySchema":`...)
	dst = appendKeySchema(dst, d.KeySchema)
	dst = append(dst, `,"Shards":[`...)
	for i, sh := range d.Shards {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"ShardId":`...)
		dst = wire.AppendString(dst, sh.ShardID)
		dst = append(dst, `,"SequenceNumberRange":{"StartingSequenceNumber":`...)
		dst = wire.AppendString(dst, sh.Starting)
		if sh.Ending != "" {
			dst = append(dst, `,"EndingSequenceNumber":`...)
			dst = wire.AppendString(dst, sh.Ending)
		}
		dst = append(dst, '}')
		if sh.ParentShardID != "" {
			dst = append(dst, `,"ParentShardId":`...)
			dst = wire.AppendString(dst, sh.ParentShardID)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if d.LastEvaluatedShardID != "" {
		dst = append(dst, `,"LastEvaluatedShardId":`...)
		dst = wire.AppendString(dst, d.LastEvaluatedShardID)
	}
	return append(dst, "}}"...)
}
