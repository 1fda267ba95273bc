package api

import "github.com/dynago/dynago/internal/wire"

// GetRecordsInput is the GetRecords request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetRecords.html
type GetRecordsInput struct {
	ShardIterator *string
	Limit         *int64 // 1..1000; default 1000
}

// Decode implements Input.
func (in *GetRecordsInput) Decode(r *wire.Reader) error {
	_, err := object(r, "GetRecordsInput", func(k string) error {
		switch k {
		case "ShardIterator":
			return readString(r, &in.ShardIterator)
		case "Limit":
			return readInt(r, "Integer", &in.Limit)
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the members' constraints.
func (in *GetRecordsInput) Prepare() error {
	var c constraints
	c.length("shardIterator", in.ShardIterator, 1, 2048, true)
	c.min("limit", in.Limit, 1)
	c.max("limit", in.Limit, 1000)
	return c.err()
}

// GetRecordsOutput is the GetRecords response: Records holds each
// record's JSON object, ready to send.
type GetRecordsOutput struct {
	Records           [][]byte
	NextShardIterator string // "": omitted (a closed shard read to its end)
}

// AppendJSON appends the response body.
func (o *GetRecordsOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"Records":[`...)
	for i, r := range o.Records {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, r...)
	}
	dst = append(dst, ']')
	if o.NextShardIterator != "" {
		dst = append(dst, `,"NextShardIterator":`...)
		dst = wire.AppendString(dst, o.NextShardIterator)
	}
	return append(dst, '}')
}
