package api

import "github.com/dynago/dynago/internal/wire"

// KinesisDestinationsOutput is the DescribeKinesisStreamingDestination
// response for a table without destinations.
type KinesisDestinationsOutput struct {
	TableName string
}

// AppendJSON appends the response body.
func (o *KinesisDestinationsOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"TableName":`...)
	dst = wire.AppendString(dst, o.TableName)
	return append(dst, `,"KinesisDataStreamDestinations":[]}`...)
}
