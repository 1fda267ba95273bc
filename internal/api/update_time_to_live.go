package api

import "github.com/dynago/dynago/internal/wire"

// TimeToLiveSpecification is UpdateTimeToLive's setting.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TimeToLiveSpecification.html
type TimeToLiveSpecification struct {
	AttributeName *string
	Enabled       *bool
}

// UpdateTimeToLiveInput is the UpdateTimeToLive request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTimeToLive.html
type UpdateTimeToLiveInput struct {
	TableName *string
	Spec      *TimeToLiveSpecification
}

// Decode implements Input.
func (in *UpdateTimeToLiveInput) Decode(r *wire.Reader) error {
	_, err := object(r, "UpdateTimeToLiveInput", func(k string) error {
		switch k {
		case "TableName":
			return readString(r, &in.TableName)
		case "TimeToLiveSpecification":
			var s TimeToLiveSpecification
			ok, err := object(r, "TimeToLiveSpecification", func(k string) error {
				switch k {
				case "AttributeName":
					return readString(r, &s.AttributeName)
				case "Enabled":
					return readBool(r, &s.Enabled)
				}
				return r.Skip()
			})
			if ok {
				in.Spec = &s
			}
			return err
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the member constraints: a table name, and a
// specification with an attribute name of 1 to 255 characters and
// Enabled.
func (in *UpdateTimeToLiveInput) Prepare() error {
	var c constraints
	c.name("tableName", in.TableName, true)
	if in.Spec == nil {
		c.add("", true, "timeToLiveSpecification", "Member must not be null")
	} else {
		if in.Spec.AttributeName == nil {
			c.add("", true, "timeToLiveSpecification.attributeName", "Member must not be null")
		}
		keyAttributeNameLength(&c, "timeToLiveSpecification.attributeName", in.Spec.AttributeName)
		if in.Spec.Enabled == nil {
			c.add("", true, "timeToLiveSpecification.enabled", "Member must not be null")
		}
	}
	return c.err()
}

// UpdateTimeToLiveOutput echoes the specification applied.
type UpdateTimeToLiveOutput struct {
	AttributeName string
	Enabled       bool
}

// AppendJSON appends the response body.
func (o *UpdateTimeToLiveOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"TimeToLiveSpecification":{"AttributeName":`...)
	dst = wire.AppendString(dst, o.AttributeName)
	dst = append(dst, `,"Enabled":`...)
	dst = wire.AppendBool(dst, o.Enabled)
	return append(dst, "}}"...)
}
