package throttle

import (
	"bytes"
	"math"
	"slices"
	"time"
)

// What partitions served: per-second meters, the reports built from them
// (Load), and the recent keys a split point is chosen from (sampler).

// PartitionLoad is what one partition served over a window.
type PartitionLoad struct {
	// Start is the first hash of the partition's range; StartKey its
	// first key position when it begins inside one hash (a split between
	// sort keys).
	Start    uint64
	StartKey []byte
	// ReadUnits and WriteUnits are the units served a second, averaged
	// over the window; ReadLimit and WriteLimit the partition's limits
	// (scaled).
	ReadUnits, WriteUnits float64
	ReadLimit, WriteLimit float64
	// ReadThrottled and WriteThrottled count the requests throttled here
	// in the window.
	ReadThrottled, WriteThrottled int
}

// SpaceLoad is what a key space served over a window.
type SpaceLoad struct {
	Settings   Settings
	Partitions []PartitionLoad
	// PeakReadUnits and PeakWriteUnits are the most an on-demand key
	// space served in one second (scaled units).
	PeakReadUnits, PeakWriteUnits float64
}

// MaxWindow is the longest window Load reports over.
const MaxWindow = 5 * time.Minute

// Load reports what each partition of sp served from the second from is
// in through the one to is in (at most MaxWindow), averaged over the
// time between them (at least a second); false if sp has served
// nothing yet.
func (l *Limiter) Load(sp Space, from, to time.Time) (SpaceLoad, bool) {
	v, ok := l.spaces.Load(sp)
	if !ok {
		return SpaceLoad{}, false
	}
	st := v.(*space)
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.built {
		return SpaceLoad{}, false
	}
	if earliest := to.Add(-MaxWindow); from.Before(earliest) {
		from = earliest
	}
	secs := max(to.Sub(from).Seconds(), 1)
	lim := l.limits()
	out := SpaceLoad{Settings: st.settings, PeakReadUnits: st.peak[0], PeakWriteUnits: st.peak[1]}
	for _, p := range st.partitions {
		pl := PartitionLoad{Start: hashOf(p.lo), ReadLimit: lim[0], WriteLimit: lim[1]}
		if h := p.hist; h != nil {
			f, t := from.Unix(), to.Unix()
			pl.ReadUnits, pl.WriteUnits = h.served[0].sum(f, t)/secs, h.served[1].sum(f, t)/secs
			pl.ReadThrottled, pl.WriteThrottled = int(math.Round(h.throttled[0].sum(f, t))), int(math.Round(h.throttled[1].sum(f, t)))
		}
		if len(p.lo) > 8 {
			pl.StartKey = p.lo
		}
		out.Partitions = append(out.Partitions, pl)
	}
	return out, true
}

// PartitionCount returns how many partitions sp has now (0: not seen yet).
func (l *Limiter) PartitionCount(sp Space) int {
	v, ok := l.spaces.Load(sp)
	if !ok {
		return 0
	}
	st := v.(*space)
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.partitions)
}

// meterSlots is how many seconds a meter remembers: MaxWindow and the
// second it starts in.
const meterSlots = int64(MaxWindow/time.Second) + 20

// history is what a partition served (units) and throttled (requests)
// in each recent second, read and write.
type history struct {
	served, throttled [2]meter
}

// history returns p's history, allocating it on first use.
func (p *partition) history() *history {
	if p.hist == nil {
		p.hist = &history{}
	}
	return p.hist
}

// servedAt returns what p served in second s, direction w, and the
// requests it throttled then.
func (p *partition) servedAt(s int64, w int) (units, throttled float64) {
	if p.hist == nil {
		return 0, 0
	}
	return p.hist.served[w].at(s), p.hist.throttled[w].at(s)
}

// meter sums units per second over the last meterSlots seconds.
type meter struct {
	units [meterSlots]float64
	sec   [meterSlots]int64
	last  int64
}

// add records units at now and reports whether now starts a second the
// meter had not seen.
func (m *meter) add(now time.Time, units float64) bool {
	s := now.Unix()
	i := s % meterSlots
	if i < 0 {
		i += meterSlots
	}
	if m.sec[i] != s {
		m.sec[i], m.units[i] = s, 0
	}
	m.units[i] += units
	fresh := s > m.last
	if fresh {
		m.last = s
	}
	return fresh
}

// part returns a copy of m with every second scaled by frac.
func (m meter) part(frac float64) meter {
	for i := range m.units {
		m.units[i] *= frac
	}
	return m
}

// at returns the units recorded in second s.
func (m *meter) at(s int64) float64 {
	i := s % meterSlots
	if i < 0 {
		i += meterSlots
	}
	if m.sec[i] != s {
		return 0
	}
	return m.units[i]
}

// sum returns the units of the seconds from through to.
func (m *meter) sum(from, to int64) float64 {
	var t float64
	for s := max(from, to-meterSlots+1); s <= to; s++ {
		t += m.at(s)
	}
	return t
}

// samplerSize is how many recent keys a partition remembers.
const samplerSize = 32

// sampler keeps the key positions of the last samplerSize demands
// charged to a partition, oldest overwritten first.
type sampler struct {
	keys  [samplerSize][]byte
	units [samplerSize]float64
	next  int
	n     int
}

func (s *sampler) add(key []byte, units float64) {
	s.keys[s.next] = append(s.keys[s.next][:0], key...)
	s.units[s.next] = units
	s.next = (s.next + 1) % samplerSize
	s.n = min(s.n+1, samplerSize)
}

// above returns the share of the sampled units at or above key (half
// when nothing was sampled).
func (s *sampler) above(key []byte) float64 {
	var total, above float64
	for i := range s.n {
		total += s.units[i]
		if bytes.Compare(s.keys[i], key) >= 0 {
			above += s.units[i]
		}
	}
	if total == 0 {
		return 0.5
	}
	return above / total
}

// splitPoint returns a key that divides the recent traffic: at least a
// fifth of the units on each side, and the newest quarter of the
// demands on both sides too, so that a split helps the traffic still
// coming (a sort key that only grows, or one hot item, gives none). The
// key is above lo.
func (s *sampler) splitPoint(lo []byte) ([]byte, bool) {
	if s.n < samplerSize/2 {
		return nil, false
	}
	type sample struct {
		key   []byte
		units float64
		age   int // 0 newest
	}
	ss := make([]sample, 0, s.n)
	var total float64
	for age := range s.n {
		i := (s.next - 1 - age + 2*samplerSize) % samplerSize
		ss = append(ss, sample{s.keys[i], s.units[i], age})
		total += s.units[i]
	}
	slices.SortFunc(ss, func(a, b sample) int { return bytes.Compare(a.key, b.key) })
	var below float64
	for i := 1; i < len(ss); i++ {
		below += ss[i-1].units
		if bytes.Equal(ss[i].key, ss[i-1].key) || below < total/2 {
			continue
		}
		if below < total/5 || total-below < total/5 || bytes.Compare(ss[i].key, lo) <= 0 {
			return nil, false
		}
		newest := s.n / 4
		var newBelow, newAbove int
		for _, x := range ss[:i] {
			if x.age < newest {
				newBelow++
			}
		}
		for _, x := range ss[i:] {
			if x.age < newest {
				newAbove++
			}
		}
		if newBelow == 0 || newAbove == 0 {
			return nil, false
		}
		return slices.Clone(ss[i].key), true
	}
	return nil, false
}
