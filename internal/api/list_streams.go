package api

import "github.com/dynago/dynago/internal/wire"

// The DynamoDB Streams API (X-Amz-Target DynamoDBStreams_20120810.*):
// ListStreams, DescribeStream, GetShardIterator, GetRecords, one file
// each.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Operations_Amazon_DynamoDB_Streams.html;
// limits and messages in docs/research-streams.md §4, §5.

// ListStreamsInput is the ListStreams request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_ListStreams.html
type ListStreamsInput struct {
	TableName               *string
	Limit                   *int64 // 1..100; default 100
	ExclusiveStartStreamArn *string
}

// Decode implements Input.
func (in *ListStreamsInput) Decode(r *wire.Reader) error {
	_, err := object(r, "ListStreamsInput", func(k string) error {
		switch k {
		case "TableName":
			return readString(r, &in.TableName)
		case "Limit":
			return readInt(r, "Integer", &in.Limit)
		case "ExclusiveStartStreamArn":
			return readString(r, &in.ExclusiveStartStreamArn)
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the members' constraints.
func (in *ListStreamsInput) Prepare() error {
	var c constraints
	c.name("tableName", in.TableName, false)
	c.min("limit", in.Limit, 1)
	c.max("limit", in.Limit, 100)
	c.length("exclusiveStartStreamArn", in.ExclusiveStartStreamArn, 37, 1024, false)
	return c.err()
}

// StreamSummary is one entry of ListStreams' Streams.
type StreamSummary struct {
	StreamArn, TableName, StreamLabel string
}

// ListStreamsOutput is the ListStreams response.
type ListStreamsOutput struct {
	Streams                []StreamSummary
	LastEvaluatedStreamArn string // "": omitted
}

// AppendJSON appends the response body.
func (o *ListStreamsOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"Streams":[`...)
	for i, s := range o.Streams {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"StreamArn":`...)
		dst = wire.AppendString(dst, s.StreamArn)
		dst = append(dst, `,"TableName":`...)
		dst = wire.AppendString(dst, s.TableName)
		dst = append(dst, `,"StreamLabel":`...)
		dst = wire.AppendString(dst, s.StreamLabel)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if o.LastEvaluatedStreamArn != "" {
		dst = append(dst, `,"LastEvaluatedStreamArn":`...)
		dst = wire.AppendString(dst, o.LastEvaluatedStreamArn)
	}
	return append(dst, '}')
}
