package api

import (
	"maps"
	"slices"

	"github.com/dynago/dynago/internal/wire"
)

// ConsumedCapacity is DynamoDB's ConsumedCapacity for one table.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ConsumedCapacity.html
type ConsumedCapacity struct {
	TableName string
	// CapacityUnits is the total: the table's units and every index's.
	CapacityUnits float64
	ReadUnits     float64
	WriteUnits    float64
	// TableUnits are the units charged to the table itself.
	TableUnits float64
	// GSIs and LSIs are the units charged to each index touched, by name.
	GSIs, LSIs map[string]float64
	// Indexes adds the breakdown (ReturnConsumedCapacity=INDEXES).
	Indexes bool
	// Split adds ReadCapacityUnits and WriteCapacityUnits (the nonzero
	// ones), as DynamoDB reports them for transactions only
	// (docs/research-capacity.md §1); index units count as writes.
	Split bool
}

// AddIndex charges units to the named index.
func (c *ConsumedCapacity) AddIndex(name string, local bool, units float64) {
	m := &c.GSIs
	if local {
		m = &c.LSIs
	}
	if *m == nil {
		*m = map[string]float64{}
	}
	(*m)[name] += units
	c.CapacityUnits += units
}

// AppendJSON appends the ConsumedCapacity object: TableName and
// CapacityUnits, plus the per-table breakdown for INDEXES.
func (c *ConsumedCapacity) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"TableName":`...)
	dst = wire.AppendString(dst, c.TableName)
	dst = append(dst, `,"CapacityUnits":`...)
	dst = wire.AppendFloat(dst, c.CapacityUnits)
	dst = c.appendSplit(dst, c.ReadUnits, c.CapacityUnits-c.ReadUnits)
	if c.Indexes {
		dst = append(dst, `,"Table":{"CapacityUnits":`...)
		dst = wire.AppendFloat(dst, c.TableUnits)
		dst = c.appendSplit(dst, c.ReadUnits, c.WriteUnits)
		dst = append(dst, '}')
		dst = c.appendIndexUnits(dst, "LocalSecondaryIndexes", c.LSIs)
		dst = c.appendIndexUnits(dst, "GlobalSecondaryIndexes", c.GSIs)
	}
	return append(dst, '}')
}

// appendSplit appends the nonzero ReadCapacityUnits and
// WriteCapacityUnits when c is Split.
func (c *ConsumedCapacity) appendSplit(dst []byte, read, write float64) []byte {
	if !c.Split {
		return dst
	}
	if read != 0 {
		dst = append(dst, `,"ReadCapacityUnits":`...)
		dst = wire.AppendFloat(dst, read)
	}
	if write != 0 {
		dst = append(dst, `,"WriteCapacityUnits":`...)
		dst = wire.AppendFloat(dst, write)
	}
	return dst
}

func (c *ConsumedCapacity) appendIndexUnits(dst []byte, member string, m map[string]float64) []byte {
	if len(m) == 0 {
		return dst
	}
	dst = append(dst, `,"`...)
	dst = append(dst, member...)
	dst = append(dst, `":{`...)
	for i, name := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = wire.AppendString(dst, name)
		dst = append(dst, `:{"CapacityUnits":`...)
		dst = wire.AppendFloat(dst, m[name])
		dst = c.appendSplit(dst, 0, m[name])
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func appendCapacities(dst []byte, cc []*ConsumedCapacity) []byte {
	if cc == nil {
		return dst
	}
	dst = append(dst, `,"ConsumedCapacity":[`...)
	for i, c := range cc {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = c.AppendJSON(dst)
	}
	return append(dst, ']')
}
