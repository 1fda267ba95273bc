package api

import "github.com/dynago/dynago/internal/wire"

// The request shapes several operations' inputs embed. Most of those
// operations are control-plane ones that tools call and that answer for
// features dynago stores or does not have: DescribeLimits,
// DescribeEndpoints, Describe/UpdateContinuousBackups,
// DescribeKinesisStreamingDestination, DescribeTableReplicaAutoScaling.
// Shapes and messages: docs/research-control-plane.md.

// NoInput is the request of an operation without members; unknown
// members are ignored. DescribeLimitsInput and DescribeEndpointsInput
// embed it.
type NoInput struct{}

// Decode implements Input.
func (in *NoInput) Decode(r *wire.Reader) error {
	_, err := object(r, "Input", func(string) error { return r.Skip() })
	return err
}

// Prepare implements Request; there is nothing to check.
func (in *NoInput) Prepare() error { return nil }

// TableArnInput is the request of an operation whose only member is a
// TableName that may also be a table ARN (1 to 1,024 characters).
// DescribeContinuousBackupsInput, DescribeKinesisStreamingDestinationInput
// and DescribeTableReplicaAutoScalingInput embed it.
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

// Prepare checks the member constraints.
func (in *TableArnInput) Prepare() error {
	var c constraints
	c.length("tableName", in.TableName, 1, 1024, true)
	return c.err()
}

// TableNameInput is the request of an operation whose only member is a
// table name. DescribeTableInput, DeleteTableInput and
// DescribeTimeToLiveInput embed it.
type TableNameInput struct {
	TableName *string
}

// Decode implements Input.
func (in *TableNameInput) Decode(r *wire.Reader) error {
	_, err := object(r, "TableNameInput", func(k string) error {
		if k == "TableName" {
			return readString(r, &in.TableName)
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the table name.
func (in *TableNameInput) Prepare() error {
	var c constraints
	c.name("tableName", in.TableName, true)
	return c.err()
}
