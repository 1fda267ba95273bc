// Package throttle owns dynago's model of DynamoDB's throughput limits,
// so that a hot key throttles on a laptop the way it throttles in
// production:
//
//   - every table and every global secondary index is divided into
//     partitions, each a range of the key space ordered as the storage
//     keys are (partition-key hash, then partition key, then sort key); it
//     starts with as many equal hash ranges as DynamoDB's published rules
//     give for its settings (Partitions);
//   - each partition serves at most 3,000 read units and 1,000 write
//     units a second (KeyRange limits), however much the table has;
//   - a provisioned table or GSI serves its provisioned units a second,
//     plus up to 300 seconds of unused capacity saved as burst capacity;
//   - an on-demand table or GSI starts with the partitions its warm
//     throughput needs (12,000 read and 4,000 write units a second: four),
//     grows its partitions so that it can serve double its previous peak,
//     and never serves more than its OnDemandThroughput maximum;
//   - a partition splits in two when it runs hot (Options.HeatSplitAfter)
//     and its traffic spans more than one key in a way a split divides
//     (not a single hot item, not a sort key that only grows); a key
//     space also splits as its data grows past 10 GB a partition.
//     Partitions never merge.
//
// Every throughput limit is divided by Options.Scale, so that a
// production hot spot of 5,000 writes a second reproduces at 50 with a
// scale of 100.
//
// The package knows nothing of items or storage: the engine describes
// what a request touches (Demand), asks Admit before doing the work and
// Charge after it, with the clock passed in (tests inject it). Admission
// lets a request through while its buckets hold any capacity and charges
// the request's actual units afterwards, so a bucket may go into debt by
// one request, as DynamoDB's own accounting does; sustained traffic is
// held to the limit. Load reports what each partition served.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html,
// https://aws.amazon.com/blogs/database/part-3-scaling-dynamodb-how-partitions-hot-keys-and-split-for-heat-impact-performance/;
// behaviour and messages in docs/research-throttling.md.
package throttle

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"sort"
	"sync"
	"time"
)

// DynamoDB's per-partition limits, in units a second.
const (
	PartitionReadUnits  = 3000
	PartitionWriteUnits = 1000
)

// PartitionBytes is the data one partition holds before it splits: 10 GB.
const PartitionBytes = 10 << 30

// On-demand warm throughput of a new table or index, in units a second.
const (
	OnDemandWarmReadUnits  = 12000
	OnDemandWarmWriteUnits = 4000
)

// BurstSeconds is how much unused provisioned capacity a table saves.
const BurstSeconds = 300

// Settings are one key space's (a table's or a GSI's) throughput
// settings, unscaled.
type Settings struct {
	OnDemand bool
	// ReadUnits and WriteUnits are the provisioned throughput.
	ReadUnits, WriteUnits int64
	// MaxReadUnits and MaxWriteUnits are OnDemandThroughput's caps; 0
	// means none.
	MaxReadUnits, MaxWriteUnits int64
}

// Partitions returns how many partitions a key space with settings s
// starts with: for provisioned throughput, one per 3,000 read units plus
// one per 1,000 write units (rounded up, at least one, at most
// MaxPartitions); for on-demand, what its warm throughput needs (four).
func Partitions(s Settings) int {
	if s.OnDemand {
		return max(OnDemandWarmReadUnits/PartitionReadUnits, OnDemandWarmWriteUnits/PartitionWriteUnits)
	}
	n := math.Ceil(float64(s.ReadUnits)/PartitionReadUnits + float64(s.WriteUnits)/PartitionWriteUnits)
	return max(1, int(min(n, MaxPartitions)))
}

// MaxPartitions bounds the partitions of one key space: DynamoDB's
// default per-table quota (40,000 read and 40,000 write units) needs 54;
// a table provisioned far beyond any quota must not allocate billions.
const MaxPartitions = 10_000

// Space names a key space: a table (Index 0) or one of its GSIs.
type Space struct {
	Table uint64
	Index uint16
}

// Demand is one partition a request reads or writes.
type Demand struct {
	Space    Space
	Settings Settings
	// TableName and IndexName ("" for the table) name the key space for
	// reports; the limiter does not use them.
	TableName, IndexName string
	// Hash is the partition-key hash of the item or key.
	Hash uint64
	// Key, when set, is the item's (or index entry's) position in its
	// key space: its storage key without the space prefix, which starts
	// with the 8-byte big-endian Hash. It places the demand in a
	// partition split between the sort keys of one partition key; without
	// it the demand goes where its Hash starts.
	Key []byte
	// PartitionKeyLen is how many bytes of Key are the hash and the
	// partition key (the rest is the sort key); 0 when Key holds only
	// those. Contributor Insights groups by it; the limiter does not use
	// it.
	PartitionKeyLen int
	// ItemKeyLen is how many bytes of Key are the key space's own key
	// (an index entry's key ends with its item's table key, which
	// Contributor Insights leaves out); 0 means all of Key. The limiter
	// does not use it.
	ItemKeyLen int
	// Insights is the key space's Contributor Insights mode
	// (InsightsOff, InsightsThrottled or InsightsAll), for the engine;
	// the limiter does not use it.
	Insights uint8
	Write    bool
	// Units is what the request consumed there (for Charge; Admit only
	// needs the partition).
	Units float64
}

