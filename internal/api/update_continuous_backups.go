package api

import "github.com/dynago/dynago/internal/wire"

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

// Prepare checks the member constraints: a table, and a specification
// with PointInTimeRecoveryEnabled and a period of 1 to 35 days.
func (in *UpdateContinuousBackupsInput) Prepare() error {
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
