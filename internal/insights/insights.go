// Package insights owns dynago's Contributor Insights data: for each
// table and global secondary index that has Contributor Insights on, the
// partition keys and the items (partition key plus sort key) that
// consumed the most capacity units and that were throttled most often,
// over a sliding window of recent time.
//
// DynamoDB publishes the same four views as CloudWatch Contributor
// Insights rules (most accessed and most throttled partition keys, and
// partition plus sort keys). dynago keeps them in memory, per 10-second
// slot, with one Space-Saving sketch (Metwally et al., 2005) of
// SketchSize keys per view and slot: every key that took more than a
// SketchSize-th of a slot's units is certain to be kept. A reported
// figure counts what the key did while the sketch held it, so it is
// never above the truth; Contributor.Error bounds what it may have
// missed (0: the figure is exact).
//
// The package knows only key bytes (storage keys without their space
// prefix); the engine decodes them for display.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/contributorinsights_HowItWorks.html
package insights

import (
	"container/heap"
	"slices"
	"sync"
	"time"
)

// Slot is the time resolution of a window; Slots of them are kept, enough
// for MaxWindow and the slots at its ends.
const (
	Slot  = 10 * time.Second
	Slots = int(MaxWindow/Slot) + 2
)

// MaxWindow is the longest window a report covers (5 minutes).
const MaxWindow = 5 * time.Minute

// Window is the time a report covers: From is the start of the slot that
// holds the time asked back to (or, later, the moment the table was
// created), To is now. It is never shorter than asked for unless the
// table is younger.
type Window struct {
	From, To time.Time
}

// NewWindow returns the window that looks back d (at least Slot, at
// most MaxWindow) from now, not before notBefore.
func NewWindow(now time.Time, d time.Duration, notBefore time.Time) Window {
	d = min(max(d, Slot), MaxWindow)
	from := time.Unix(slotStart(now.Add(-d)), 0)
	if notBefore.After(from) {
		from = notBefore
	}
	return Window{From: from, To: now}
}

// Seconds returns the window's length (at least a second): the figures
// are averaged over it.
func (w Window) Seconds() float64 {
	return max(w.To.Sub(w.From).Seconds(), 1)
}

// holds reports whether the slot that starts at start overlaps w.
func (w Window) holds(start int64) bool {
	return start >= slotStart(w.From) && start <= w.To.Unix()
}

// SketchSize is how many keys each view keeps per slot.
const SketchSize = 256

// Space names a key space: a table (Index 0) or one of its GSIs.
type Space struct {
	Table uint64
	Index uint16
}

// Event is one request's use of one key.
type Event struct {
	Space Space
	// Key is the item's (or, for a Query, the partition's) position in
	// its key space: the partition-key hash, the partition key and the
	// sort key as storage keys encode them.
	Key []byte
	// PartitionKeyLen is how many bytes of Key are the hash and the
	// partition key; when it is len(Key) the event has no sort key.
	PartitionKeyLen int
	Write           bool
	// Units is what the request consumed (0 for a throttled one).
	Units     float64
	Throttled bool
}

// Recorder collects events. It is safe for concurrent use; key spaces
// do not share a lock.
type Recorder struct {
	spaces sync.Map // Space → *spaceRec
	usage  sync.Map // Space → *usage
}

// view indexes the four sketches of a slot.
const (
	accessedPK = iota
	accessedKey
	throttledPK
	throttledKey
	views
)

type spaceRec struct {
	mu    sync.Mutex
	slots [Slots]slot
}

type slot struct {
	start    int64 // Unix seconds, a multiple of Slot
	sketches [views]sketch
}

