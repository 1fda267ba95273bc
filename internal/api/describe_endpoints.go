package api

import "github.com/dynago/dynago/internal/wire"

// DescribeEndpointsInput is the DescribeEndpoints request, which has no
// members.
type DescribeEndpointsInput struct{ NoInput }

// DescribeEndpointsOutput is the DescribeEndpoints response: one
// endpoint, cached for CachePeriodInMinutes.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeEndpoints.html
type DescribeEndpointsOutput struct {
	Address              string
	CachePeriodInMinutes int64
}

// AppendJSON appends the response body.
func (o *DescribeEndpointsOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"Endpoints":[{"Address":`...)
	dst = wire.AppendString(dst, o.Address)
	dst = append(dst, `,"CachePeriodInMinutes":`...)
	dst = wire.AppendInt(dst, o.CachePeriodInMinutes)
	return append(dst, "}]}"...)
}
