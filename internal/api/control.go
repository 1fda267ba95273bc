package api

import (
	"github.com/dynago/dynago/internal/wire"
)

// Control-plane operations that tools call and that answer for features
// dynago stores or does not have: DescribeLimits, DescribeEndpoints,
// Describe/UpdateContinuousBackups, DescribeKinesisStreamingDestination,
// DescribeTableReplicaAutoScaling. Shapes and messages:
// docs/research-control-plane.md.

// NoInput is the request of an operation without members
// (DescribeLimits, DescribeEndpoints); unknown members are ignored.
type NoInput struct{}

// Decode implements Input.
func (in *NoInput) Decode(r *wire.Reader) error {
	_, err := object(r, "Input", func(string) error { return r.Skip() })
	return err
}

// Validate implements the input contract; there is nothing to check.
func (in *NoInput) Validate() error { return nil }

// TableArnInput is the request of an operation whose only member is a
// TableName that may also be a table ARN (1 to 1,024 characters).
type TableArnInput struct {
	TableName *string
}

// Decode implements Input.
func (in *TableArnInput) Decode(r *wire.Reader) error {
	_, err := object(r, "Input", func(k string) error {
		if k == "TableName" {
			return readString(r, &in.TableName)
		}
		return r.Skip()
	})
	return err
}

// Validate checks the member constraints.
func (in *TableArnInput) Validate() error {
	var c constraints
	c.length("tableName", in.TableName, 1, 1024, true)
	return c.err()
}

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

// UpdateContinuousBackupsInput is the UpdateContinuousBackups request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContinuousBackups.html
type UpdateContinuousBackupsInput struct {
	TableName            *string
	hasSpec              bool
	Enabled              *bool
	RecoveryPeriodInDays *int64
}

// Decode implements Input.
func (in *UpdateContinuousBackupsInput) Decode(r *wire.Reader) error {
	_, err := object(r, "UpdateContinuousBackupsInput", func(k string) error {
		switch k {
		case "TableName":
			return readString(r, &in.TableName)
		case "PointInTimeRecoverySpecification":
			ok, err := object(r, "PointInTimeRecoverySpecification", func(k string) error {
				switch k {
				case "PointInTimeRecoveryEnabled":
					return readBool(r, &in.Enabled)
				case "RecoveryPeriodInDays":
					return readInt(r, "Integer", &in.RecoveryPeriodInDays)
				}
				return r.Skip()
			})
			in.hasSpec = ok
			return err
		}
		return r.Skip()
	})
	return err
}

// Validate checks the member constraints: a table, and a specification
// with PointInTimeRecoveryEnabled and a period of 1 to 35 days.
func (in *UpdateContinuousBackupsInput) Validate() error {
	var c constraints
	c.length("tableName", in.TableName, 1, 1024, true)
	if !in.hasSpec {
		c.add("", true, "pointInTimeRecoverySpecification", "Member must not be null")
	} else {
		if in.Enabled == nil {
			c.add("", true, "pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled", "Member must not be null")
		}
		c.min("pointInTimeRecoverySpecification.recoveryPeriodInDays", in.RecoveryPeriodInDays, 1)
		c.max("pointInTimeRecoverySpecification.recoveryPeriodInDays", in.RecoveryPeriodInDays, 35)
	}
	return c.err()
}

// ContinuousBackupsOutput is the Describe/UpdateContinuousBackups
// response. Earliest and Latest are epoch seconds (0 to omit with the
// period when PITR is off).
type ContinuousBackupsOutput struct {
	PITREnabled          bool
	RecoveryPeriodInDays int64
	Earliest, Latest     float64
}

// AppendJSON appends the response body.
func (o *ContinuousBackupsOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"ContinuousBackupsDescription":{"ContinuousBackupsStatus":"ENABLED","PointInTimeRecoveryDescription":{"PointInTimeRecoveryStatus":`...)
	if !o.PITREnabled {
		return append(dst, `"DISABLED"}}}`...)
	}
	dst = append(dst, `"ENABLED","RecoveryPeriodInDays":`...)
	dst = wire.AppendInt(dst, o.RecoveryPeriodInDays)
	dst = append(dst, `,"EarliestRestorableDateTime":`...)
	dst = wire.AppendFloat(dst, o.Earliest)
	dst = append(dst, `,"LatestRestorableDateTime":`...)
	dst = wire.AppendFloat(dst, o.Latest)
	return append(dst, "}}}"...)
}

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
