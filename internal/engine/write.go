package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/eval"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/throttle"
)

// The item-write path.
//
// Every write of an item is a change: one item of one table going from
// its old version to its new one. PutItem, UpdateItem and DeleteItem
// make one change, BatchWriteItem one per write, TransactWriteItems one
// per action, and the TTL sweeper one per expired item. Each of them
// builds its changes, evaluates their conditions, applies them and
// reports, through the functions of this file in this order:
//
//  1. prepare: newChange takes the table key out of the request (key
//     schema, types, sizes) and computes the item's storage key;
//     (*change).put checks a new item's 400 KB limit and index key
//     attributes and keeps its stored form (an update computes its new
//     item after reading the old one: applyUpdate, then become).
//  2. read: (*change).readOld reads the item the change replaces, which
//     joins the storage transaction's read set: a commit that changes it
//     in the meantime makes this transaction conflict and retry.
//  3. condition: (*change).check evaluates the write's condition against
//     the old version. A failed condition writes nothing, but is charged.
//  4. apply: (*Engine).apply writes the item (storage Set or Delete) and
//     everything that follows from it in the same storage transaction:
//     the stream record (recordChange, stream.go), every secondary index
//     entry (writeIndexes, index.go) and the item collection's size
//     (updateCollection, index.go). They commit together or not at all.
//  5. report: the ReturnValues from the change's versions, the
//     ConsumedCapacity (applied.capacity) and the throttle demand on the
//     partitions written (writeCharge, charged once the write is done).
//
// PutItem, UpdateItem and DeleteItem run in writeOne, which retries a
// whole attempt when its commit conflicts: an attempt builds its change
// and output afresh, and only the output of the attempt that committed
// is returned. Below the engine, storage.Txn.Commit is the one call that
// makes the change durable (internal/storage/pebble: one batch, synced).

// writer says who made a change: a user's request, or the TTL service,
// whose deletions stream records mark (userIdentity).
type writer uint8

const (
	byUser writer = iota
	byTTL
)

// version is one version of an item: the old one a change replaces, or
// the new one it writes.
type version struct {
	exists bool
	// item is the decoded item: always for a new version; for an old one
	// only when a reader asked for it (readOld's decode) or the table has
	// indexes.
	item attr.Item
	// json is the item's JSON as stored (names sorted, numbers
	// canonical), stored its whole stored form (encodeItem) and size its
	// DynamoDB size in bytes.
	json   []byte
	stored []byte
	size   int
}

// change is one change to one item of table t, from old to new: new
// absent (exists false) deletes the item, and old and new both absent is
// no change at all (a delete, or a remove-only update, of a missing item).
type change struct {
	t   *catalog.Table
	tk  tableKey // the table key (partition key and sort key values)
	key []byte   // the item's storage key
	old version
	new version
	by  writer
}

// newChange prepares a change of the item of t whose key attributes
// keyItem holds (a whole item for a put, style keyOfItem or
// keyOfBatchItem; a Key for others): the table key, checked against the
// key schema with DynamoDB's messages for style, and the storage key.
func newChange(t *catalog.Table, keyItem attr.Item, style keyStyle) (change, error) {
	tk, err := extractKey(t, keyItem, style)
	if err != nil {
		return change{}, err
	}
	return change{t: t, tk: tk, key: storageKey(t, tk)}, nil
}

// put makes item the change's new version: size is item.Size() and
// stored its stored form (encodeItem(item, size)). It checks the 400 KB
// limit and the index key attributes, as a PutItem does.
func (c *change) put(item attr.Item, stored []byte, size int) error {
	if err := checkItemSize(size); err != nil {
		return err
	}
	if hasIndexes(c.t) {
		if err := checkIndexKeys(c.t, item, false); err != nil {
			return err
		}
	}
	c.become(item, stored, size)
	return nil
}

// become makes item (already checked, stored form stored or nil to
// encode it here, size its size) the change's new version; a nil item
// leaves the change without one.
func (c *change) become(item attr.Item, stored []byte, size int) {
	if item == nil {
		c.new = version{}
		return
	}
	if stored == nil {
		stored = encodeItem(item, size)
	}
	_, js, _ := splitItem(stored) // encodeItem's own output
	c.new = version{exists: true, item: item, json: js, stored: stored, size: size}
}

// readOld reads the item the change replaces, joining tx's read set, and
// decodes it when decode is set or the table has indexes (whose
// maintenance needs the old item's index keys).
func (c *change) readOld(tx storage.Txn, decode bool) error {
	old, err := readVersion(tx, c.key, decode || hasIndexes(c.t))
	if err != nil {
		return fmt.Errorf("read item %s of %s: %w", c.tk, c.t.Name, err)
	}
	c.old = old
	return nil
}