// Contributor Insights modes a Demand carries.
const (
	InsightsOff       = 0
	InsightsThrottled = 1 // THROTTLED_KEYS
	InsightsAll       = 2 // ACCESSED_AND_THROTTLED_KEYS
)

// position returns where d falls in its key space.
func (d *Demand) position(buf *[8]byte) []byte {
	if len(d.Key) >= 8 {
		return d.Key
	}
	binary.BigEndian.PutUint64(buf[:], d.Hash)
	return buf[:]
}

// Limit says which limit throttled a request.
type Limit uint8

// Limits.
const (
	// KeyRange: the partition's 3,000 read or 1,000 write units.
	KeyRange Limit = iota + 1
	// Provisioned: the table's or GSI's provisioned throughput.
	Provisioned
	// MaxOnDemand: OnDemandThroughput's maximum.
	MaxOnDemand
)

// Verdict describes a throttled demand.
type Verdict struct {
	// Demand is the throttled demand's index in Admit's list.
	Demand int
	Space  Space
	Write  bool
	Limit  Limit
}

// Options configure a Limiter.
type Options struct {
	// Scale divides every throughput limit; values below 1 mean 1.
	Scale float64
	// HeatSplitAfter is how long a partition must run hot (at least
	// HeatFraction of its limit, or throttling, every second) before it
	// splits for heat. DynamoDB does not publish it ("minutes", AWS blog);
	// 0 means DefaultHeatSplitAfter.
	HeatSplitAfter time.Duration
}

// DefaultHeatSplitAfter is Options.HeatSplitAfter's default.
const DefaultHeatSplitAfter = 60 * time.Second

// HeatFraction is the share of a partition's limit that counts as hot.
const HeatFraction = 0.8

// Limiter tracks consumption against the limits. It is safe for
// concurrent use: each key space has its own lock, so requests to
// different tables and indexes do not wait for each other.
type Limiter struct {
	scale     float64
	splitHeat int64    // seconds
	spaces    sync.Map // Space → *space
}

// New returns a Limiter.
func New(opts Options) *Limiter {
	if opts.HeatSplitAfter <= 0 {
		opts.HeatSplitAfter = DefaultHeatSplitAfter
	}
	return &Limiter{scale: max(opts.Scale, 1), splitHeat: max(1, int64(opts.HeatSplitAfter/time.Second))}
}

// space is the state of one key space.
type space struct {
	mu       sync.Mutex
	settings Settings
	built    bool
	// partitions are sorted by lo; the first one's lo is empty.
	partitions []*partition
	table      bucketPair // provisioned throughput
	maxOD      bucketPair // OnDemandThroughput caps (rate 0: none)
	// served is what the whole key space served in each recent second,
	// and peak the most it ever served in one (read, write): on-demand
	// growth keeps double the peak available.
	served [2]meter
	peak   [2]float64
	bytes  int64
}

// partition is one range of a key space.
type partition struct {
	lo      []byte
	buckets bucketPair
	// hist is what the partition served and throttled in each recent
	// second; nil until it serves or throttles anything.
	hist *history
	// hot counts the consecutive hot seconds up to hotAt (read, write).
	hot   [2]int64
	hotAt [2]int64
	// recent are the last keys served here, for a split point.
	recent sampler
}

type bucketPair [2]bucket // read, write

func idx(write bool) int {
	if write {
		return 1
	}
	return 0
}

// limits returns the scaled per-partition limits (read, write).
func (l *Limiter) limits() [2]float64 {
	return [2]float64{PartitionReadUnits / l.scale, PartitionWriteUnits / l.scale}
}

// state returns the state of sp, locked, with settings s; a change of
// settings keeps the partitions (they never merge), adds the ones the
// new settings need and resets the table's buckets. The caller unlocks
// it.
func (l *Limiter) state(sp Space, s Settings, now time.Time) *space {
	v, ok := l.spaces.Load(sp)
	if !ok {
		v, _ = l.spaces.LoadOrStore(sp, &space{})
	}
	st := v.(*space)
	st.mu.Lock()
	if st.built && st.settings == s {
		return st
	}
	st.built, st.settings = true, s
	if st.partitions == nil {
		n := Partitions(s)
		for i := range n {
			st.partitions = append(st.partitions, l.newPartition(hashBound(i, n), now))
		}
	}
	l.grow(st, Partitions(s), now)
	st.table, st.maxOD = bucketPair{}, bucketPair{}
	if s.OnDemand {
		st.maxOD = bucketPair{
			newBucket(float64(s.MaxReadUnits)/l.scale, 1, now),
			newBucket(float64(s.MaxWriteUnits)/l.scale, 1, now),
		}
	} else {
		st.table = bucketPair{
			newBucket(float64(s.ReadUnits)/l.scale, BurstSeconds, now),
			newBucket(float64(s.WriteUnits)/l.scale, BurstSeconds, now),
		}
	}
	return st
}

