package api

import "github.com/dynago/dynago/internal/wire"

// DescribeLimitsInput is the DescribeLimits request, which has no
// members.
type DescribeLimitsInput struct{ NoInput }

// DescribeLimitsOutput is the DescribeLimits response.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeLimits.html
type DescribeLimitsOutput struct {
	AccountMaxRead, AccountMaxWrite, TableMaxRead, TableMaxWrite int64
}

// AppendJSON appends the response body.
func (o *DescribeLimitsOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"AccountMaxReadCapacityUnits":`...)
	dst = wire.AppendInt(dst, o.AccountMaxRead)
	dst = append(dst, `,"AccountMaxWriteCapacityUnits":`...)
	dst = wire.AppendInt(dst, o.AccountMaxWrite)
	dst = append(dst, `,"TableMaxReadCapacityUnits":`...)
	dst = wire.AppendInt(dst, o.TableMaxRead)
	dst = append(dst, `,"TableMaxWriteCapacityUnits":`...)
	dst = wire.AppendInt(dst, o.TableMaxWrite)
	return append(dst, '}')
}
