package api

import "github.com/dynago/dynago/internal/wire"

// DescribeKinesisStreamingDestinationInput is the
// DescribeKinesisStreamingDestination request: a table name or table
// ARN.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeKinesisStreamingDestination.html
type DescribeKinesisStreamingDestinationInput struct{ TableArnInput }

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
