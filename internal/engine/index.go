package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
)

// Secondary index entries.
//
// An item that carries every key attribute of an index has one entry in
// the index's key space (keycodec.Space{Table, Index: ix.Number}):
//
//	key:   space | hash(index partition key) | index partition key values |
//	       index sort key values | table partition key (GSIs only) |
//	       table sort key
//	value: the projected item in the stored-item format (encodeItem); for
//	       ALL projections the item's own stored bytes.
//
// The table key at the end makes entries unique while index keys need not
// be, and orders items that share an index key by their table key, as
// DynamoDB does. Entries change in the same storage transaction as the
// item, so an index can never hold an entry its table lacks or miss one
// it should have, crash included.

// keyAttr is one key attribute of a table or index with its declared type.
type keyAttr struct {
	name string
	kind attr.Kind
}

// keyPlan describes the ordered key space a Query or Scan reads: the
// table's items (index == nil) or one secondary index's entries.
type keyPlan struct {
	table *catalog.Table
	index *catalog.Index
	space keycodec.Space
	hash  []keyAttr // partition key attributes
	rng   []keyAttr // sort key attributes
	// fetch is set when a read of an LSI needs attributes the index does
	// not project: each entry's item is then read from the table.
	fetch bool
}

func attrsOf(t *catalog.Table, ks []catalog.KeyElement) []keyAttr {
	out := make([]keyAttr, len(ks))
	for i, k := range ks {
		out[i] = keyAttr{k.AttributeName, t.AttributeType(k.AttributeName)}
	}
	return out
}

// tablePlan returns the plan of a table's own key space.
func tablePlan(t *catalog.Table) *keyPlan {
	p := &keyPlan{table: t, space: space(t), hash: attrsOf(t, t.KeySchema[:1])}
	if len(t.KeySchema) > 1 {
		p.rng = attrsOf(t, t.KeySchema[1:])
	}
	return p
}

// indexPlan returns the plan of a secondary index.
func indexPlan(t *catalog.Table, ix *catalog.Index) *keyPlan {
	return &keyPlan{
		table: t,
		index: ix,
		space: keycodec.Space{Table: t.Number, Index: ix.Number},
		hash:  attrsOf(t, ix.HashKeys()),
		rng:   attrsOf(t, ix.RangeKeys()),
	}
}

// isKey reports whether name is a key attribute of the plan's key space
// (for an index: the index's own key attributes).
func (p *keyPlan) isKey(name string) bool {
	for _, k := range p.hash {
		if k.name == name {
			return true
		}
	}
	for _, k := range p.rng {
		if k.name == name {
			return true
		}
	}
	return false
}

// name names the key space for errors and logs: "table T" or "index I
// of table T".
func (p *keyPlan) name() string {
	if p.index != nil {
		return "index " + p.index.Name + " of table " + p.table.Name
	}
	return "table " + p.table.Name
}

// keyNames returns the attributes of a LastEvaluatedKey in this key
// space: the table's key attributes, then the index's.
func (p *keyPlan) keyNames() []string {
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, k := range p.table.KeySchema {
		add(k.AttributeName)
	}
	if p.index != nil {
		for _, k := range p.index.KeySchema {
			add(k.AttributeName)
		}
	}
	return names
}

