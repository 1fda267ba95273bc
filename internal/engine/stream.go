package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
)

// DynamoDB Streams: the write side.
//
// A table with an enabled stream gets one stream record per item change,
// written in the transaction of the change itself (maintain calls
// recordChange), so a change and its record commit or vanish together,
// across crashes too. A write that leaves the item as it was writes no
// record, as in DynamoDB.
//
// Records live under
//
//	's' | stream number (8 bytes) | shard number (4 bytes) | stamp (10 bytes)
//
// where the stamp is the storage layer's commit stamp (Txn.SetStamped):
// it increases in commit order, so a shard's records are in the order
// their changes committed, and a reader walking a shard never finds a
// record appear behind it. The rejected alternative, a sequence counter
// per shard read and written by every change, would make all concurrent
// writes of a shard conflict with each other.
//
// Each shard covers a range of partition-key hashes; a stream starts with
// Options.StreamShards shards (DynamoDB has about one per partition; new
// on-demand tables often show four). Every Options.StreamRollover (four
// hours, as DynamoDB's shards roll over) each open shard is closed and a
// child shard continues its range, so all records of one item are in one
// shard at a time, and a consumer that reads parents before children
// reads each item's records in order. Opening and closing a shard write
// stamped markers into it: their sequence numbers are the shard's
// StartingSequenceNumber and EndingSequenceNumber. Records older than the
// 24-hour retention are trimmed in the background (stream_upkeep.go).
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_StreamRecord.html;
// behaviour and messages in docs/research-streams.md.

// Stream defaults.
const (
	DefaultStreamShards   = 4
	DefaultStreamRollover = 4 * time.Hour
	// StreamRetention is how long DynamoDB keeps stream records.
	StreamRetention = 24 * time.Hour
	// iteratorLifetime is how long a shard iterator may be used.
	iteratorLifetime = 15 * time.Minute
)

// streamKeyPrefix starts every stream record key.
const streamKeyPrefix = 's'

// Value kinds of keys in a shard.
const (
	markOpen   = 'o' // the shard was opened
	markClose  = 'c' // the shard was closed
	markRecord = 'r' // a stream record
	markTrim   = 't' // the trim horizon (unstamped, sorts first)
)

// Record event names as stored.
const (
	eventInsert = 'I'
	eventModify = 'M'
	eventRemove = 'R'
)

// recordByService flags a record of a deletion by TTL.
const recordByService = 1

// shardPrefix returns the key prefix of a shard's records.
func shardPrefix(stream uint64, shard uint32) []byte {
	k := make([]byte, 0, 1+8+4+storage.StampLen)
	k = append(k, streamKeyPrefix)
	k = binary.BigEndian.AppendUint64(k, stream)
	return binary.BigEndian.AppendUint32(k, shard)
}

// streamBounds returns [lower, upper) covering every record of a stream.
func streamBounds(stream uint64) (lower, upper []byte) {
	lower = binary.BigEndian.AppendUint64([]byte{streamKeyPrefix}, stream)
	upper = binary.BigEndian.AppendUint64([]byte{streamKeyPrefix}, stream+1)
	return lower, upper
}

// trimKey is the shard's unstamped trim-horizon key: its value is
// markTrim and the stamp of the last record trimmed (the key's own stamp
// of all zeros sorts below every real one).
func trimKey(stream uint64, shard uint32) []byte {
	return append(shardPrefix(stream, shard), make([]byte, storage.StampLen)...)
}

