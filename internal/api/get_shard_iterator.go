package api

import (
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// Shard iterator types.
var shardIteratorTypes = []string{"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"}

// GetShardIteratorInput is the GetShardIterator request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetShardIterator.html
type GetShardIteratorInput struct {
	StreamArn, ShardId, ShardIteratorType, SequenceNumber *string
}

// Decode implements Input.
func (in *GetShardIteratorInput) Decode(r *wire.Reader) error {
	_, err := object(r, "GetShardIteratorInput", func(k string) error {
		switch k {
		case "StreamArn":
			return readString(r, &in.StreamArn)
		case "ShardId":
			return readString(r, &in.ShardId)
		case "ShardIteratorType":
			return readString(r, &in.ShardIteratorType)
		case "SequenceNumber":
			return readString(r, &in.SequenceNumber)
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the members' constraints and that a SequenceNumber is
// given exactly for the AT_ and AFTER_SEQUENCE_NUMBER types.
func (in *GetShardIteratorInput) Prepare() error {
	var c constraints
	c.length("streamArn", in.StreamArn, 37, 1024, true)
	c.length("shardId", in.ShardId, 28, 65, true)
	if in.ShardIteratorType == nil {
		c.add("", true, "shardIteratorType", "Member must not be null")
	}
	c.enum("shardIteratorType", in.ShardIteratorType, shardIteratorTypes...)
	c.length("sequenceNumber", in.SequenceNumber, 21, 40, false)
	if err := c.err(); err != nil {
		return err
	}
	bySeq := *in.ShardIteratorType == "AT_SEQUENCE_NUMBER" || *in.ShardIteratorType == "AFTER_SEQUENCE_NUMBER"
	switch {
	case bySeq && in.SequenceNumber == nil:
		return ddberr.Validation("Must specify a sequence number for " + *in.ShardIteratorType + " shard iterator type")
	case !bySeq && in.SequenceNumber != nil:
		return ddberr.Validation("Must not specify a sequence number for " + *in.ShardIteratorType + " shard iterator type")
	}
	if in.SequenceNumber != nil {
		for _, ch := range *in.SequenceNumber {
			if ch < '0' || ch > '9' {
				return ddberr.Validation("Invalid SequenceNumber: " + *in.SequenceNumber)
			}
		}
	}
	return nil
}

// GetShardIteratorOutput is the GetShardIterator response.
type GetShardIteratorOutput struct {
	ShardIterator string
}

// AppendJSON appends the response body.
func (o *GetShardIteratorOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"ShardIterator":`...)
	dst = wire.AppendString(dst, o.ShardIterator)
	return append(dst, '}')
}
