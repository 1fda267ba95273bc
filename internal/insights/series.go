package insights

import "time"

// SlotUsage is what a key space consumed in one slot of a window.
type SlotUsage struct {
	// Start is the slot's start; Seconds how much of the window it
	// holds (Slot, except at the window's ends; at least a second).
	Start   time.Time
	Seconds float64
	// ReadUnits and WriteUnits are the units consumed in the slot (not a
	// second).
	ReadUnits, WriteUnits float64
}

// UsageSlots returns what sp consumed in each slot w holds, oldest
// first, a slot it consumed nothing in included: the series whose sum,
// divided by w.Seconds(), is Usage.
func (r *Recorder) UsageSlots(sp Space, w Window) []SlotUsage {
	size := int64(Slot / time.Second)
	var out []SlotUsage
	for start := slotStart(w.From); start <= w.To.Unix(); start += size {
		from, to := time.Unix(start, 0), time.Unix(start+size, 0)
		if from.Before(w.From) {
			from = w.From
		}
		if to.After(w.To) {
			to = w.To
		}
		out = append(out, SlotUsage{Start: time.Unix(start, 0), Seconds: max(to.Sub(from).Seconds(), 1)})
	}
	v, ok := r.usage.Load(sp)
	if !ok || len(out) == 0 {
		return out
	}
	u := v.(*usage)
	u.mu.Lock()
	defer u.mu.Unlock()
	first := slotStart(w.From)
	for _, s := range u.slots {
		if !w.holds(s.start) {
			continue
		}
		i := (s.start - first) / size
		out[i].ReadUnits, out[i].WriteUnits = s.read, s.write
	}
	return out
}
