// Package throttle owns dynago's model of DynamoDB's throughput limits,
// so that a hot key throttles on a laptop the way it throttles in
// production:
//
//   - every table and every global secondary index is divided into
//     partitions by ranges of the partition-key hash, as many as
//     DynamoDB's published rules give for its settings (Partitions);
//   - each partition serves at most 3,000 read units and 1,000 write
//     units a second (KeyRange limits), however much the table has;
//   - a provisioned table or GSI serves its provisioned units a second,
//     plus up to 300 seconds of unused capacity saved as burst capacity;
//   - an on-demand table or GSI has the partitions its warm throughput
//     needs (12,000 read and 4,000 write units a second: four) and never
//     serves more than its OnDemandThroughput maximum. DynamoDB also
//     splits the partitions of an on-demand table whose traffic grows
//     (up to double the previous peak at once); dynago does not split
//     partitions yet, so an on-demand table's throughput stays its warm
//     throughput.
//
// Every limit is divided by Options.Scale, so that a production hot spot
// of 5,000 writes a second reproduces at 50 with a scale of 100.
//
// The package knows nothing of items or storage: the engine describes
// what a request touches (Demand), asks Admit before doing the work and
// Charge after it, with the clock passed in (tests inject it). Admission
// lets a request through while its buckets hold any capacity and charges
// the request's actual units afterwards, so a bucket may go into debt by
// one request, as DynamoDB's own accounting does; sustained traffic is
// held to the limit.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html;
// behaviour and messages in docs/research-throttling.md.
package throttle

import (
	"math"
	"math/bits"
	"sync"
	"time"
)

// DynamoDB's per-partition limits, in units a second.
const (
	PartitionReadUnits  = 3000
	PartitionWriteUnits = 1000
)

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
	Hash  uint64
	Write bool
	// Units is what the request consumed there (for Charge; Admit only
	// needs the partition).
	Units float64
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
	Space Space
	Write bool
	Limit Limit
}

// Options configure a Limiter.
type Options struct {
	// Scale divides every limit; values below 1 mean 1.
	Scale float64
}

// Limiter tracks consumption against the limits. It is safe for
// concurrent use: each key space has its own lock, so requests to
// different tables and indexes do not wait for each other.
type Limiter struct {
	scale  float64
	spaces sync.Map // Space → *space
}

// New returns a Limiter.
func New(opts Options) *Limiter {
	return &Limiter{scale: max(opts.Scale, 1)}
}

// space is the state of one key space.
type space struct {
	mu         sync.Mutex
	settings   Settings
	partitions []bucketPair
	table      bucketPair // provisioned throughput
	maxOD      bucketPair // OnDemandThroughput caps (rate 0: none)
}

type bucketPair [2]bucket // read, write

func idx(write bool) int {
	if write {
		return 1
	}
	return 0
}

// state returns the state of sp, locked, with settings s: rebuilt when
// the settings changed. The caller unlocks it.
func (l *Limiter) state(sp Space, s Settings, now time.Time) *space {
	v, ok := l.spaces.Load(sp)
	if !ok {
		v, _ = l.spaces.LoadOrStore(sp, &space{})
	}
	st := v.(*space)
	st.mu.Lock()
	if st.partitions != nil && st.settings == s {
		return st
	}
	st.settings = s
	n := Partitions(s)
	st.partitions = make([]bucketPair, n)
	for i := range st.partitions {
		st.partitions[i] = bucketPair{
			newBucket(PartitionReadUnits/l.scale, 1, now),
			newBucket(PartitionWriteUnits/l.scale, 1, now),
		}
	}
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

// partition returns the partition of hash among n, by equal ranges of
// the 64-bit hash space.
func partition(hash uint64, n int) int {
	hi, _ := bits.Mul64(hash, uint64(n))
	return int(hi)
}

// Admit reports whether every demand's partition and key space has
// capacity left at now; if not, the first limit exhausted. It charges
// nothing.
func (l *Limiter) Admit(now time.Time, demands []Demand) (Verdict, bool) {
	for _, d := range demands {
		if limit := l.admit(now, d); limit != 0 {
			return Verdict{Space: d.Space, Write: d.Write, Limit: limit}, false
		}
	}
	return Verdict{}, true
}

// admit returns the limit d exhausts (0: none).
func (l *Limiter) admit(now time.Time, d Demand) Limit {
	st := l.state(d.Space, d.Settings, now)
	defer st.mu.Unlock()
	w := idx(d.Write)
	switch {
	case !st.partitions[partition(d.Hash, len(st.partitions))][w].available(now):
		return KeyRange
	case d.Settings.OnDemand:
		if mb := &st.maxOD[w]; mb.rate > 0 && !mb.available(now) {
			return MaxOnDemand
		}
	case !st.table[w].available(now):
		return Provisioned
	}
	return 0
}

// Charge records what demands consumed at now.
func (l *Limiter) Charge(now time.Time, demands []Demand) {
	for _, d := range demands {
		if d.Units <= 0 {
			continue
		}
		st := l.state(d.Space, d.Settings, now)
		w := idx(d.Write)
		units := d.Units
		st.partitions[partition(d.Hash, len(st.partitions))][w].take(now, units)
		if d.Settings.OnDemand {
			if st.maxOD[w].rate > 0 {
				st.maxOD[w].take(now, units)
			}
		} else {
			st.table[w].take(now, units)
		}
		st.mu.Unlock()
	}
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
