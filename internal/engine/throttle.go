package engine

import (
	"context"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/insights"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/throttle"
)

// Throttling (Options.Throttle).
//
// Each operation describes the partitions it touches as throttle.Demands:
// a single-item read or write its table partition (and, for a write,
// the partition of every GSI entry it puts or deletes, so that a hot GSI
// back-pressures the base table as in DynamoDB), a Query or Scan page the
// partition it starts reading in. It asks the limiter before doing
// the work (admit) and reports what it consumed after (charge); a
// conditional write whose condition fails is still charged. Throttled
// requests get DynamoDB's exception with ThrottlingReasons; batches
// return the throttled part as UnprocessedItems/UnprocessedKeys.
//
// Messages: docs/research-throttling.md.

// settingsOf returns the throttle settings of t (ix nil) or of its GSI
// ix. An LSI shares its table's partitions and settings.
func settingsOf(t *catalog.Table, ix *catalog.Index) throttle.Settings {
	if t.BillingMode == catalog.BillingPayPerRequest {
		s := throttle.Settings{OnDemand: true, MaxReadUnits: t.MaxReadRequestUnits, MaxWriteUnits: t.MaxWriteRequestUnits}
		if ix != nil && !ix.Local {
			s.MaxReadUnits, s.MaxWriteUnits = ix.MaxReadRequestUnits, ix.MaxWriteRequestUnits
		}
		return s
	}
	if ix != nil && !ix.Local {
		return throttle.Settings{ReadUnits: ix.ReadCapacityUnits, WriteUnits: ix.WriteCapacityUnits}
	}
	return throttle.Settings{ReadUnits: t.ReadCapacityUnits, WriteUnits: t.WriteCapacityUnits}
}

// tableDemand is a read or write of the item with key tk in t.
func tableDemand(t *catalog.Table, tk tableKey, write bool, units float64) throttle.Demand {
	k := keycodec.AppendPartition(make([]byte, 0, 64), space(t), tk.hash)
	pkLen := len(k) - keycodec.SpaceLen
	if tk.hasRange {
		k = keycodec.AppendValue(k, tk.rng)
	}
	h, _ := keycodec.KeyHash(k)
	return throttle.Demand{
		Space:           throttle.Space{Table: t.Number},
		TableName:       t.Name,
		Settings:        settingsOf(t, nil),
		Hash:            h,
		Key:             k[keycodec.SpaceLen:],
		PartitionKeyLen: pkLen,
		Insights:        insightsMode(t.Insights),
		Write:           write,
		Units:           units,
	}
}

// insightsMode is a Contributor Insights setting as a Demand carries it.
func insightsMode(s *catalog.Insights) uint8 {
	switch {
	case s == nil || !s.Enabled:
		return throttle.InsightsOff
	case s.Mode == catalog.InsightsThrottledOnly:
		return throttle.InsightsThrottled
	}
	return throttle.InsightsAll
}

// gsiDemand is a write of the entry with storage key key in GSI ix of t.
func gsiDemand(t *catalog.Table, ix *catalog.Index, key []byte, units float64) throttle.Demand {
	h, _ := keycodec.KeyHash(key)
	d := throttle.Demand{
		Space:     throttle.Space{Table: t.Number, Index: ix.Number},
		TableName: t.Name, IndexName: ix.Name,
		Settings: settingsOf(t, ix),
		Hash:     h,
		Key:      key[keycodec.SpaceLen:],
		Insights: insightsMode(ix.Insights),
		Write:    true,
		Units:    units,
	}
	if d.Insights != throttle.InsightsOff {
		d.PartitionKeyLen, d.ItemKeyLen = entryKeyLens(t, ix, d.Key)
	}
	return d
}

// entryKeyLens returns how many bytes of an index entry's position are
// its hash and partition key, and its hash and whole index key.
func entryKeyLens(t *catalog.Table, ix *catalog.Index, pos []byte) (pkLen, keyLen int) {
	if len(pos) < 8 {
		return len(pos), len(pos)
	}
	end := func(rest []byte, keys []catalog.KeyElement) []byte {
		for _, k := range keys {
			_, r, err := keycodec.DecodeValue(rest, t.AttributeType(k.AttributeName))
			if err != nil {
				return nil
			}
			rest = r
		}
		return rest
	}
	afterPK := end(pos[8:], ix.HashKeys())
	afterSK := end(afterPK, ix.RangeKeys())
	return len(pos) - len(afterPK), len(pos) - len(afterSK)
}

