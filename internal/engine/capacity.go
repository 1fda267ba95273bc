package engine

import (
	"github.com/dynago/dynago/internal/api"
)

// Capacity unit sizes.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/provisioned-capacity-mode.html
const (
	readUnitBytes  = 4096
	writeUnitBytes = 1024
)

// readUnits returns the read capacity for reading size bytes: one unit per
// 4 KB (at least one), halved for eventually consistent reads.
func readUnits(size int, consistent bool) float64 {
	u := float64((size + readUnitBytes - 1) / readUnitBytes)
	if u < 1 {
		u = 1
	}
	if !consistent {
		u /= 2
	}
	return u
}

// writeUnits returns the write capacity for writing size bytes: one unit
// per 1 KB, at least one.
func writeUnits(size int) float64 {
	u := float64((size + writeUnitBytes - 1) / writeUnitBytes)
	if u < 1 {
		u = 1
	}
	return u
}

// wantsCapacity reports whether ReturnConsumedCapacity asks for figures.
func wantsCapacity(mode *string) bool { return mode != nil && *mode != "NONE" }

// consumed returns the ConsumedCapacity to report for mode
// (ReturnConsumedCapacity), or nil for NONE.
func consumed(mode *string, table string, read, write float64) *api.ConsumedCapacity {
	if !wantsCapacity(mode) {
		return nil
	}
	return &api.ConsumedCapacity{
		TableName:     table,
		CapacityUnits: read + write,
		TableUnits:    read + write,
		ReadUnits:     read,
		WriteUnits:    write,
		Indexes:       *mode == "INDEXES",
	}
}

// chargeIndexes adds the index writes of one item write to c (nil: not
// asked).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes
func chargeIndexes(c *api.ConsumedCapacity, ch indexChange) {
	if c == nil {
		return
	}
	for _, u := range ch.units {
		c.AddIndex(u.name, u.local, u.units)
	}
}

// readPlanCapacity returns the ConsumedCapacity of a Query or Scan of p
// that read entries units of items or index entries and fetch units of
// table items (an LSI read needing unprojected attributes): an index
// read is charged to the index, the fetches to the table.
func readPlanCapacity(mode *string, p *keyPlan, entries, fetch float64) *api.ConsumedCapacity {
	if p.index == nil {
		return consumed(mode, p.table.Name, entries, 0)
	}
	c := consumed(mode, p.table.Name, fetch, 0)
	if c != nil {
		c.AddIndex(p.index.Name, p.index.Local, entries)
		c.ReadUnits += entries
	}
	return c
}
