package api

import "github.com/dynago/dynago/internal/wire"

// TableDescription is DynamoDB's TableDescription.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TableDescription.html
type TableDescription struct {
	TableName            string
	TableArn             string
	TableID              string
	TableStatus          string
	CreationDateTime     float64     // epoch seconds
	KeySchema            [][2]string // name, key type
	AttributeDefinitions [][2]string // name, type
	// BillingMode is "" for tables that have only ever been PROVISIONED
	// (DynamoDB then omits BillingModeSummary).
	BillingMode                       string
	LastUpdateToPayPerRequestDateTime float64 // 0: omitted
	ReadCapacityUnits                 int64
	WriteCapacityUnits                int64
	Throughput                        ThroughputHistory
	ItemCount                         int64
	TableSizeBytes                    int64
	DeletionProtectionEnabled         bool
	// WarmThroughput is omitted when WarmRead is 0 (CreateTable
	// responses).
	WarmRead, WarmWrite int64
	// TableClass is "" for STANDARD (TableClassSummary omitted);
	// TableClassUpdated is its LastUpdateDateTime (epoch seconds, 0 to
	// omit).
	TableClass        string
	TableClassUpdated float64
	// SSEKeyArn is the KMS key of an encrypted table ("" when the table
	// uses DynamoDB's default encryption: SSEDescription omitted).
	SSEKeyArn string
	// OnDemandThroughput, omitted when both are 0.
	MaxReadRequestUnits, MaxWriteRequestUnits int64
	// LocalSecondaryIndexes and GlobalSecondaryIndexes, each omitted when
	// empty.
	LocalSecondaryIndexes, GlobalSecondaryIndexes []*IndexDescription
	// StreamViewType is the enabled stream's view type ("" when no stream
	// is enabled: StreamSpecification omitted); LatestStreamArn and
	// LatestStreamLabel name the latest stream, enabled or not ("" when
	// the table never had one).
	StreamViewType                     string
	LatestStreamArn, LatestStreamLabel string

	// Deleting selects DeleteTable's shape: TableName, TableArn, TableId,
	// TableStatus, BillingModeSummary (when set), ProvisionedThroughput,
	// ItemCount and TableSizeBytes, and nothing else: no CreationDateTime,
	// KeySchema, AttributeDefinitions or index lists, even on a table with
	// indexes. Sources: ScyllaDB Alternator's test_table.py
	// (test_delete_table_description, ..._with_si, which pass against
	// DynamoDB); a real DeleteTable answer of a provisioned table printed
	// by the AWS CLI (a CDK workshop's README: exactly these members). The
	// other members (streams, table class, SSE, on-demand and warm
	// throughput) are in no capture and are left out.
	Deleting bool
}