// readVersion reads the stored item at key (joining the transaction's
// read set), decoding it when decode is set. An absent item is a version
// that does not exist; a stored item that does not decode is
// errCorruptItem.
func readVersion(tx storage.Txn, key []byte, decode bool) (version, error) {
	raw, err := tx.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return version{}, nil
	}
	if err != nil {
		return version{}, err
	}
	size, js, err := splitItem(raw)
	if err != nil {
		return version{}, err
	}
	v := version{exists: true, json: js, stored: raw, size: size}
	if decode {
		if v.item, err = attr.DecodeItem(js); err != nil {
			return version{}, fmt.Errorf("%w: %v", errCorruptItem, err)
		}
	}
	return v, nil
}

// check evaluates a write's condition against the old version and
// returns ConditionalCheckFailedException (with the item when the
// request asks ReturnValuesOnConditionCheckFailure=ALL_OLD) when it does
// not hold. A nil condition holds.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ConditionExpressions.html
func (c *change) check(cond expr.Expr, w *api.CommonWrite) error {
	if cond == nil {
		return nil
	}
	var item attr.Item
	if c.old.exists {
		item = c.old.item
	}
	if eval.Condition(cond, item) {
		return nil
	}
	err := ddberr.ConditionalCheckFailed()
	if w.ReturnOldOnConditionFailure() && c.old.exists {
		err.Item = c.old.json
	}
	return err
}

// units are the write capacity units the change costs its table: those
// of the larger of its two versions. Before the new version is known (a
// failed condition of an update) they are the old version's.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html#write-operation-consumption
func (c *change) units() float64 { return writeUnits(max(c.new.size, c.old.size)) }

// applied is what applying a change wrote beyond the item itself.
type applied struct {
	// index says which index entries were written and what they cost.
	index indexChange
	// metrics is the ItemCollectionMetrics to report (when asked for, on
	// a table with local secondary indexes), as JSON.
	metrics []byte
}

// apply writes the change in tx: the item is Set (new version) or
// Deleted (old only), then its stream record, index entries and item
// collection size follow; a change of a missing item to nothing writes
// nothing. metrics asks for the ItemCollectionMetrics. Errors are
// storage errors, ItemCollectionSizeLimitExceededException, and the
// stream's when it has no open shard.
func (e *Engine) apply(tx storage.Txn, c *change, metrics bool) (applied, error) {
	var a applied
	var err error
	switch {
	case c.new.exists:
		err = tx.Set(c.key, c.new.stored)
	case c.old.exists:
		err = tx.Delete(c.key)
	default:
		return a, nil
	}
	if err != nil {
		return a, fmt.Errorf("write item %s of %s: %w", c.tk, c.t.Name, err)
	}
	if err := e.recordChange(tx, c); err != nil {
		return a, err
	}
	if !hasIndexes(c.t) {
		return a, nil
	}
	if a.index, err = e.writeIndexes(tx, c); err != nil || len(c.t.LSIs) == 0 {
		return a, err
	}
	total, err := e.updateCollection(tx, c.t, c.tk.hash, a.index.collectionDelta)
	if err != nil || !metrics {
		return a, err
	}
	a.metrics = itemCollectionMetrics(c.t, c.tk.hash, total)
	return a, nil
}

// capacity is the ConsumedCapacity of a single-item write (mode is the
// request's ReturnConsumedCapacity; nil when not asked): the table's
// units and those of every index written.
func (a applied) capacity(mode *string, c *change) *api.ConsumedCapacity {
	cc := consumed(mode, c.t.Name, 0, c.units())
	chargeIndexes(cc, a.index)
	return cc
}

// demands are the throttle demands of an applied change: its table
// partition, charged factor times the change's units plus its LSI
// entries' (an item collection lives in its partition), and each GSI
// partition written.
func (a applied) demands(c *change, factor float64) []throttle.Demand {
	gsi, lsiUnits := indexDemands(c.t, a.index)
	return append([]throttle.Demand{tableDemand(c.t, c.tk, true, factor*c.units()+lsiUnits)}, gsi...)
}

// writeCharge collects the throttle demand of one single-item write's
// attempt, to charge once the write has ended.
type writeCharge struct {
	demands []throttle.Demand
}

// admit asks throttling (when on) to admit the change to its table
// partition, before any work.
func (w *writeCharge) admit(ctx context.Context, e *Engine, c *change) error {
	return e.admitIf(ctx, c.t, func() throttle.Demand { return tableDemand(c.t, c.tk, true, 0) })
}

// written admits the change's GSI entries (a throttled GSI rejects the
// base table's write) and records its demands.
func (w *writeCharge) written(ctx context.Context, e *Engine, c *change, a applied) error {
	ds := a.demands(c, 1)
	if err := e.admit(ctx, c.t, ds[1:]...); err != nil {
		return err
	}
	w.demands = append(w.demands, ds...)
	return nil
}