// indexKeyValues returns item's values of ix's key attributes in key
// schema order. ok is false when the item lacks one of them (a sparse
// index simply does not hold it). A key attribute of the wrong type, or an
// empty string or binary, is DynamoDB's ValidationException.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.sparse
//
// updating selects the wording DynamoDB uses when an UpdateItem sets an
// existing item's index key to an empty value.
func indexKeyValues(t *catalog.Table, ix *catalog.Index, item attr.Item, updating bool) (vals []attr.Value, ok bool, err error) {
	vals = make([]attr.Value, 0, len(ix.KeySchema))
	ok = true
	nHash := len(ix.HashKeys())
	for i, k := range ix.KeySchema {
		v, present := item[k.AttributeName]
		if !present {
			ok = false
			continue
		}
		want := t.AttributeType(k.AttributeName)
		if v.Kind() != want {
			return nil, false, ddberr.InvalidParamf("Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s",
				k.AttributeName, want, v.Kind(), ix.Name)
		}
		if (v.Kind() == attr.S || v.Kind() == attr.B) && v.Text() == "" {
			kind := "string"
			if v.Kind() == attr.B {
				kind = "binary"
			}
			if updating {
				return nil, false, emptyKeyValue("One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty " + kind + " value.")
			}
			return nil, false, emptyKeyValue("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty " +
				kind + " value. IndexName: " + ix.Name + ", IndexKey: " + k.AttributeName)
		}
		if v.Kind() != attr.N {
			if i < nHash && len(v.Text()) > maxPartitionKeyBytes {
				return nil, false, ddberr.InvalidParam("Size of hashkey has exceeded the maximum size limit of2048 bytes")
			}
			if i >= nHash && len(v.Text()) > maxSortKeyBytes {
				return nil, false, ddberr.InvalidParam("Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
			}
		}
		vals = append(vals, v)
	}
	if !ok {
		return nil, false, nil
	}
	return vals, true, nil
}

// itemTableKey returns the table key of a stored (already validated)
// item.
func itemTableKey(t *catalog.Table, item attr.Item) tableKey {
	k := tableKey{hash: item[t.KeySchema[0].AttributeName]}
	if len(t.KeySchema) > 1 {
		k.rng, k.hasRange = item[t.KeySchema[1].AttributeName], true
	}
	return k
}

// indexEntryKey returns the storage key of item's entry in ix, given its
// index key values (indexKeyValues) and table key.
func indexEntryKey(t *catalog.Table, ix *catalog.Index, vals []attr.Value, tk tableKey) []byte {
	nHash := len(ix.HashKeys())
	k := keycodec.AppendPartitionValues(make([]byte, 0, 64), keycodec.Space{Table: t.Number, Index: ix.Number}, vals[:nHash]...)
	for _, v := range vals[nHash:] {
		k = keycodec.AppendValue(k, v)
	}
	if !ix.Local {
		k = keycodec.AppendValue(k, tk.hash)
	}
	if tk.hasRange {
		k = keycodec.AppendValue(k, tk.rng)
	}
	return k
}

// projectForIndex returns the attributes of item that ix holds: the table
// and index key attributes and, for INCLUDE, the NonKeyAttributes; for
// ALL, item itself.
func projectForIndex(t *catalog.Table, ix *catalog.Index, item attr.Item) attr.Item {
	if ix.Projection == catalog.ProjectAll {
		return item
	}
	out := make(attr.Item, len(t.KeySchema)+len(ix.KeySchema)+len(ix.NonKeyAttributes))
	for _, k := range t.KeySchema {
		out[k.AttributeName] = item[k.AttributeName]
	}
	for _, k := range ix.KeySchema {
		out[k.AttributeName] = item[k.AttributeName]
	}
	for _, n := range ix.NonKeyAttributes {
		if v, ok := item[n]; ok {
			out[n] = v
		}
	}
	return out
}

// projects reports whether ix holds attribute name.
func projects(t *catalog.Table, ix *catalog.Index, name string) bool {
	if ix.Projection == catalog.ProjectAll || t.IsKeyAttribute(name) || ix.IsKeyAttribute(name) {
		return true
	}
	for _, n := range ix.NonKeyAttributes {
		if n == name {
			return true
		}
	}
	return false
}

// indexEntry is one index's entry for one version of an item.
type indexEntry struct {
	key   []byte
	value []byte
	size  int // projected item size
}

// entryFor returns item's entry in ix (ok false when the item is not in
// the index). stored and size are the item's stored form and size.
func entryFor(t *catalog.Table, ix *catalog.Index, item attr.Item, stored []byte, size int) (indexEntry, bool, error) {
	vals, ok, err := indexKeyValues(t, ix, item, false)
	if err != nil || !ok {
		return indexEntry{}, false, err
	}
	e := indexEntry{key: indexEntryKey(t, ix, vals, itemTableKey(t, item))}
	if ix.Projection == catalog.ProjectAll {
		e.value, e.size = stored, size
	} else {
		p := projectForIndex(t, ix, item)
		e.size = p.Size()
		e.value = encodeItem(p, e.size)
	}
	return e, true, nil
}

// entryKeyOf returns the key of item's entry in ix, if it has one. An
// item whose index key attributes are invalid (stored before the index
// existed, and skipped by its backfill) has none.
func entryKeyOf(t *catalog.Table, ix *catalog.Index, item attr.Item) ([]byte, bool) {
	vals, ok, err := indexKeyValues(t, ix, item, false)
	if err != nil || !ok {
		return nil, false
	}
	return indexEntryKey(t, ix, vals, itemTableKey(t, item)), true
}

// projectedSize returns the size of item's entry in ix (size is the
// item's own).
func projectedSize(t *catalog.Table, ix *catalog.Index, item attr.Item, size int) int {
	if ix.Projection == catalog.ProjectAll {
		return size
	}
	return projectForIndex(t, ix, item).Size()
}

// sameEntry reports whether old's entry in ix equals newE (same key
// assumed): the projected attributes did not change.
func sameEntry(t *catalog.Table, ix *catalog.Index, old attr.Item, oldJSON []byte, newE indexEntry) bool {
	_, newJSON, err := splitItem(newE.value)
	if err != nil {
		return false
	}
	if ix.Projection == catalog.ProjectAll {
		return oldJSON != nil && bytes.Equal(oldJSON, newJSON)
	}
	return bytes.Equal(attr.AppendItem(nil, projectForIndex(t, ix, old)), newJSON)
}

// checkIndexKeys validates the index key attributes of an item about to
// be written, without writing anything. updating is set for an UpdateItem
// of an existing item.
func checkIndexKeys(t *catalog.Table, item attr.Item, updating bool) error {
	for _, ix := range t.Indexes() {
		if _, _, err := indexKeyValues(t, ix, item, updating); err != nil {
			return err
		}
	}
	return nil
}

// indexChange is what replacing one version of an item with another did
// to its item collection: the change in size (items plus LSI entries)
// for tables with LSIs.
type indexChange struct {
	collectionDelta int64
	// units are the index writes, per index touched (capacity).
	units []indexUnits
}

// indexUnits are the write units one item write cost one index, and
// the index partitions (by partition-key hash) they went to.
type indexUnits struct {
	name    string
	local   bool
	units   float64
	touched []indexTouch
}

// indexTouch is one entry put or deleted: its storage key and units.
type indexTouch struct {
	key   []byte
	units float64
}

// indexWrites is what one change does to its table's indexes: the
// entries to put or delete (an indexOp with a nil value deletes) now,
// those queued for a lagging GSI (Options.GSILag), and their cost.
type indexWrites struct {
	direct, queued []indexOp
	change         indexChange
}

// planIndexes computes the index writes of replacing c.old with c.new
// (either may be absent) on every index of c.t; lag queues the GSIs'
// writes instead. It reads and writes nothing. An old version whose index
// keys are invalid (written before the index existed) has no entry to
// remove; a new one's were checked when it was prepared.
//
// Costs follow DynamoDB's rules: putting an entry is one write of its
// size, deleting one is one write, a changed index key is both, a changed
// projection alone is one write, and an entry that does not change costs
// nothing (and is not rewritten).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes
func planIndexes(c *change, lag bool) (indexWrites, error) {
	t := c.t
	var w indexWrites
	if len(t.LSIs) > 0 {
		w.change.collectionDelta = int64(c.new.size - c.old.size)
	}
	for _, ix := range t.Indexes() {
		var oldKey []byte
		var newE indexEntry
		var hadOld, hasNew bool
		if c.old.exists {
			oldKey, hadOld = entryKeyOf(t, ix, c.old.item)
		}
		if c.new.exists {
			var err error
			if newE, hasNew, err = entryFor(t, ix, c.new.item, c.new.stored, c.new.size); err != nil {
				return w, err
			}
		}
		if ix.Local {
			if hadOld {
				w.change.collectionDelta -= int64(projectedSize(t, ix, c.old.item, c.old.size))
			}
			if hasNew {
				w.change.collectionDelta += int64(newE.size)
			}
		}
		var touched []indexTouch
		touch := func(key []byte, units float64) {
			touched = append(touched, indexTouch{key, units})
		}
		sameKey := hadOld && hasNew && bytes.Equal(oldKey, newE.key)
		switch {
		case sameKey:
			if sameEntry(t, ix, c.old.item, c.old.json, newE) {
				continue
			}
			touch(newE.key, writeUnits(newE.size))
		case hadOld && hasNew:
			touch(oldKey, writeUnits(projectedSize(t, ix, c.old.item, c.old.size)))
			touch(newE.key, writeUnits(newE.size))
		case hadOld:
			touch(oldKey, writeUnits(projectedSize(t, ix, c.old.item, c.old.size)))
		case hasNew:
			touch(newE.key, writeUnits(newE.size))
		default:
			continue
		}
		units := 0.0
		for _, tw := range touched {
			units += tw.units
		}
		w.change.units = append(w.change.units, indexUnits{ix.Name, ix.Local, units, touched})
		ops := &w.direct
		if lag && !ix.Local {
			ops = &w.queued
		}
		if hadOld && !sameKey {
			*ops = append(*ops, indexOp{index: ix.Number, key: oldKey})
		}
		if hasNew {
			*ops = append(*ops, indexOp{index: ix.Number, key: newE.key, value: newE.value})
		}
	}
	return w, nil
}

// writeIndexes writes the index entries of change c in tx (planIndexes),
// queueing those of lagging GSIs, and returns what they cost.
func (e *Engine) writeIndexes(tx storage.Txn, c *change) (indexChange, error) {
	w, err := planIndexes(c, e.opts.GSILag > 0)
	if err != nil {
		return w.change, err
	}
	for _, op := range w.direct {
		if op.value == nil {
			err = tx.Delete(op.key)
		} else {
			err = tx.Set(op.key, op.value)
		}
		if err != nil {
			return w.change, fmt.Errorf("write index entry of item %s of %s: %w", c.tk, c.t.Name, err)
		}
	}
	if len(w.queued) > 0 {
		return w.change, e.queueIndexOps(tx, c.t.Number, w.queued)
	}
	return w.change, nil
}

// Item collections (tables with local secondary indexes).
//
// DynamoDB limits the items of one partition key value, together with
// their LSI entries, to 10 GB on tables with LSIs. dynago keeps each
// collection's size in the table's reserved key space
// keycodec.Space{Index: 0xFFFF}, updated in the write's transaction.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.ItemCollections.SizeLimit

// DefaultItemCollectionSizeLimit is DynamoDB's 10 GB.
const DefaultItemCollectionSizeLimit = 10 << 30

// collectionSpace is the reserved key space of item-collection sizes.
func collectionSpace(t *catalog.Table) keycodec.Space {
	return keycodec.Space{Table: t.Number, Index: catalog.MaxIndexNumber + 3}
}

// updateCollection applies a size change to the item collection of
// partition key pk and returns its new size. Growing past the limit is
// ItemCollectionSizeLimitExceededException.
func (e *Engine) updateCollection(tx storage.Txn, t *catalog.Table, pk attr.Value, delta int64) (int64, error) {
	key := keycodec.AppendPartition(nil, collectionSpace(t), pk)
	var size int64
	raw, err := tx.Get(key)
	switch {
	case errors.Is(err, storage.ErrNotFound):
	case err != nil:
		return 0, fmt.Errorf("read item collection size of %s: %w", t.Name, err)
	default:
		n, w := binary.Varint(raw)
		if w <= 0 {
			return 0, fmt.Errorf("item collection size of %s: %w", t.Name, errCorruptItem)
		}
		size = n
	}
	if delta == 0 {
		return size, nil
	}
	size += delta
	if delta > 0 && size > e.opts.ItemCollectionSizeLimit {
		return 0, ddberr.New(ddberr.ItemCollectionSizeLimitExceededException, "Collection size exceeded.")
	}
	if size <= 0 {
		return 0, tx.Delete(key)
	}
	return size, tx.Set(key, binary.AppendVarint(nil, size))
}

// itemCollectionMetrics encodes ReturnItemCollectionMetrics=SIZE's
// ItemCollectionMetrics for the collection of pk with the given size:
// the partition key and a one-gigabyte range around the size.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ItemCollectionMetrics.html
func itemCollectionMetrics(t *catalog.Table, pk attr.Value, size int64) []byte {
	gb := math.Floor(float64(size) / (1 << 30))
	key := attr.Item{t.KeySchema[0].AttributeName: pk}
	dst := append([]byte(`{"ItemCollectionKey":`), attr.AppendItem(nil, key)...)
	dst = append(dst, `,"SizeEstimateRangeGB":[`...)
	dst = appendGB(dst, gb)
	dst = append(dst, ',')
	dst = appendGB(dst, gb+1)
	return append(dst, "]}"...)
}

// appendGB appends a whole number of gigabytes as DynamoDB writes it
// (1.0).
func appendGB(dst []byte, gb float64) []byte {
	return append(strconv.AppendInt(dst, int64(gb), 10), ".0"...)
}
