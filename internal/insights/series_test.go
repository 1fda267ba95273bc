package insights

import (
	"math"
	"testing"
	"time"
)

// TestUsageSlots: the slots of a window, each with what was consumed in
// it and how much of the window it holds, add up to Usage; a window
// that starts with the table (mid-slot) and a key space never seen give
// their slots too.
func TestUsageSlots(t *testing.T) {
	sp := Space{Table: 1}
	var r Recorder
	now := t0            // a slot boundary
	for i := range 300 { // 10 write units and 5 read units a second for 30 s
		r.Consumed(now, sp, true, 1)
		if i%2 == 0 {
			r.Consumed(now, sp, false, 1)
		}
		now = now.Add(100 * time.Millisecond)
	}
	now = now.Add(15 * time.Second) // 15 s quiet: the window ends mid-slot
	for _, tc := range []struct {
		name      string
		w         Window
		space     Space
		slots     int
		firstSecs float64
		lastSecs  float64
	}{
		{"a minute", NewWindow(now, time.Minute, time.Time{}), sp, 7, 10, 5},
		{"from the table's creation", NewWindow(now, time.Minute, t0.Add(3*time.Second)), sp, 5, 7, 5},
		{"a space never seen", NewWindow(now, time.Minute, time.Time{}), Space{Table: 2}, 7, 10, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slots := r.UsageSlots(tc.space, tc.w)
			if len(slots) != tc.slots || slots[0].Seconds != tc.firstSecs || slots[len(slots)-1].Seconds != tc.lastSecs {
				t.Fatalf("%d slots %+v, want %d from %v s to %v s", len(slots), slots, tc.slots, tc.firstSecs, tc.lastSecs)
			}
			var read, write, secs float64
			for i, s := range slots {
				if i > 0 && s.Start.Sub(slots[i-1].Start) != Slot {
					t.Fatalf("slot %d starts %v after the one before", i, s.Start.Sub(slots[i-1].Start))
				}
				read, write, secs = read+s.ReadUnits, write+s.WriteUnits, secs+s.Seconds
			}
			ur, uw := r.Usage(tc.space, tc.w)
			if math.Abs(read/tc.w.Seconds()-ur) > 1e-9 || math.Abs(write/tc.w.Seconds()-uw) > 1e-9 || math.Abs(secs-tc.w.Seconds()) > 1e-9 {
				t.Fatalf("slots sum to %.2f read, %.2f write over %.1f s; Usage %.4f, %.4f over %.1f s", read, write, secs, ur, uw, tc.w.Seconds())
			}
		})
	}
}