func (l *Limiter) newPartition(lo []byte, now time.Time) *partition {
	lim := l.limits()
	return &partition{lo: lo, buckets: bucketPair{newBucket(lim[0], 1, now), newBucket(lim[1], 1, now)}}
}

// hashBound returns the first key of the i-th of n equal hash ranges.
func hashBound(i, n int) []byte {
	if i == 0 {
		return []byte{}
	}
	q, r := bits.Div64(uint64(i), 0, uint64(n))
	if r != 0 {
		q++
	}
	return binary.BigEndian.AppendUint64(nil, q)
}

// find returns the index of the partition holding key.
func (st *space) find(key []byte) int {
	return sort.Search(len(st.partitions), func(i int) bool { return bytes.Compare(st.partitions[i].lo, key) > 0 }) - 1
}

// Admit reports whether every demand's partition and key space has
// capacity left at now; if not, the first limit exhausted. It charges
// nothing.
func (l *Limiter) Admit(now time.Time, demands []Demand) (Verdict, bool) {
	for i := range demands {
		if limit := l.admit(now, &demands[i]); limit != 0 {
			return Verdict{Demand: i, Space: demands[i].Space, Write: demands[i].Write, Limit: limit}, false
		}
	}
	return Verdict{}, true
}

// admit returns the limit d exhausts (0: none).
func (l *Limiter) admit(now time.Time, d *Demand) Limit {
	st := l.state(d.Space, d.Settings, now)
	defer st.mu.Unlock()
	var buf [8]byte
	p := st.partitions[st.find(d.position(&buf))]
	w := idx(d.Write)
	var limit Limit
	switch {
	case !p.buckets[w].available(now):
		limit = KeyRange
	case d.Settings.OnDemand:
		if mb := &st.maxOD[w]; mb.rate > 0 && !mb.available(now) {
			limit = MaxOnDemand
		}
	case !st.table[w].available(now):
		limit = Provisioned
	}
	if limit != 0 {
		p.history().throttled[w].add(now, 1)
	}
	return limit
}

// Charge records what demands consumed at now, and splits the partitions
// that ran hot.
func (l *Limiter) Charge(now time.Time, demands []Demand) {
	for i := range demands {
		if demands[i].Units > 0 {
			l.charge(now, &demands[i])
		}
	}
}

// charge records one demand.
func (l *Limiter) charge(now time.Time, d *Demand) {
	{
		st := l.state(d.Space, d.Settings, now) // locked
		defer st.mu.Unlock()
		w := idx(d.Write)
		var buf [8]byte
		pos := d.position(&buf)
		pi := st.find(pos)
		p := st.partitions[pi]
		p.buckets[w].take(now, d.Units)
		p.recent.add(pos, d.Units)
		if d.Settings.OnDemand {
			if st.maxOD[w].rate > 0 {
				st.maxOD[w].take(now, d.Units)
			}
		} else {
			st.table[w].take(now, d.Units)
		}
		if p.history().served[w].add(now, d.Units) {
			l.heat(st, pi, w, now)
		}
		if st.served[w].add(now, d.Units) && d.Settings.OnDemand {
			l.peak(st, w, now)
		}
	}
}

// Forget drops what the limiter knows of every key space of table (it
// was deleted).
func (l *Limiter) Forget(table uint64) {
	l.spaces.Range(func(k, _ any) bool {
		if k.(Space).Table == table {
			l.spaces.Delete(k)
		}
		return true
	})
}

// bucket is a token bucket: rate units a second, holding at most
// burst seconds of them. It starts full.
type bucket struct {
	rate   float64
	burst  float64 // seconds
	tokens float64
	last   time.Time
}

func newBucket(rate, burst float64, now time.Time) bucket {
	return bucket{rate: rate, burst: burst, tokens: rate * burst, last: now}
}

// refill adds the tokens earned since the last call.
func (b *bucket) refill(now time.Time) {
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = min(b.rate*b.burst, b.tokens+dt*b.rate)
		b.last = now
	}
}

// available reports whether the bucket holds any capacity at now.
func (b *bucket) available(now time.Time) bool {
	b.refill(now)
	return b.tokens > 0
}

// take removes units (the bucket may go into debt).
func (b *bucket) take(now time.Time, units float64) {
	b.refill(now)
	b.tokens -= units
}