// AppendJSON appends the description as a JSON object.
func (d *TableDescription) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	dst = wire.AppendKey(dst, "TableName")
	dst = wire.AppendString(dst, d.TableName)
	dst = wire.AppendKey(dst, "TableArn")
	dst = wire.AppendString(dst, d.TableArn)
	dst = wire.AppendKey(dst, "TableId")
	dst = wire.AppendString(dst, d.TableID)
	dst = wire.AppendKey(dst, "TableStatus")
	dst = wire.AppendString(dst, d.TableStatus)
	if d.Deleting {
		return append(d.appendCapacityAndSize(dst), '}')
	}
	dst = wire.AppendKey(dst, "CreationDateTime")
	dst = wire.AppendFloat(dst, d.CreationDateTime)
	dst = wire.AppendKey(dst, "KeySchema")
	dst = appendKeySchema(dst, d.KeySchema)
	dst = wire.AppendKey(dst, "AttributeDefinitions")
	dst = append(dst, '[')
	for i, a := range d.AttributeDefinitions {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"AttributeName":`...)
		dst = wire.AppendString(dst, a[0])
		dst = append(dst, `,"AttributeType":`...)
		dst = wire.AppendString(dst, a[1])
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	dst = d.appendCapacityAndSize(dst)
	dst = wire.AppendKey(dst, "DeletionProtectionEnabled")
	dst = wire.AppendBool(dst, d.DeletionProtectionEnabled)
	for _, list := range []struct {
		name string
		ixs  []*IndexDescription
	}{{"LocalSecondaryIndexes", d.LocalSecondaryIndexes}, {"GlobalSecondaryIndexes", d.GlobalSecondaryIndexes}} {
		if len(list.ixs) == 0 {
			continue
		}
		dst = wire.AppendKey(dst, list.name)
		dst = append(dst, '[')
		for i, ix := range list.ixs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = ix.AppendJSON(dst)
		}
		dst = append(dst, ']')
	}
	if d.StreamViewType != "" {
		dst = wire.AppendKey(dst, "StreamSpecification")
		dst = append(dst, `{"StreamEnabled":true,"StreamViewType":`...)
		dst = wire.AppendString(dst, d.StreamViewType)
		dst = append(dst, '}')
	}
	if d.LatestStreamArn != "" {
		dst = wire.AppendKey(dst, "LatestStreamLabel")
		dst = wire.AppendString(dst, d.LatestStreamLabel)
		dst = wire.AppendKey(dst, "LatestStreamArn")
		dst = wire.AppendString(dst, d.LatestStreamArn)
	}
	if d.TableClass != "" {
		dst = wire.AppendKey(dst, "TableClassSummary")
		dst = append(dst, `{"TableClass":`...)
		dst = wire.AppendString(dst, d.TableClass)
		if d.TableClassUpdated != 0 {
			dst = append(dst, `,"LastUpdateDateTime":`...)
			dst = wire.AppendFloat(dst, d.TableClassUpdated)
		}
		dst = append(dst, '}')
	}
	if d.SSEKeyArn != "" {
		dst = wire.AppendKey(dst, "SSEDescription")
		dst = append(dst, `{"Status":"ENABLED","SSEType":"KMS","KMSMasterKeyArn":`...)
		dst = wire.AppendString(dst, d.SSEKeyArn)
		dst = append(dst, '}')
	}
	if d.MaxReadRequestUnits != 0 || d.MaxWriteRequestUnits != 0 {
		dst = wire.AppendKey(dst, "OnDemandThroughput")
		dst = append(dst, `{"MaxReadRequestUnits":`...)
		dst = wire.AppendInt(dst, orMinusOne(d.MaxReadRequestUnits))
		dst = append(dst, `,"MaxWriteRequestUnits":`...)
		dst = wire.AppendInt(dst, orMinusOne(d.MaxWriteRequestUnits))
		dst = append(dst, '}')
	}
	if d.WarmRead != 0 {
		dst = wire.AppendKey(dst, "WarmThroughput")
		dst = append(dst, `{"ReadUnitsPerSecond":`...)
		dst = wire.AppendInt(dst, d.WarmRead)
		dst = append(dst, `,"WriteUnitsPerSecond":`...)
		dst = wire.AppendInt(dst, d.WarmWrite)
		dst = append(dst, `,"Status":"ACTIVE"}`...)
	}
	return append(dst, '}')
}

// appendCapacityAndSize appends BillingModeSummary (when the table has
// one), ProvisionedThroughput, ItemCount and TableSizeBytes, which every
// description carries, DeleteTable's too.
func (d *TableDescription) appendCapacityAndSize(dst []byte) []byte {
	dst = d.appendBilling(dst)
	dst = wire.AppendKey(dst, "ProvisionedThroughput")
	dst = d.Throughput.appendJSON(dst, d.ReadCapacityUnits, d.WriteCapacityUnits)
	dst = wire.AppendKey(dst, "ItemCount")
	dst = wire.AppendInt(dst, d.ItemCount)
	dst = wire.AppendKey(dst, "TableSizeBytes")
	return wire.AppendInt(dst, d.TableSizeBytes)
}

// appendBilling appends BillingModeSummary, when the table has one.
func (d *TableDescription) appendBilling(dst []byte) []byte {
	if d.BillingMode == "" {
		return dst
	}
	dst = wire.AppendKey(dst, "BillingModeSummary")
	dst = append(dst, `{"BillingMode":`...)
	dst = wire.AppendString(dst, d.BillingMode)
	if d.LastUpdateToPayPerRequestDateTime != 0 {
		dst = append(dst, `,"LastUpdateToPayPerRequestDateTime":`...)
		dst = wire.AppendFloat(dst, d.LastUpdateToPayPerRequestDateTime)
	}
	return append(dst, '}')
}

// orMinusOne reports an unset OnDemandThroughput cap as -1 (no limit), as
// DynamoDB does.
func orMinusOne(n int64) int64 {
	if n == 0 {
		return -1
	}
	return n
}

// IndexDescription is a GlobalSecondaryIndexDescription or
// LocalSecondaryIndexDescription in a TableDescription.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GlobalSecondaryIndexDescription.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_LocalSecondaryIndexDescription.html
type IndexDescription struct {
	IndexName        string
	IndexArn         string
	Local            bool
	KeySchema        [][2]string // name, key type
	ProjectionType   string
	NonKeyAttributes []string
	// The rest is for GSIs only.
	IndexStatus                               string
	Backfilling                               *bool // omitted when nil
	ReadCapacityUnits, WriteCapacityUnits     int64
	Throughput                                ThroughputHistory
	WarmRead, WarmWrite                       int64 // WarmThroughput, omitted when WarmRead is 0
	MaxReadRequestUnits, MaxWriteRequestUnits int64 // OnDemandThroughput, omitted when both are 0
	IndexSizeBytes, ItemCount                 int64
}

// AppendJSON appends the description as a JSON object.
func (d *IndexDescription) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"IndexName":`...)
	dst = wire.AppendString(dst, d.IndexName)
	dst = append(dst, `,"KeySchema":`...)
	dst = appendKeySchema(dst, d.KeySchema)
	dst = append(dst, `,"Projection":{"ProjectionType":`...)
	dst = wire.AppendString(dst, d.ProjectionType)
	if d.NonKeyAttributes != nil {
		dst = append(dst, `,"NonKeyAttributes":[`...)
		for i, a := range d.NonKeyAttributes {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = wire.AppendString(dst, a)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, '}')
	if !d.Local {
		dst = append(dst, `,"IndexStatus":`...)
		dst = wire.AppendString(dst, d.IndexStatus)
		if d.Backfilling != nil {
			dst = append(dst, `,"Backfilling":`...)
			dst = wire.AppendBool(dst, *d.Backfilling)
		}
		dst = append(dst, `,"ProvisionedThroughput":`...)
		dst = d.Throughput.appendJSON(dst, d.ReadCapacityUnits, d.WriteCapacityUnits)
		if d.MaxReadRequestUnits != 0 || d.MaxWriteRequestUnits != 0 {
			dst = append(dst, `,"OnDemandThroughput":{"MaxReadRequestUnits":`...)
			dst = wire.AppendInt(dst, orMinusOne(d.MaxReadRequestUnits))
			dst = append(dst, `,"MaxWriteRequestUnits":`...)
			dst = wire.AppendInt(dst, orMinusOne(d.MaxWriteRequestUnits))
			dst = append(dst, '}')
		}
		if d.WarmRead != 0 {
			dst = append(dst, `,"WarmThroughput":{"ReadUnitsPerSecond":`...)
			dst = wire.AppendInt(dst, d.WarmRead)
			dst = append(dst, `,"WriteUnitsPerSecond":`...)
			dst = wire.AppendInt(dst, d.WarmWrite)
			dst = append(dst, `,"Status":`...)
			dst = wire.AppendString(dst, d.IndexStatus)
			dst = append(dst, '}')
		}
	}
	dst = append(dst, `,"IndexSizeBytes":`...)
	dst = wire.AppendInt(dst, d.IndexSizeBytes)
	dst = append(dst, `,"ItemCount":`...)
	dst = wire.AppendInt(dst, d.ItemCount)
	dst = append(dst, `,"IndexArn":`...)
	dst = wire.AppendString(dst, d.IndexArn)
	return append(dst, '}')
}

// TableDescriptionOutput is the response of CreateTable, DeleteTable
// (member "TableDescription") and DescribeTable (member "Table").
type TableDescriptionOutput struct {
	Member string
	Table  *TableDescription
}

// AppendJSON appends the response body.
func (o *TableDescriptionOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"`...)
	dst = append(dst, o.Member...)
	dst = append(dst, `":`...)
	dst = o.Table.AppendJSON(dst)
	return append(dst, '}')
}