// streamLabel formats a stream label: the enabling time, UTC, to the
// millisecond, with no zone (2026-11-30T09:03:25.123).
func streamLabel(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000") }

// streamArn returns a stream's ARN in the request's region.
func (e *Engine) streamArn(region, table, label string) string {
	return "arn:aws:dynamodb:" + region + ":" + e.opts.AccountID + ":table/" + table + "/stream/" + label
}

// shardID names a shard as DynamoDB does: "shardId-", the creation time
// in epoch milliseconds padded to 20 digits, "-" and 8 hex digits (here
// the stream and shard numbers, so that ids sort in creation order).
func shardID(created time.Time, stream uint64, shard uint32) string {
	return fmt.Sprintf("shardId-%020d-%08x", created.UnixMilli(), uint32(stream)<<20|shard&0xFFFFF)
}

// enableStream creates a new stream for t (whose descriptor the caller
// writes) with its first shards, in tx.
func (e *Engine) enableStream(tx storage.Txn, t *catalog.Table, viewType string, now time.Time) error {
	label := streamLabel(now)
	for {
		_, _, err := catalog.GetStream(tx, t.Name, label)
		if errors.Is(err, catalog.ErrStreamNotFound) {
			break
		}
		if err != nil {
			return err
		}
		now = now.Add(time.Millisecond) // labels are unique per table
		label = streamLabel(now)
	}
	n, err := catalog.NextNumber(tx)
	if err != nil {
		return err
	}
	st := &catalog.Stream{
		Table: t.Name, TableNumber: t.Number, Number: n, Label: label, ViewType: viewType,
		KeySchema: t.KeySchema, Created: now.UnixNano(), Settled: now.Add(e.opts.CreateDelay).UnixNano(),
	}
	shards := e.opts.StreamShards
	step := ^uint64(0) / uint64(shards)
	for i := 0; i < shards; i++ {
		lo, hi := uint64(i)*step, uint64(i+1)*step-1
		if i == shards-1 {
			hi = ^uint64(0)
		}
		sh, err := newShard(tx, st, "", lo, hi, now)
		if err != nil {
			return err
		}
		st.Shards = append(st.Shards, sh)
	}
	t.Stream = &catalog.TableStream{Enabled: true, ViewType: viewType, Label: label}
	return catalog.PutStream(tx, st)
}

// newShard allocates a shard of st covering [lo, hi] and writes its
// open marker; the caller adds it to st.Shards.
func newShard(tx storage.Txn, st *catalog.Stream, parent string, lo, hi uint64, now time.Time) (catalog.Shard, error) {
	st.LastShard++
	sh := catalog.Shard{
		Number: st.LastShard, ID: shardID(now, st.Number, st.LastShard), Parent: parent,
		HashLo: lo, HashHi: hi, Created: now.UnixNano(),
	}
	return sh, tx.SetStamped(shardPrefix(st.Number, sh.Number), nil, []byte{markOpen})
}

// closeShard closes sh and writes its close marker.
func closeShard(tx storage.Txn, st *catalog.Stream, sh *catalog.Shard, now time.Time) error {
	sh.Closed = now.UnixNano()
	return tx.SetStamped(shardPrefix(st.Number, sh.Number), nil, []byte{markClose})
}

// disableStream disables the stream (table, label), closing its open
// shards; it stays readable for the retention period. The caller updates
// the table's descriptor.
func (e *Engine) disableStream(tx storage.Txn, table, label string, now time.Time) error {
	st, _, err := catalog.GetStream(tx, table, label)
	if err != nil {
		return err
	}
	st.Disabled = now.UnixNano()
	st.Settled = now.Add(e.opts.CreateDelay).UnixNano()
	for i := range st.Shards {
		if st.Shards[i].Closed == 0 {
			if err := closeShard(tx, st, &st.Shards[i], now); err != nil {
				return err
			}
		}
	}
	return catalog.PutStream(tx, st)
}

// stream returns the stream (table, label) as seen by tx, decoding it only
// when its stored bytes changed. The read joins tx's read set, so a write
// that records a change conflicts with a rollover that closes its shard.
func (e *Engine) stream(tx storage.Txn, table, label string) (*catalog.Stream, error) {
	key := catalog.StreamKey(table, label)
	raw, err := tx.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, catalog.ErrStreamNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read stream %s/%s: %w", table, label, err)
	}
	return e.streams.get(string(key), raw, catalog.DecodeStream)
}

// recordChange writes the stream record of change c, if c's table has
// its stream enabled and the item changed (a write of an identical item
// records nothing). A deletion by the TTL service is marked as such.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html
func (e *Engine) recordChange(tx storage.Txn, c *change) error {
	t := c.t
	if !streamed(t) || (!c.old.exists && !c.new.exists) {
		return nil
	}
	event := byte(eventModify)
	switch {
	case !c.old.exists:
		event = eventInsert
	case !c.new.exists:
		event = eventRemove
	default:
		same, err := unchanged(c.old, c.new)
		if same || err != nil {
			return err
		}
	}
	st, err := e.stream(tx, t.Name, t.Stream.Label)
	if err != nil {
		return fmt.Errorf("stream of %s: %w", t.Name, err)
	}
	sh := st.OpenShard(keycodec.Hash(keycodec.AppendValue(nil, c.tk.hash)))
	if sh == nil {
		return fmt.Errorf("stream %s/%s has no open shard", t.Name, st.Label)
	}
	keys := attr.Item{t.KeySchema[0].AttributeName: c.tk.hash}
	if c.tk.hasRange {
		keys[t.KeySchema[1].AttributeName] = c.tk.rng
	}
	keysJSON := attr.AppendItem(nil, keys)
	sizeBytes := keys.Size()
	var newImage, oldImage []byte
	if c.new.exists && (st.ViewType == catalog.ViewNewImage || st.ViewType == catalog.ViewNewAndOldImage) {
		newImage, sizeBytes = c.new.json, sizeBytes+c.new.size
	}
	if c.old.exists && (st.ViewType == catalog.ViewOldImage || st.ViewType == catalog.ViewNewAndOldImage) {
		oldImage, sizeBytes = c.old.json, sizeBytes+c.old.size
	}
	v := make([]byte, 0, 16+len(keysJSON)+len(newImage)+len(oldImage)+3*binary.MaxVarintLen32)
	flags := byte(0)
	if c.by == byTTL {
		flags |= recordByService
	}
	v = append(v, markRecord, event, flags)
	v = binary.BigEndian.AppendUint64(v, uint64(e.opts.Now().Unix()))
	v = binary.AppendUvarint(v, uint64(sizeBytes))
	for _, part := range [][]byte{keysJSON, newImage, oldImage} {
		v = binary.AppendUvarint(v, uint64(len(part)))
		v = append(v, part...)
	}
	return tx.SetStamped(shardPrefix(st.Number, sh.Number), nil, v)
}