// indexDemands are the GSI writes of one item write; LSI writes are
// charged to the table partition (an LSI lives in its table's item
// collections), which the caller does by adding them to its units.
func indexDemands(t *catalog.Table, ch indexChange) (gsi []throttle.Demand, lsiUnits float64) {
	for _, u := range ch.units {
		if u.local {
			lsiUnits += u.units
			continue
		}
		ix := t.Index(u.name)
		for _, w := range u.touched {
			gsi = append(gsi, gsiDemand(t, ix, w.key, w.units))
		}
	}
	return gsi, lsiUnits
}

// admit asks the limiter (when throttling is on) whether demands may
// proceed, returning DynamoDB's throttling error for t when not. A
// throttled demand counts for Contributor Insights.
func (e *Engine) admit(ctx context.Context, t *catalog.Table, demands ...throttle.Demand) error {
	if e.limiter == nil || len(demands) == 0 {
		return nil
	}
	now := e.opts.Now()
	v, ok := e.limiter.Admit(now, demands)
	if ok {
		return nil
	}
	if d := &demands[v.Demand]; d.Insights != throttle.InsightsOff && d.Key != nil {
		e.insights.Record(now, insightsEvent(d, true))
	}
	return e.throttled(ctx, t, v)
}

// insightsEvent is the Contributor Insights event of demand d.
func insightsEvent(d *throttle.Demand, throttled bool) insights.Event {
	key := d.Key
	if d.ItemKeyLen > 0 && d.ItemKeyLen <= len(key) {
		key = key[:d.ItemKeyLen]
	}
	return insights.Event{Space: insights.Space(d.Space), Key: key, PartitionKeyLen: d.PartitionKeyLen, Write: d.Write, Units: d.Units, Throttled: throttled}
}

// admitIf is admit of the demand d returns, computed only when
// throttling is on.
func (e *Engine) admitIf(ctx context.Context, t *catalog.Table, d func() throttle.Demand) error {
	if e.limiter == nil {
		return nil
	}
	return e.admit(ctx, t, d())
}

// charge records what demands consumed: in the limiter (when throttling
// is on), in the usage the insights report reads, for Contributor
// Insights where it is on, and to the Observer.
func (e *Engine) charge(demands []throttle.Demand) {
	if len(demands) == 0 {
		return
	}
	now := e.opts.Now()
	if e.limiter != nil {
		e.limiter.Charge(now, demands)
	}
	o := e.opts.Observer
	for i := range demands {
		d := &demands[i]
		if d.Units <= 0 {
			continue
		}
		e.insights.Consumed(now, insights.Space(d.Space), d.Write, d.Units)
		if d.Insights == throttle.InsightsAll && d.Key != nil {
			e.insights.Record(now, insightsEvent(d, false))
		}
		if o != nil {
			o.Consumed(d.TableName, d.IndexName, d.Write, d.Units)
		}
	}
}

// throttled returns the error DynamoDB gives for verdict v on table t:
// ProvisionedThroughputExceededException for provisioned throughput and
// for a partition's limit, ThrottlingException for an on-demand maximum,
// each with its ThrottlingReasons.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ThrottlingReason.html
func (e *Engine) throttled(ctx context.Context, t *catalog.Table, v throttle.Verdict) error {
	resource := e.tableArn(ctx, t.Name)
	subject, index := "Table", ""
	if v.Space.Index != 0 {
		subject = "Index"
		for _, ix := range t.GSIs {
			if ix.Number == v.Space.Index {
				index = ix.Name
				resource += "/index/" + index
			}
		}
	}
	op := "Read"
	if v.Write {
		op = "Write"
	}
	onDemand := t.BillingMode == catalog.BillingPayPerRequest
	code, msg := ddberr.ProvisionedThroughputExceededException, msgProvisionedExceeded
	if v.Space.Index != 0 {
		msg = msgIndexProvisionedExceeded
	}
	var limit string
	switch v.Limit {
	case throttle.KeyRange:
		limit = "KeyRangeThroughputExceeded"
		if onDemand {
			code, msg = ddberr.ThrottlingException, msgOnDemandExceeded
		}
	case throttle.Provisioned:
		limit = "ProvisionedThroughputExceeded"
	case throttle.MaxOnDemand:
		limit = "MaxOnDemandThroughputExceeded"
		code, msg = ddberr.ThrottlingException, msgMaxOnDemandExceeded
	}
	if o := e.opts.Observer; o != nil {
		o.Throttled(t.Name, index, subject+op+limit)
	}
	err := ddberr.New(code, msg)
	err.ThrottlingReasons = []ddberr.ThrottlingReason{{Reason: subject + op + limit, Resource: resource}}
	return err
}

