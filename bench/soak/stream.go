package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// streamReader follows every shard of the table's stream and replays its
// records into a map, key by key, as it reads them. It reads a child
// shard only once its parent is read to its end, so the records of one
// key (which stay in one shard at a time, in order) are applied in
// order. Each record is checked against the replay so far: an INSERT
// must find no item, a MODIFY or REMOVE must carry the replay's item as
// its OldImage. A REMOVE with a userIdentity must be the TTL sweep's
// (Service, dynamodb.amazonaws.com) and delete an expired item.
type streamReader struct {
	sc   *dynamodbstreams.Client
	arn  string
	srv  *server
	viol *violations

	mu         sync.Mutex
	replay     map[string]string // key -> canonical item
	shards     map[string]*shard
	records    int64
	events     counts
	errs       counts
	lastRecord time.Time
	idle       bool         // the last pass over every open shard read nothing
	verified   int          // restarts across which the last record read was checked
	skip       atomic.Int64 // -sabotage: records to read without applying them
}

type shard struct {
	id, parent string
	iter       *string
	lastSeq    string
	lastRec    string // the last record read, canonical
	lastGen    int    // the server generation that served it
	readGen    int    // the server generation of the last GetRecords answered
	verify     bool   // a new iterator is due: check lastSeq is still lastRec
	done       bool
}

// recordText is a record's canonical form, for comparing two reads of it.
func recordText(rec *stypes.Record) string {
	d := rec.Dynamodb
	if d == nil {
		return string(rec.EventName)
	}
	return fmt.Sprintf("%s %s new{%s} old{%s}", rec.EventName, showKey(streamKey(d.Keys)), canonStreamItem(d.NewImage), canonStreamItem(d.OldImage))
}

func newStreamReader(sc *dynamodbstreams.Client, arn string, srv *server, viol *violations) *streamReader {
	return &streamReader{sc: sc, arn: arn, srv: srv, viol: viol,
		replay: map[string]string{}, shards: map[string]*shard{}, events: counts{}, errs: counts{}}
}

func (r *streamReader) fail(op string, err error) {
	_, kind := classify(err)
	r.mu.Lock()
	r.errs[op+": "+kind]++
	r.mu.Unlock()
}

// describe lists every shard of the stream and adds the new ones.
func (r *streamReader) describe(ctx context.Context) error {
	var start *string
	for {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		out, err := r.sc.DescribeStream(c, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(r.arn), ExclusiveStartShardId: start})
		cancel()
		if err != nil {
			r.fail("DescribeStream", err)
			return err
		}
		r.mu.Lock()
		for _, s := range out.StreamDescription.Shards {
			id := aws.ToString(s.ShardId)
			if r.shards[id] == nil {
				r.shards[id] = &shard{id: id, parent: aws.ToString(s.ParentShardId)}
			}
		}
		r.mu.Unlock()
		start = out.StreamDescription.LastEvaluatedShardId
		if start == nil {
			return nil
		}
	}
}

