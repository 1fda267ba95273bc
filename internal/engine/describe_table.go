package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/throttle"
)

// DescribeTable returns a table's description.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTable.html
func (e *Engine) DescribeTable(ctx context.Context, in *api.DescribeTableInput) (*api.TableDescriptionOutput, error) {
	t, err := e.namedTable(ctx, *in.TableName)
	if err != nil {
		return nil, err
	}
	st, err := e.tableStats(ctx, t)
	if err != nil {
		return nil, err
	}
	if e.limiter != nil {
		// Partitions split as their data grows (10 GB each).
		now := e.opts.Now()
		e.limiter.Resize(now, throttle.Space{Table: t.Number}, settingsOf(t, nil), st.bytes)
		for _, ix := range t.GSIs {
			e.limiter.Resize(now, throttle.Space{Table: t.Number, Index: ix.Number}, settingsOf(t, ix), st.indexes[ix.Number].bytes)
		}
	}
	return &api.TableDescriptionOutput{Member: "Table", Table: e.describe(ctx, t, st)}, nil
}

// onDemandWarm returns the warm throughput of an on-demand key space:
// what its partitions serve at once (read, write units a second), at
// least the 12,000 and 4,000 of a new table. With throttling off there
// are no modelled partitions and it is the new table's.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput.html
// ("on-demand ... warm throughput grows as usage increases").
func (e *Engine) onDemandWarm(sp throttle.Space) (read, write int64) {
	read, write = throttle.OnDemandWarmReadUnits, throttle.OnDemandWarmWriteUnits
	if e.limiter != nil {
		n := int64(e.limiter.PartitionCount(sp))
		read, write = max(read, n*throttle.PartitionReadUnits), max(write, n*throttle.PartitionWriteUnits)
	}
	return read, write
}

// namedTable returns the table named name in any status, or
// ResourceNotFoundException naming it (the control-plane operations'
// answer for a missing table).
func (e *Engine) namedTable(ctx context.Context, name string) (*catalog.Table, error) {
	var t *catalog.Table
	err := e.read(ctx, func(tx storage.Txn) error {
		var err error
		t, err = e.lookup(tx, name)
		return err
	})
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, ddberr.TableNotFoundNamed(name)
	}
	return t, err
}

// tableToChange returns the stored descriptor of the table named name,
// for a control-plane change in tx, or ResourceNotFoundException naming
// it.
func tableToChange(tx storage.Txn, name string) (*catalog.Table, error) {
	t, _, err := catalog.Get(tx, name)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, ddberr.TableNotFoundNamed(name)
	}
	return t, err
}

// describe builds a TableDescription.
func (e *Engine) describe(ctx context.Context, t *catalog.Table, st tableStats) *api.TableDescription {
	d := &api.TableDescription{
		TableName:                 t.Name,
		TableArn:                  e.tableArn(ctx, t.Name),
		TableID:                   t.ID,
		TableStatus:               t.Status(e.opts.Now()),
		CreationDateTime:          epochSeconds(t.Created),
		ItemCount:                 st.count,
		TableSizeBytes:            st.bytes,
		DeletionProtectionEnabled: t.DeletionProtection,
		ReadCapacityUnits:         t.ReadCapacityUnits,
		WriteCapacityUnits:        t.WriteCapacityUnits,
		Throughput:                throughputHistory(t.Throughput, e.opts.Now()),
		WarmRead:                  t.ReadCapacityUnits,
		WarmWrite:                 t.WriteCapacityUnits,
	}
	for _, k := range t.KeySchema {
		d.KeySchema = append(d.KeySchema, [2]string{k.AttributeName, k.KeyType})
	}
	for _, a := range t.AttributeDefinitions {
		d.AttributeDefinitions = append(d.AttributeDefinitions, [2]string{a.AttributeName, a.AttributeType})
	}
	d.TableClass = t.TableClass
	if t.TableClassChanged != 0 {
		d.TableClassUpdated = epochSeconds(t.TableClassChanged)
	}
	if s := t.Stream; s != nil {
		if s.Enabled {
			d.StreamViewType = s.ViewType
		}
		d.LatestStreamLabel = s.Label
		d.LatestStreamArn = e.streamArn(e.region(ctx), t.Name, s.Label)
	}
	d.MaxReadRequestUnits, d.MaxWriteRequestUnits = t.MaxReadRequestUnits, t.MaxWriteRequestUnits
	if t.SSE != nil {
		key := t.SSE.KMSMasterKeyID
		if !strings.HasPrefix(key, "arn:") {
			if key == "" {
				// The AWS managed key of the account (aws/dynamodb).
				key = t.ID
			}
			key = "arn:aws:kms:" + e.region(ctx) + ":" + e.opts.AccountID + ":key/" + key
		}
		d.SSEKeyArn = key
	}
	if t.PayPerRequestSince != 0 {
		d.BillingMode = t.BillingMode
		d.LastUpdateToPayPerRequestDateTime = epochSeconds(t.PayPerRequestSince)
	}
	if t.BillingMode == catalog.BillingPayPerRequest {
		d.WarmRead, d.WarmWrite = e.onDemandWarm(throttle.Space{Table: t.Number})
	}
	now := e.opts.Now()
	for _, ix := range t.Indexes() {
		id := indexDescription(d.TableArn, ix, now)
		id.IndexStatus = ix.Status(now)
		id.ItemCount, id.IndexSizeBytes = st.indexes[ix.Number].count, st.indexes[ix.Number].bytes
		if ix.Local {
			d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, id)
			continue
		}
		if d.TableStatus == catalog.StatusCreating {
			// A table's GSIs become ACTIVE with it.
			id.IndexStatus = catalog.IndexCreating
		}
		if ix.ActiveAt != 0 && id.IndexStatus == catalog.IndexCreating {
			// DynamoDB reports Backfilling only for an index being added to
			// an existing table (ActiveAt set): false in UpdateTable's
			// response, then true until the index is ACTIVE.
			b := true
			id.Backfilling = &b
		}
		id.WarmRead, id.WarmWrite = ix.ReadCapacityUnits, ix.WriteCapacityUnits
		if t.BillingMode == catalog.BillingPayPerRequest {
			id.WarmRead, id.WarmWrite = e.onDemandWarm(throttle.Space{Table: t.Number, Index: ix.Number})
		}
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, id)
	}
	return d
}