// DynamoDB's throttling messages, verbatim (some without a final full
// stop): docs/research-throttling.md §1.
const (
	msgProvisionedExceeded      = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
	msgIndexProvisionedExceeded = "The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API"
	msgOnDemandExceeded         = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
	msgMaxOnDemandExceeded      = "Throughput exceeds the maximum OnDemandThroughput configured on table or index"
)

// readDemand is a Query or Scan page of plan's key space that starts
// reading at the storage key from: it is admitted by, and charged to,
// the partition it starts in (a page holds at most 1 MB, mostly of one
// partition; the next page starts in the next). A Query's page (from is
// its partition's prefix) counts for Contributor Insights as one event
// of its partition key; a Scan's does not.
func readDemand(plan *keyPlan, from []byte, query bool) throttle.Demand {
	d := throttle.Demand{Space: throttle.Space{Table: plan.table.Number}, TableName: plan.table.Name, Settings: settingsOf(plan.table, nil)}
	setting := plan.table.Insights
	if ix := plan.index; ix != nil && !ix.Local {
		d.Space.Index, d.IndexName, d.Settings = ix.Number, ix.Name, settingsOf(plan.table, ix)
		setting = ix.Insights
	}
	d.Hash, _ = keycodec.KeyHash(from) // a whole-space start (no hash) is hash 0
	if len(from) >= keycodec.SpaceLen+8 {
		d.Key = from[keycodec.SpaceLen:]
	}
	if query && d.Key != nil {
		d.Insights, d.PartitionKeyLen = insightsMode(setting), len(d.Key)
	}
	return d
}

// gsiTouched returns the GSI partitions replacing old with item (either
// may be nil) would write, for admission before the write; units are
// charged afterwards from its indexChange.
func gsiTouched(t *catalog.Table, old, item attr.Item) []throttle.Demand {
	var ds []throttle.Demand
	for _, ix := range t.GSIs {
		for _, it := range []attr.Item{old, item} {
			if it == nil {
				continue
			}
			if key, ok := entryKeyOf(t, ix, it); ok {
				ds = append(ds, gsiDemand(t, ix, key, 0))
			}
		}
	}
	return ds
}

// unprocessedWrite encodes a throttled BatchWriteItem request: the put's
// item, or the delete's key (item nil).
func unprocessedWrite(t *catalog.Table, tk tableKey, item attr.Item) []byte {
	if item != nil {
		return append(attr.AppendItem([]byte(`{"PutRequest":{"Item":`), item), "}}"...)
	}
	key := attr.Item{t.KeySchema[0].AttributeName: tk.hash}
	if tk.hasRange {
		key[t.KeySchema[1].AttributeName] = tk.rng
	}
	return append(attr.AppendItem([]byte(`{"DeleteRequest":{"Key":`), key), "}}"...)
}

// throttleReason is the cancellation reason of a transaction action that
// throttling refused: ThrottlingError on on-demand tables,
// ProvisionedThroughputExceeded on provisioned ones, with the message of
// the exception a single write would get.
func throttleReason(err error) ddberr.CancellationReason {
	de, _ := ddberr.As(err)
	if de.Code == ddberr.ThrottlingException {
		return ddberr.CancellationReason{Code: "ThrottlingError", Message: de.Message}
	}
	return ddberr.CancellationReason{Code: "ProvisionedThroughputExceeded", Message: de.Message}
}