// Record adds ev at now.
func (r *Recorder) Record(now time.Time, ev Event) {
	v, ok := r.spaces.Load(ev.Space)
	if !ok {
		v, _ = r.spaces.LoadOrStore(ev.Space, &spaceRec{})
	}
	sr := v.(*spaceRec)
	sr.mu.Lock()
	defer sr.mu.Unlock()
	start := slotStart(now)
	s := &sr.slots[(start/int64(Slot/time.Second))%int64(Slots)]
	if s.start != start {
		*s = slot{start: start}
	}
	pkLen := min(max(ev.PartitionKeyLen, 0), len(ev.Key))
	if pkLen == 0 {
		pkLen = len(ev.Key)
	}
	var read, write float64
	if ev.Write {
		write = ev.Units
	} else {
		read = ev.Units
	}
	if ev.Throttled {
		s.sketches[throttledPK].add(ev.Key[:pkLen], pkLen, 1, 0, 0, 1)
		if pkLen < len(ev.Key) {
			s.sketches[throttledKey].add(ev.Key, pkLen, 1, 0, 0, 1)
		}
		return
	}
	if ev.Units <= 0 {
		return
	}
	weight := read + 3*write // CloudWatch's ConsumedThroughputUnits
	s.sketches[accessedPK].add(ev.Key[:pkLen], pkLen, weight, read, write, 0)
	if pkLen < len(ev.Key) {
		s.sketches[accessedKey].add(ev.Key, pkLen, weight, read, write, 0)
	}
}

func slotStart(now time.Time) int64 {
	sec := now.Unix()
	size := int64(Slot / time.Second)
	return sec - ((sec%size)+size)%size
}

// Contributor is one key's figures over a window.
type Contributor struct {
	Key             []byte
	PartitionKeyLen int
	// ReadUnits and WriteUnits are the units consumed a second, averaged
	// over the window; Throttled the requests throttled in it.
	ReadUnits, WriteUnits float64
	Throttled             int
	// Error bounds what the figures may miss (they never overstate):
	// ConsumedThroughputUnits a second for the most accessed views,
	// throttled requests for the most throttled ones. 0 when every slot
	// kept the key from its first use: the figures are exact.
	Error float64
}

// ConsumedThroughputUnits is the figure DynamoDB's "most accessed"
// rules rank by: read units plus three times write units, a second.
func (c Contributor) ConsumedThroughputUnits() float64 { return c.ReadUnits + 3*c.WriteUnits }

// Top is the four views of a key space over a window, each sorted by
// its figure, largest first, at most n long.
type Top struct {
	PartitionKeys, Keys                   []Contributor // most accessed
	ThrottledPartitionKeys, ThrottledKeys []Contributor
}

// Top returns the n largest contributors of each view of sp over w.
func (r *Recorder) Top(sp Space, w Window, n int) Top {
	var out Top
	v, ok := r.spaces.Load(sp)
	if !ok {
		return out
	}
	sr := v.(*spaceRec)
	merged := sr.merge(w)
	rank := func(m map[string]*Contributor, throttled bool) []Contributor {
		cs := make([]Contributor, 0, len(m))
		for _, c := range m {
			cs = append(cs, *c)
		}
		figure := func(c Contributor) float64 {
			if throttled {
				return float64(c.Throttled)
			}
			return c.ConsumedThroughputUnits()
		}
		slices.SortFunc(cs, func(a, b Contributor) int {
			fa, fb := figure(a), figure(b)
			switch {
			case fa > fb:
				return -1
			case fa < fb:
				return 1
			}
			return slices.Compare(a.Key, b.Key)
		})
		return cs[:min(n, len(cs))]
	}
	out.PartitionKeys = rank(merged[accessedPK], false)
	out.Keys = rank(merged[accessedKey], false)
	out.ThrottledPartitionKeys = rank(merged[throttledPK], true)
	out.ThrottledKeys = rank(merged[throttledKey], true)
	return out
}

// Reset drops the keys recorded for sp (Contributor Insights was enabled
// anew, or its mode changed); its usage stays.
func (r *Recorder) Reset(sp Space) {
	r.spaces.Delete(sp)
}

// Forget drops what the recorder holds for every key space of table.
func (r *Recorder) Forget(table uint64) {
	for _, m := range []*sync.Map{&r.spaces, &r.usage} {
		m.Range(func(k, _ any) bool {
			if k.(Space).Table == table {
				m.Delete(k)
			}
			return true
		})
	}
}

// sketch is a Space-Saving summary: at most SketchSize keys in a min-heap
// by weight; a new key replaces the lightest and inherits its weight as
// its error.
type sketch struct {
	h   entries
	idx map[string]int
}

type entry struct {
	key         string
	pkLen       int
	weight, err float64
	read, write float64
	throttled   float64
}

