package api

import "github.com/dynago/dynago/internal/wire"

// DescribeTimeToLiveInput is the DescribeTimeToLive request: the table's
// name.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTimeToLive.html
type DescribeTimeToLiveInput struct{ TableNameInput }

// DescribeTimeToLiveOutput is the DescribeTimeToLive response.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TimeToLiveDescription.html
type DescribeTimeToLiveOutput struct {
	Status        string // ENABLING, DISABLING, ENABLED or DISABLED
	AttributeName string // "" to omit
}

// AppendJSON appends the response body.
func (o *DescribeTimeToLiveOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"TimeToLiveDescription":{"TimeToLiveStatus":`...)
	dst = wire.AppendString(dst, o.Status)
	if o.AttributeName != "" {
		dst = append(dst, `,"AttributeName":`...)
		dst = wire.AppendString(dst, o.AttributeName)
	}
	return append(dst, "}}"...)
}
