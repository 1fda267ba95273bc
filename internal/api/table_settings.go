package api

import "github.com/dynago/dynago/internal/wire"

// ProvisionedThroughput is a table's provisioned capacity.
type ProvisionedThroughput struct {
	ReadCapacityUnits  *int64
	WriteCapacityUnits *int64
}

// MaxCapacityUnits bounds provisioned ReadCapacityUnits and
// WriteCapacityUnits.
const MaxCapacityUnits = 1_000_000_000_000

func decodeThroughput(r *wire.Reader, dst **ProvisionedThroughput) error {
	var pt ProvisionedThroughput
	ok, err := object(r, "ProvisionedThroughput", func(k string) error {
		switch k {
		case "ReadCapacityUnits":
			return readInt(r, "Long", &pt.ReadCapacityUnits)
		case "WriteCapacityUnits":
			return readInt(r, "Long", &pt.WriteCapacityUnits)
		}
		return r.Skip()
	})
	if ok {
		*dst = &pt
	}
	return err
}

// throughputConstraints checks a table's ProvisionedThroughput members:
// both present, each at least 1 (write reported before read, as
// DynamoDB's validator lists them).
func throughputConstraints(c *constraints, pt *ProvisionedThroughput) {
	if pt == nil {
		return
	}
	if pt.ReadCapacityUnits == nil {
		c.add("", true, "provisionedThroughput.readCapacityUnits", "Member must not be null")
	}
	if pt.WriteCapacityUnits == nil {
		c.add("", true, "provisionedThroughput.writeCapacityUnits", "Member must not be null")
	}
	c.min("provisionedThroughput.writeCapacityUnits", pt.WriteCapacityUnits, 1)
	c.min("provisionedThroughput.readCapacityUnits", pt.ReadCapacityUnits, 1)
}

// streamViewTypes are the StreamViewType values in the order DynamoDB's
// enum message lists them (docs/research-streams.md §1.1).
var streamViewTypes = []string{"OLD_IMAGE", "KEYS_ONLY", "NEW_AND_OLD_IMAGES", "NEW_IMAGE"}

// StreamSpecification is a table's stream setting.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_StreamSpecification.html
type StreamSpecification struct {
	StreamEnabled  *bool
	StreamViewType *string
}

func decodeStreamSpecification(r *wire.Reader, dst **StreamSpecification) error {
	var ss StreamSpecification
	ok, err := object(r, "StreamSpecification", func(k string) error {
		switch k {
		case "StreamEnabled":
			return readBool(r, &ss.StreamEnabled)
		case "StreamViewType":
			return readString(r, &ss.StreamViewType)
		}
		return r.Skip()
	})
	if ok {
		*dst = &ss
	}
	return err
}

// SSESpecification is a table's server-side encryption setting.
type SSESpecification struct {
	Enabled        *bool
	SSEType        *string
	KMSMasterKeyID *string
}

func decodeSSESpecification(r *wire.Reader, dst **SSESpecification) error {
	var sse SSESpecification
	ok, err := object(r, "SSESpecification", func(k string) error {
		switch k {
		case "Enabled":
			return readBool(r, &sse.Enabled)
		case "SSEType":
			return readString(r, &sse.SSEType)
		case "KMSMasterKeyId":
			return readString(r, &sse.KMSMasterKeyID)
		}
		return r.Skip()
	})
	if ok {
		*dst = &sse
	}
	return err
}

// OnDemandThroughput caps an on-demand table's request rates.
type OnDemandThroughput struct {
	MaxReadRequestUnits  *int64
	MaxWriteRequestUnits *int64
}

func decodeOnDemandThroughput(r *wire.Reader, dst **OnDemandThroughput) error {
	var o OnDemandThroughput
	ok, err := object(r, "OnDemandThroughput", func(k string) error {
		switch k {
		case "MaxReadRequestUnits":
			return readInt(r, "Long", &o.MaxReadRequestUnits)
		case "MaxWriteRequestUnits":
			return readInt(r, "Long", &o.MaxWriteRequestUnits)
		}
		return r.Skip()
	})
	if ok {
		*dst = &o
	}
	return err
}