// failed records a change whose condition failed: DynamoDB still
// charges it (docs/research-capacity.md §3).
func (w *writeCharge) failed(c *change) {
	w.demands = append(w.demands, tableDemand(c.t, c.tk, true, c.units()))
}

// settle charges what was recorded, unless the write failed for another
// reason than its condition.
func (w *writeCharge) settle(e *Engine, err error) {
	if err == nil || ddberr.Is(err, ddberr.ConditionalCheckFailedException) {
		e.charge(w.demands)
	}
}

// singleWrite is one attempt of a single-item write (PutItem,
// UpdateItem, DeleteItem): the item it works on, for the conflict check,
// and its throttle demand.
type singleWrite struct {
	ctx    context.Context
	e      *Engine
	target itemTarget
	charge writeCharge
}

// begin prepares the attempt's change of the item keyItem names in the
// ACTIVE table called table (newChange), makes it the attempt's target
// and admits it to its partition.
func (w *singleWrite) begin(tx storage.Txn, table string, keyItem attr.Item, style keyStyle) (change, error) {
	t, err := w.e.activeTable(tx, table)
	if err != nil {
		return change{}, err
	}
	c, err := newChange(t, keyItem, style)
	if err != nil {
		return change{}, err
	}
	w.target = itemTarget{t, c.key}
	return c, w.charge.admit(w.ctx, w.e, &c)
}

// check is (*change).check; a failed condition is charged.
func (w *singleWrite) check(c *change, cond expr.Expr, common *api.CommonWrite) error {
	err := c.check(cond, common)
	if err != nil {
		w.charge.failed(c)
	}
	return err
}

// apply applies the change (e.apply) and records its throttle demand.
func (w *singleWrite) apply(tx storage.Txn, c *change, metrics bool) (applied, error) {
	a, err := w.e.apply(tx, c, metrics)
	if err != nil {
		return a, err
	}
	return a, w.charge.written(w.ctx, w.e, c, a)
}

// finish checks a PutItem's or DeleteItem's condition (common.Condition),
// applies its change and answers (output).
func (w *singleWrite) finish(tx storage.Txn, c *change, common *api.CommonWrite) (*api.ItemOutput, error) {
	if err := w.check(c, common.Condition, common); err != nil {
		return nil, err
	}
	a, err := w.apply(tx, c, common.WantsItemCollectionMetrics())
	if err != nil {
		return nil, err
	}
	return w.output(c, a, common.ReturnConsumedCapacity, common.ReturnValue()), nil
}

// output is a single-item write's answer: the ConsumedCapacity for mode
// (the request's ReturnConsumedCapacity), the ItemCollectionMetrics, and
// the old item when rv (ReturnValues) is ALL_OLD and there was one.
// UpdateItem's other ReturnValues are its own.
func (w *singleWrite) output(c *change, a applied, mode *string, rv string) *api.ItemOutput {
	out := &api.ItemOutput{Member: "Attributes", ConsumedCapacity: a.capacity(mode, c), ItemCollectionMetrics: a.metrics}
	if rv == "ALL_OLD" && c.old.exists {
		out.Item = c.old.json
	}
	return out
}

// itemTarget is an item a write works on: its table and storage key.
type itemTarget struct {
	t   *catalog.Table
	key []byte
}

// writeOne runs a single-item write: attempt, in a read-write storage
// transaction, builds its change and output; a commit conflict retries
// it from the start (with a fresh singleWrite), and the output of the
// attempt that committed is returned. A collision with a transaction
// that committed on the target item since the attempt began is
// TransactionConflictException, as in DynamoDB, instead of a retry.
// Throttle demand is charged once, at the end.
func writeOne[T any](ctx context.Context, e *Engine, attempt func(tx storage.Txn, w *singleWrite) (T, error)) (T, error) {
	var out T
	w := &singleWrite{}
	err := e.updateChecked(ctx, func(tx storage.Txn) error {
		*w = singleWrite{ctx: ctx, e: e, charge: writeCharge{demands: w.charge.demands[:0]}}
		o, err := attempt(tx, w)
		out = o
		return err
	}, func(began time.Time) error {
		if w.target.t != nil && e.transactionSince(ctx, w.target.t, w.target.key, began) {
			return errTransactionConflict()
		}
		return nil
	})
	w.charge.settle(e, err)
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// hasIndexes reports whether writes to t maintain secondary indexes.
func hasIndexes(t *catalog.Table) bool { return len(t.GSIs) > 0 || len(t.LSIs) > 0 }

// streamed reports whether writes to t write stream records (and so need
// the item they replace).
func streamed(t *catalog.Table) bool { return t.Stream != nil && t.Stream.Enabled }
