package throttle

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"time"
)

// Partition splits: for heat (a partition that runs hot for
// Options.HeatSplitAfter), for on-demand growth (double the previous
// peak) and for size (10 GB a partition). A split point comes from the
// keys a partition served recently (sampler) or, failing that, the middle
// of its hash range.

// heat runs when partition pi starts serving a new second in direction
// w: it counts the seconds it ran hot and splits it once they reach the
// limiter's heat-split time.
func (l *Limiter) heat(st *space, pi, w int, now time.Time) {
	p := st.partitions[pi]
	sec := now.Unix()
	prev := sec - 1
	served, throttled := p.servedAt(prev, w)
	hot := served >= HeatFraction*l.limits()[w] || throttled > 0
	switch {
	case !hot:
		p.hot[w] = 0
	case p.hotAt[w] == prev-1:
		p.hot[w]++
	default:
		p.hot[w] = 1
	}
	p.hotAt[w] = prev
	if p.hot[w] >= l.splitHeat && len(st.partitions) < MaxPartitions {
		p.hot[w] = 0
		if at, ok := p.recent.splitPoint(p.lo); ok {
			l.split(st, pi, at, now)
		}
	}
}

// peak runs when an on-demand key space starts serving a new second in
// direction w: a new peak grows the partitions to serve double it.
func (l *Limiter) peak(st *space, w int, now time.Time) {
	last := st.served[w].at(now.Unix() - 1)
	if last <= st.peak[w] {
		return
	}
	st.peak[w] = last
	l.grow(st, int(math.Ceil(2*last/l.limits()[w])), now)
}

// grow splits partitions until there are at least n (at most
// MaxPartitions): the busiest first, where its recent traffic divides,
// else at the middle of its hash range; a partition within one hash
// value that its traffic does not divide stays whole.
func (l *Limiter) grow(st *space, n int, now time.Time) {
	n = min(n, MaxPartitions)
	for len(st.partitions) < n {
		order := make([]int, len(st.partitions))
		for i := range order {
			order[i] = i
		}
		sec := now.Unix() - 1
		// What a partition was asked for: the units it served plus the
		// requests it throttled.
		load := func(p *partition) float64 {
			rs, rt := p.servedAt(sec, 0)
			ws, wt := p.servedAt(sec, 1)
			return (rs+rt)/PartitionReadUnits + (ws+wt)/PartitionWriteUnits
		}
		slices.SortStableFunc(order, func(a, b int) int {
			pa, pb := st.partitions[a], st.partitions[b]
			if c := cmp.Compare(load(pb), load(pa)); c != 0 {
				return c
			}
			return cmp.Compare(hashWidth(st, b), hashWidth(st, a))
		})
		split := false
		for _, i := range order {
			p := st.partitions[i]
			at, ok := p.recent.splitPoint(p.lo)
			if !ok {
				at, ok = midpoint(st, i)
			}
			if ok {
				l.split(st, i, at, now)
				split = true
				break
			}
		}
		if !split {
			return
		}
	}
}

// bounds returns partition i's hash range [lo, hi) as 64-bit hashes
// (hi = 2^64 as lastHash+1 overflow: reported by last).
func bounds(st *space, i int) (lo, hi uint64, last bool) {
	lo = hashOf(st.partitions[i].lo)
	if i+1 == len(st.partitions) {
		return lo, 0, true
	}
	return lo, hashOf(st.partitions[i+1].lo), false
}

// hashWidth is the width of partition i's hash range.
func hashWidth(st *space, i int) float64 {
	lo, hi, last := bounds(st, i)
	if last {
		return math.Ldexp(1, 64) - float64(lo)
	}
	return float64(hi - lo)
}

// hashOf returns the hash a key position starts with.
func hashOf(key []byte) uint64 {
	var b [8]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

// midpoint returns the middle of partition i's hash range, if it spans
// more than one hash.
func midpoint(st *space, i int) ([]byte, bool) {
	lo, hi, last := bounds(st, i)
	var mid uint64
	if last {
		mid = lo + (math.MaxUint64-lo)/2 + 1
	} else {
		mid = lo + (hi-lo)/2
	}
	at := binary.BigEndian.AppendUint64(nil, mid)
	if bytes.Compare(at, st.partitions[i].lo) <= 0 || (!last && bytes.Compare(at, st.partitions[i+1].lo) >= 0) {
		return nil, false
	}
	return at, true
}

// split divides partition i at key at: the keys from at on move to a new
// partition with its own buckets, and with the share of the units
// recently served that its sampled keys had (half when none was sampled
// there). The requests throttled stay counted where they were.
func (l *Limiter) split(st *space, i int, at []byte, now time.Time) {
	p := st.partitions[i]
	np := l.newPartition(at, now)
	if h := p.hist; h != nil {
		frac := p.recent.above(at)
		nh := np.history()
		for w := range 2 {
			nh.served[w] = h.served[w].part(frac)
			h.served[w] = h.served[w].part(1 - frac)
		}
	}
	p.recent, p.hot = sampler{}, [2]int64{}
	st.partitions = slices.Insert(st.partitions, i+1, np)
}

// Resize tells the limiter how much data key space sp holds: it splits
// partitions (the widest hash ranges first) until each would hold at
// most PartitionBytes, as DynamoDB splits a full partition in two.
func (l *Limiter) Resize(now time.Time, sp Space, s Settings, bytes int64) {
	st := l.state(sp, s, now)
	defer st.mu.Unlock()
	st.bytes = bytes
	need := int((bytes + PartitionBytes - 1) / PartitionBytes)
	for len(st.partitions) < min(need, MaxPartitions) {
		widest := 0
		for i := range st.partitions {
			if hashWidth(st, i) > hashWidth(st, widest) {
				widest = i
			}
		}
		at, ok := midpoint(st, widest)
		if !ok {
			return
		}
		l.split(st, widest, at, now)
	}
}