// unchanged reports whether the new version of an item is the same
// DynamoDB item as the old: byte-equal stored forms are (names are
// sorted, numbers canonical); otherwise only items of equal size can be,
// with sets compared as sets.
func unchanged(old, new version) (bool, error) {
	if bytes.Equal(old.json, new.json) {
		return true, nil
	}
	if old.size != new.size {
		return false, nil
	}
	o := old.item
	if o == nil {
		var err error
		if o, err = attr.DecodeItem(old.json); err != nil {
			return false, err
		}
	}
	if len(o) != len(new.item) {
		return false, nil
	}
	for name, v := range new.item {
		if ov, ok := o[name]; !ok || !attr.Equal(ov, v) {
			return false, nil
		}
	}
	return true, nil
}

// streamRecord is a decoded stored record.
type streamRecord struct {
	event     byte
	byService bool
	created   int64 // epoch seconds
	sizeBytes int64
	keys      []byte
	newImage  []byte // nil: absent
	oldImage  []byte
}

// errCorruptRecord reports a stored record that does not decode.
var errCorruptRecord = errors.New("engine: corrupt stream record")

// decodeRecord decodes a stored record value (kind markRecord).
func decodeRecord(v []byte) (streamRecord, error) {
	var r streamRecord
	if len(v) < 11 || v[0] != markRecord {
		return r, errCorruptRecord
	}
	r.event, r.byService = v[1], v[2]&recordByService != 0
	r.created = int64(binary.BigEndian.Uint64(v[3:11]))
	v = v[11:]
	n, w := binary.Uvarint(v)
	if w <= 0 {
		return r, errCorruptRecord
	}
	r.sizeBytes, v = int64(n), v[w:]
	for _, dst := range []*[]byte{&r.keys, &r.newImage, &r.oldImage} {
		n, w := binary.Uvarint(v)
		if w <= 0 || uint64(len(v)-w) < n {
			return r, errCorruptRecord
		}
		if n > 0 {
			*dst = v[w : w+int(n)]
		}
		v = v[w+int(n):]
	}
	return r, nil
}

// sequenceNumber formats a 10-byte stamp as a DynamoDB sequence number:
// "1", the commit stamp and the position in 5 digits, so that numeric
// order agrees with stamp order. A stamp below 10^15 (Pebble's commit
// counter) takes 15 digits, 21 in all; a larger one (TiKV's timestamps,
// about 4.7 * 10^17) takes 20, 26 in all. DynamoDB's are 21 to 40 digits.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_StreamRecord.html
func sequenceNumber(stamp []byte) string {
	commit, pos := binary.BigEndian.Uint64(stamp[:8]), binary.BigEndian.Uint16(stamp[8:10])
	if commit < shortStampLimit {
		return fmt.Sprintf("1%015d%05d", commit, pos)
	}
	return fmt.Sprintf("1%020d%05d", commit, pos)
}

// shortStampLimit is the first stamp sequenceNumber writes in 20 digits.
const shortStampLimit = 1_000_000_000_000_000

// parseSequenceNumber returns the stamp a sequence number names, or false
// when it is not one dynago issues.
func parseSequenceNumber(s string) ([]byte, bool) {
	digits := 15
	switch {
	case len(s) == 26:
		digits = 20
	case len(s) != 21:
		return nil, false
	}
	if s[0] != '1' {
		return nil, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return nil, false
		}
	}
	commit, err := strconv.ParseUint(s[1:1+digits], 10, 64)
	if err != nil || (digits == 20) != (commit >= shortStampLimit) {
		return nil, false // past 2^64, or not the form sequenceNumber writes
	}
	pos, _ := strconv.ParseUint(s[1+digits:], 10, 32)
	if pos > 0xFFFF {
		return nil, false
	}
	st := binary.BigEndian.AppendUint64(make([]byte, 0, storage.StampLen), commit)
	return binary.BigEndian.AppendUint16(st, uint16(pos)), true
}

// streamNotFound is DynamoDB Streams' ResourceNotFoundException for a
// stream.
func streamNotFound(arn string) error {
	return ddberr.New(ddberr.ResourceNotFoundException, "Requested resource not found: Stream: "+arn+" not found")
}