func (s *sketch) add(key []byte, pkLen int, weight, read, write, throttled float64) {
	if s.idx == nil {
		s.idx = make(map[string]int)
		s.h.idx = s.idx
	}
	if i, ok := s.idx[string(key)]; ok {
		e := &s.h.es[i]
		e.weight += weight
		e.read += read
		e.write += write
		e.throttled += throttled
		heap.Fix(&s.h, i)
		return
	}
	if len(s.h.es) < SketchSize {
		heap.Push(&s.h, entry{key: string(key), pkLen: pkLen, weight: weight, read: read, write: write, throttled: throttled})
		return
	}
	// Replace the lightest key. The newcomer ranks at the evicted weight
	// plus its own (it may have had up to that weight before: Space-
	// Saving's overestimate), but its figures count only what it did
	// from now on, and err keeps the bound of what they may miss.
	min := &s.h.es[0]
	delete(s.idx, min.key)
	floor := min.weight
	*min = entry{key: string(key), pkLen: pkLen, weight: floor + weight, err: floor,
		read: read, write: write, throttled: throttled}
	s.idx[min.key] = 0
	heap.Fix(&s.h, 0)
}

// entries is a min-heap by weight that keeps idx (key → position) true.
type entries struct {
	es  []entry
	idx map[string]int
}

func (h entries) Len() int           { return len(h.es) }
func (h entries) Less(i, j int) bool { return h.es[i].weight < h.es[j].weight }
func (h entries) Swap(i, j int) {
	h.es[i], h.es[j] = h.es[j], h.es[i]
	h.idx[h.es[i].key] = i
	h.idx[h.es[j].key] = j
}
func (h *entries) Push(x any) {
	e := x.(entry)
	h.idx[e.key] = len(h.es)
	h.es = append(h.es, e)
}
func (h *entries) Pop() any {
	e := h.es[len(h.es)-1]
	h.es = h.es[:len(h.es)-1]
	delete(h.idx, e.key)
	return e
}

// usage is what one key space consumed per slot, whatever its
// Contributor Insights setting.
type usage struct {
	mu    sync.Mutex
	slots [Slots]usageSlot
}

type usageSlot struct {
	start       int64
	read, write float64
}

// merge sums the slots w holds into one map of contributors per view, in
// units a second (errors of the throttled views as counts).
func (sr *spaceRec) merge(w Window) [views]map[string]*Contributor {
	secs := w.Seconds()
	sr.mu.Lock()
	defer sr.mu.Unlock()
	var merged [views]map[string]*Contributor
	for i := range merged {
		merged[i] = map[string]*Contributor{}
	}
	for si := range sr.slots {
		s := &sr.slots[si]
		if !w.holds(s.start) {
			continue
		}
		for vi := range s.sketches {
			sk := &s.sketches[vi]
			for _, e := range sk.h.es {
				c := merged[vi][e.key]
				if c == nil {
					c = &Contributor{Key: []byte(e.key), PartitionKeyLen: e.pkLen}
					merged[vi][e.key] = c
				}
				c.ReadUnits += e.read / secs
				c.WriteUnits += e.write / secs
				c.Throttled += int(e.throttled)
				if vi >= throttledPK {
					c.Error += e.err
				} else {
					c.Error += e.err / secs
				}
			}
		}
	}
	return merged
}

// Consumed records units consumed in sp at now.
func (r *Recorder) Consumed(now time.Time, sp Space, write bool, units float64) {
	v, ok := r.usage.Load(sp)
	if !ok {
		v, _ = r.usage.LoadOrStore(sp, &usage{})
	}
	u := v.(*usage)
	start := slotStart(now)
	u.mu.Lock()
	defer u.mu.Unlock()
	s := &u.slots[(start/int64(Slot/time.Second))%int64(Slots)]
	if s.start != start {
		*s = usageSlot{start: start}
	}
	if write {
		s.write += units
	} else {
		s.read += units
	}
}

// Usage returns the read and write units a second sp consumed over w.
func (r *Recorder) Usage(sp Space, w Window) (read, write float64) {
	v, ok := r.usage.Load(sp)
	if !ok {
		return 0, 0
	}
	u := v.(*usage)
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, s := range u.slots {
		if w.holds(s.start) {
			read += s.read
			write += s.write
		}
	}
	return read / w.Seconds(), write / w.Seconds()
}