// indexDescription returns the static part of an index's description:
// name, ARN, key schema, projection and (GSIs) throughput settings.
func indexDescription(tableArn string, ix *catalog.Index, now time.Time) *api.IndexDescription {
	id := &api.IndexDescription{
		IndexName:            ix.Name,
		IndexArn:             tableArn + "/index/" + ix.Name,
		Local:                ix.Local,
		ProjectionType:       ix.Projection,
		NonKeyAttributes:     ix.NonKeyAttributes,
		ReadCapacityUnits:    ix.ReadCapacityUnits,
		WriteCapacityUnits:   ix.WriteCapacityUnits,
		Throughput:           throughputHistory(ix.Throughput, now),
		MaxReadRequestUnits:  ix.MaxReadRequestUnits,
		MaxWriteRequestUnits: ix.MaxWriteRequestUnits,
	}
	for _, k := range ix.KeySchema {
		id.KeySchema = append(id.KeySchema, [2]string{k.AttributeName, k.KeyType})
	}
	return id
}

// epochSeconds converts Unix nanoseconds to DynamoDB's epoch seconds with
// millisecond precision.
func epochSeconds(ns int64) float64 {
	return float64(ns/int64(time.Millisecond)) / 1000
}

// tableStats are DescribeTable's ItemCount and TableSizeBytes, and each
// index's ItemCount and IndexSizeBytes (by index number).
type tableStats struct {
	count, bytes int64
	indexes      map[uint16]indexStats
	at           time.Time
	took         time.Duration
}

type indexStats struct{ count, bytes int64 }

// statsTTL is how long a slow stats scan is reused. DynamoDB itself
// refreshes these figures about every six hours; dynago recounts on every
// DescribeTable while that is cheap, and at most this often otherwise.
const (
	statsTTL      = 30 * time.Second
	statsSlowScan = 50 * time.Millisecond
)

// forgetStats drops a table's cached statistics (its indexes changed).
func (e *Engine) forgetStats(table uint64) {
	e.statsMu.Lock()
	defer e.statsMu.Unlock()
	delete(e.stats, table)
}

// tableStats counts a table's items and index entries and their sizes by
// scanning their stored headers (nothing is decoded).
func (e *Engine) tableStats(ctx context.Context, t *catalog.Table) (tableStats, error) {
	now := e.opts.Now()
	st, ok := e.cachedStats(t.Number)
	if ok && st.took > statsSlowScan && now.Sub(st.at) < statsTTL {
		return st, nil
	}
	start := time.Now() // wallclock: took is how long the scan really takes, against statsSlowScan
	st = tableStats{at: now, indexes: map[uint16]indexStats{}}
	err := e.read(ctx, func(tx storage.Txn) error {
		lo, hi := keycodec.TableBounds(t.Number)
		if !hasIndexes(t) {
			lo, hi = keycodec.SpaceBounds(space(t))
		}
		it, err := tx.Scan(lo, hi, false)
		if err != nil {
			return fmt.Errorf("table statistics of %s: scan: %w", t.Name, err)
		}
		for it.Next() {
			s, ok := keycodec.KeySpace(it.Key())
			if !ok || s.Index > catalog.MaxIndexNumber {
				continue
			}
			size, _, err := splitItem(it.Value())
			if err != nil {
				it.Close()
				return err
			}
			if s.Index == 0 {
				st.count++
				st.bytes += int64(size)
				continue
			}
			is := st.indexes[s.Index]
			is.count++
			is.bytes += int64(size)
			st.indexes[s.Index] = is
		}
		return it.Close()
	})
	if err != nil {
		return tableStats{}, err
	}
	st.took = time.Since(start) // wallclock: the scan's real duration
	e.statsMu.Lock()
	defer e.statsMu.Unlock()
	e.stats[t.Number] = st
	return st, nil
}

// cachedStats returns a table's cached statistics, if any.
func (e *Engine) cachedStats(table uint64) (tableStats, bool) {
	e.statsMu.Lock()
	defer e.statsMu.Unlock()
	st, ok := e.stats[table]
	return st, ok
}