// ready returns the shards to read now: not done, and parent done (or
// unknown: trimmed), in id order.
func (r *streamReader) ready() []*shard {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*shard
	for _, s := range r.shards {
		if s.done {
			continue
		}
		if p := r.shards[s.parent]; s.parent != "" && p != nil && !p.done {
			continue
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// run reads until ctx ends.
func (r *streamReader) run(ctx context.Context) {
	var described time.Time
	for ctx.Err() == nil {
		if time.Since(described) > time.Second {
			if r.describe(ctx) == nil {
				described = time.Now()
			} else {
				r.pause(ctx)
				continue
			}
		}
		read := false
		for _, s := range r.ready() {
			n, err := r.readShard(ctx, s)
			if err != nil {
				break
			}
			if n > 0 || s.done {
				read = true
			}
		}
		r.mu.Lock()
		r.idle = !read
		r.mu.Unlock()
		if !read {
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

func (r *streamReader) pause(ctx context.Context) {
	_ = r.srv.waitUp(ctx)
	select {
	case <-ctx.Done():
	case <-time.After(50 * time.Millisecond):
	}
}

// readShard reads one batch of records from s. After an error (the
// server restarted: iterators may be gone) it takes a new iterator after
// the last sequence number it read.
func (r *streamReader) readShard(ctx context.Context, s *shard) (int, error) {
	gen := r.srv.generation()
	if s.readGen != 0 && s.readGen != gen && s.lastSeq != "" {
		// A new server: check the last record again, and take a new
		// iterator rather than trust one the old server handed out.
		s.iter, s.verify = nil, true
	}
	if s.iter == nil && s.verify {
		if err := r.verifyLast(ctx, s); err != nil {
			return 0, err
		}
	}
	if s.iter == nil {
		in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(r.arn), ShardId: aws.String(s.id),
			ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon}
		if s.lastSeq != "" {
			in.ShardIteratorType = stypes.ShardIteratorTypeAfterSequenceNumber
			in.SequenceNumber = aws.String(s.lastSeq)
		}
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		out, err := r.sc.GetShardIterator(c, in)
		cancel()
		if err != nil {
			r.fail("GetShardIterator", err)
			r.pause(ctx)
			return 0, err
		}
		s.iter = out.ShardIterator
	}
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	out, err := r.sc.GetRecords(c, &dynamodbstreams.GetRecordsInput{ShardIterator: s.iter, Limit: aws.Int32(1000)})
	cancel()
	if err != nil {
		r.fail("GetRecords", err)
		s.iter = nil
		s.verify = s.lastSeq != ""
		r.pause(ctx)
		return 0, err
	}
	s.readGen = gen
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range out.Records {
		r.apply(s, &out.Records[i])
		s.lastRec, s.lastGen = recordText(&out.Records[i]), gen
	}
	s.iter = out.NextShardIterator
	if s.iter == nil {
		s.done = true
	}
	return len(out.Records), nil
}

// verifyLast checks, after the server restarted under the reader, that
// the last record it read is still there: a record that a reader was
// served must be durable, and its sequence number must not be given to
// another record (a consumer resuming after it would skip that one).
func (r *streamReader) verifyLast(ctx context.Context, s *shard) error {
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	it, err := r.sc.GetShardIterator(c, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(r.arn), ShardId: aws.String(s.id),
		ShardIteratorType: stypes.ShardIteratorTypeAtSequenceNumber, SequenceNumber: aws.String(s.lastSeq)})
	if err != nil {
		r.fail("GetShardIterator", err)
		r.pause(ctx)
		return err
	}
	out, err := r.sc.GetRecords(c, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator, Limit: aws.Int32(1)})
	if err != nil {
		r.fail("GetRecords", err)
		r.pause(ctx)
		return err
	}
	s.verify = false
	r.mu.Lock()
	r.verified++
	r.mu.Unlock()
	now := "no record at or after it: the record is gone"
	if len(out.Records) > 0 {
		rec := &out.Records[0]
		seq := aws.ToString(rec.Dynamodb.SequenceNumber)
		switch text := recordText(rec); {
		case seq == s.lastSeq && text == s.lastRec:
			return nil
		case seq == s.lastSeq:
			now = fmt.Sprintf("another record at that sequence number, %s: the number was given again", text)
		default:
			now = fmt.Sprintf("no record at that sequence number; the next one is %s at %s", text, seq)
		}
	}
	r.viol.add(3, "shard %s: record %s (%s) was served by server %d, before its SIGKILL; server %d has %s. A reader was served a change that was not durable",
		s.id, s.lastSeq, s.lastRec, s.lastGen, r.srv.generation(), now)
	return nil
}

// seqLess compares decimal sequence numbers.
func seqLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// apply replays one record; called with mu held.
func (r *streamReader) apply(s *shard, rec *stypes.Record) {
	r.records++
	r.lastRecord = time.Now()

	d := rec.Dynamodb
	if d == nil {
		r.viol.add(3, "shard %s: a record without its dynamodb member", s.id)
		return
	}
	seq := aws.ToString(d.SequenceNumber)
	if s.lastSeq != "" && !seqLess(s.lastSeq, seq) {
		r.viol.add(3, "shard %s: sequence number %s after %s", s.id, seq, s.lastSeq)
	}
	s.lastSeq = seq
	if r.skip.Load() > 0 {
		r.skip.Add(-1)
		return
	}
	key := streamKey(d.Keys)
	cur, had := r.replay[key]
	event := string(rec.EventName)
	switch rec.EventName {
	case stypes.OperationTypeInsert:
		if had {
			r.viol.add(3, "shard %s seq %s: INSERT of %s, which the stream so far holds as {%s}", s.id, seq, showKey(key), cur)
		}
		r.replay[key] = canonStreamItem(d.NewImage)
	case stypes.OperationTypeModify:
		if old := canonStreamItem(d.OldImage); !had || old != cur {
			r.viol.add(3, "shard %s seq %s: MODIFY of %s with OldImage {%s}, the stream so far holds {%s} (had=%v)", s.id, seq, showKey(key), old, cur, had)
		}
		r.replay[key] = canonStreamItem(d.NewImage)
	case stypes.OperationTypeRemove:
		if old := canonStreamItem(d.OldImage); !had || old != cur {
			r.viol.add(3, "shard %s seq %s: REMOVE of %s with OldImage {%s}, the stream so far holds {%s} (had=%v)", s.id, seq, showKey(key), old, cur, had)
		}
		delete(r.replay, key)
		if u := rec.UserIdentity; u != nil {
			event = "REMOVE by TTL"
			if aws.ToString(u.Type) != "Service" || aws.ToString(u.PrincipalId) != "dynamodb.amazonaws.com" {
				r.viol.add(3, "shard %s seq %s: REMOVE of %s with userIdentity %s/%s", s.id, seq, showKey(key), aws.ToString(u.Type), aws.ToString(u.PrincipalId))
			}
			var at int64
			if d.ApproximateCreationDateTime != nil {
				at = d.ApproximateCreationDateTime.Unix()
			}
			exp, ok := int64(0), false
			if n, isN := d.OldImage[ttlAttr].(*stypes.AttributeValueMemberN); isN {
				v, err := strconv.ParseInt(n.Value, 10, 64)
				exp, ok = v, err == nil
			}
			if !ok || (at != 0 && exp > at) {
				r.viol.add(3, "shard %s seq %s: TTL REMOVE of %s, whose item had not expired (exp %d, record time %d)", s.id, seq, showKey(key), exp, at)
			}
		}
	default:
		r.viol.add(3, "shard %s seq %s: event %q", s.id, seq, rec.EventName)
	}
	if rec.UserIdentity != nil && rec.EventName != stypes.OperationTypeRemove {
		r.viol.add(3, "shard %s seq %s: %s of %s with a userIdentity", s.id, seq, rec.EventName, showKey(key))
	}
	r.events[event]++
}

// snapshot returns a copy of the replay, the number of records and
// shards read, and whether the reader is idle (caught up).
func (r *streamReader) snapshot() (map[string]string, int64, int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := make(map[string]string, len(r.replay))
	for k, v := range r.replay {
		m[k] = v
	}
	return m, r.records, len(r.shards), r.idle
}

func (r *streamReader) figures() (records int64, shards, done int, events, errs counts) {
	r.mu.Lock()
	defer r.mu.Unlock()
	events, errs = counts{}, counts{}
	events.add(r.events)
	errs.add(r.errs)
	for _, s := range r.shards {
		if s.done {
			done++
		}
	}
	return r.records, len(r.shards), done, events, errs
}

// verifiedCount returns how many times the last record read from a shard
// was read again from a new server.
func (r *streamReader) verifiedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.verified
}

// showDiff lists up to n differences between a replay and a table.
func showDiff(replay, table map[string]string, n int) (int, []string) {
	var diffs []string
	count := 0
	keys := map[string]bool{}
	for k := range replay {
		keys[k] = true
	}
	for k := range table {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		a, inA := replay[k]
		b, inB := table[k]
		if inA == inB && a == b {
			continue
		}
		count++
		if len(diffs) < n {
			show := func(v string, in bool) string {
				if !in {
					return "(no item)"
				}
				return "{" + v + "}"
			}
			diffs = append(diffs, fmt.Sprintf("%s: stream %s, table %s", showKey(k), show(a, inA), show(b, inB)))
		}
	}
	return count, diffs
}
