package throttle

import (
	"math"
	"time"
)

// LoadHistory is what each partition of a key space served over a
// window, step by step: the series behind Load's averages, for a heat
// map of the partitions over time.
type LoadHistory struct {
	// Start is the first second of the first step (a multiple of Step
	// since the epoch, so that steps stay put as the window moves); Step
	// is each step's length.
	Start time.Time
	Step  time.Duration
	// Seconds is how many seconds of the window each step holds: Step's
	// except at the window's ends.
	Seconds    []float64
	Partitions []PartitionSeries
}

// PartitionSeries is one partition's load, step by step.
type PartitionSeries struct {
	// Start, StartKey and the limits are as in PartitionLoad.
	Start                 uint64
	StartKey              []byte
	ReadLimit, WriteLimit float64
	// ReadUnits and WriteUnits are the units served a second in each
	// step (averaged over the seconds of the window it holds);
	// ReadThrottled and WriteThrottled count the requests throttled in
	// it.
	ReadUnits, WriteUnits         []float64
	ReadThrottled, WriteThrottled []int
}

// History reports what each partition of sp served in each step of
// step (at least a second) from the second from is in through the one
// to is in (at most MaxWindow, as Load); false if sp has served nothing
// yet. A step's units summed over its seconds, over every step, are
// Load's units times its window: the same meters.
func (l *Limiter) History(sp Space, from, to time.Time, step time.Duration) (LoadHistory, bool) {
	v, ok := l.spaces.Load(sp)
	if !ok {
		return LoadHistory{}, false
	}
	st := v.(*space)
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.built {
		return LoadHistory{}, false
	}
	if earliest := to.Add(-MaxWindow); from.Before(earliest) {
		from = earliest
	}
	s := max(int64(step/time.Second), 1)
	f, t := from.Unix(), to.Unix()
	first := f - ((f%s)+s)%s
	n := int((t-first)/s) + 1
	out := LoadHistory{Start: time.Unix(first, 0), Step: time.Duration(s) * time.Second, Seconds: make([]float64, n)}
	lo := make([]int64, n)
	hi := make([]int64, n)
	for k := range n {
		lo[k], hi[k] = max(first+int64(k)*s, f), min(first+int64(k+1)*s-1, t)
		out.Seconds[k] = float64(hi[k] - lo[k] + 1)
	}
	lim := l.limits()
	for _, p := range st.partitions {
		ps := PartitionSeries{Start: hashOf(p.lo), ReadLimit: lim[0], WriteLimit: lim[1],
			ReadUnits: make([]float64, n), WriteUnits: make([]float64, n), ReadThrottled: make([]int, n), WriteThrottled: make([]int, n)}
		if len(p.lo) > 8 {
			ps.StartKey = p.lo
		}
		if h := p.hist; h != nil {
			for k := range n {
				ps.ReadUnits[k] = h.served[0].sum(lo[k], hi[k]) / out.Seconds[k]
				ps.WriteUnits[k] = h.served[1].sum(lo[k], hi[k]) / out.Seconds[k]
				ps.ReadThrottled[k] = int(math.Round(h.throttled[0].sum(lo[k], hi[k])))
				ps.WriteThrottled[k] = int(math.Round(h.throttled[1].sum(lo[k], hi[k])))
			}
		}
		out.Partitions = append(out.Partitions, ps)
	}
	return out, true
}
