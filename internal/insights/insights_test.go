package insights

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func ev(pk, sk string, write bool, units float64, throttled bool) Event {
	key := []byte(pk + sk)
	return Event{Space: Space{Table: 1}, Key: key, PartitionKeyLen: len(pk), Write: write, Units: units, Throttled: throttled}
}

// TestTop_HotPartitionKeyAmongMany: seed 001's STATUS#open takes one
// write unit per order, each order another sort key, among thousands of
// other keys written once: the partition-key view names STATUS#open with
// its full rate although no single item of it stands out, and the
// sketches' bounded size does not lose it.
func TestTop_HotPartitionKeyAmongMany(t *testing.T) {
	var r Recorder
	now := t0
	for i := range 6000 { // 100 a second for 60 s
		r.Record(now, ev("STATUS#open", fmt.Sprintf("#%06d", i), true, 1, false))
		r.Record(now, ev(fmt.Sprintf("ORDER#%06d", i), "#A", true, 1, false))
		if i%5 == 0 {
			r.Record(now, ev("STATUS#open", fmt.Sprintf("#%06d", i), true, 0, true))
		}
		now = now.Add(10 * time.Millisecond)
	}
	top := r.Top(Space{Table: 1}, NewWindow(now, time.Minute, time.Time{}), 3)
	if len(top.PartitionKeys) != 3 || string(top.PartitionKeys[0].Key) != "STATUS#open" {
		t.Fatalf("partition keys: %+v", top.PartitionKeys)
	}
	if got := top.PartitionKeys[0].WriteUnits; got < 99 || got > 101 {
		t.Fatalf("STATUS#open: %.1f write units a second, want 100", got)
	}
	if got := top.PartitionKeys[0].ConsumedThroughputUnits(); got < 297 || got > 303 {
		t.Fatalf("STATUS#open: %.1f consumed throughput units, want 300 (3 per write unit)", got)
	}
	if top.PartitionKeys[1].ConsumedThroughputUnits() > 1 {
		t.Fatalf("second partition key %s at %.2f a second: an order key written once should be far below",
			top.PartitionKeys[1].Key, top.PartitionKeys[1].ConsumedThroughputUnits())
	}
	if len(top.ThrottledPartitionKeys) != 1 || string(top.ThrottledPartitionKeys[0].Key) != "STATUS#open" || top.ThrottledPartitionKeys[0].Throttled != 1200 {
		t.Fatalf("throttled partition keys: %+v", top.ThrottledPartitionKeys)
	}
	if len(top.ThrottledKeys) != 3 || top.ThrottledKeys[0].Throttled != 1 {
		t.Fatalf("throttled keys: %+v", top.ThrottledKeys)
	}
}

// TestTop_Window: slots older than the window are left out, and reads
// count once where writes count three times.
func TestTop_Window(t *testing.T) {
	var r Recorder
	r.Record(t0, ev("OLD", "", false, 50, false))
	later := t0.Add(2 * time.Minute)
	r.Record(later, ev("NEW", "", false, 10, false))
	r.Record(later, ev("W", "", true, 4, false))
	for _, tc := range []struct {
		window time.Duration
		want   []string
	}{
		{time.Minute, []string{"W", "NEW"}},
		{5 * time.Minute, []string{"OLD", "W", "NEW"}},
	} {
		top := r.Top(Space{Table: 1}, NewWindow(later.Add(time.Second), tc.window, time.Time{}), 10)
		var got []string
		for _, c := range top.PartitionKeys {
			got = append(got, string(c.Key))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("window %v: %v, want %v", tc.window, got, tc.want)
		}
		if len(top.Keys) != 0 {
			t.Errorf("keys without sort keys showed in the item view: %+v", top.Keys)
		}
	}
}

// TestSketch_Error: once a slot's sketch is full, an evicted key's
// successor carries the evicted weight as its error bound.
func TestSketch_Error(t *testing.T) {
	var s sketch
	for i := range SketchSize + 1 {
		s.add([]byte(fmt.Sprint(i)), 1, 1, 1, 0, 0)
	}
	if len(s.h.es) != SketchSize || len(s.idx) != SketchSize {
		t.Fatalf("sketch holds %d entries, index %d", len(s.h.es), len(s.idx))
	}
	var withErr int
	for _, e := range s.h.es {
		if e.err > 0 {
			withErr++
			if e.weight != 2 || e.err != 1 {
				t.Fatalf("replacement %+v", e)
			}
		}
		if s.idx[e.key] < 0 || s.h.es[s.idx[e.key]].key != e.key {
			t.Fatalf("index out of step for %q", e.key)
		}
	}
	if withErr != 1 {
		t.Fatalf("%d entries with an error bound, want 1", withErr)
	}
}

func BenchmarkRecord(b *testing.B) {
	var r Recorder
	keys := make([]Event, 4096)
	for i := range keys {
		keys[i] = ev(fmt.Sprintf("ORDER#%d", i), "#A", true, 1, false)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Record(t0, keys[i%len(keys)])
	}
}

// TestTop_NeverOverstates: 20,000 keys written once each overflow the
// sketches; every figure reported is still one write (what the key did
// while kept), with an error bound where keys were dropped.
func TestTop_NeverOverstates(t *testing.T) {
	var r Recorder
	now := t0
	for i := range 20000 {
		r.Record(now, ev(fmt.Sprintf("u%05d", i), "", true, 1, false))
		now = now.Add(time.Millisecond)
	}
	w := NewWindow(now, time.Minute, t0)
	for _, c := range r.Top(Space{Table: 1}, w, 100).PartitionKeys {
		if got := c.WriteUnits * w.Seconds(); got < 0.999 || got > 1.001 {
			t.Fatalf("%s: %.3f writes reported, want 1", c.Key, got)
		}
	}
}

// TestNewWindow: a window starts at the slot that holds the time asked
// back to, or at the table's creation, and covers at least a second.
func TestNewWindow(t *testing.T) {
	now := t0.Add(25 * time.Second) // 12:00:25
	for _, tc := range []struct {
		d         time.Duration
		notBefore time.Time
		want      float64
	}{
		{time.Minute, time.Time{}, 65},             // from 11:59:20
		{10 * time.Second, time.Time{}, 15},        // from 12:00:10
		{time.Second, time.Time{}, 15},             // at least a slot
		{time.Hour, time.Time{}, 305},              // at most 5 minutes, from 11:55:20
		{time.Minute, t0.Add(20 * time.Second), 5}, // a table created at 12:00:20
		{time.Minute, now, 1},                      // at least a second
	} {
		if got := NewWindow(now, tc.d, tc.notBefore).Seconds(); got != tc.want {
			t.Errorf("NewWindow(12:00:25, %v, %v) = %v s, want %v", tc.d, tc.notBefore, got, tc.want)
		}
	}
}

// TestRecorder_Concurrent: events from many goroutines and reports
// between them add up (run with -race).
func TestRecorder_Concurrent(t *testing.T) {
	var r Recorder
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				r.Record(t0, ev(fmt.Sprintf("K%d", i%50), "#s", g%2 == 0, 1, false))
				r.Consumed(t0, Space{Table: 1}, true, 1)
				if i%100 == 0 {
					r.Top(Space{Table: 1}, NewWindow(t0, time.Minute, time.Time{}), 5)
				}
			}
		}()
	}
	wg.Wait()
	w := NewWindow(t0.Add(time.Second), time.Minute, time.Time{})
	if _, write := r.Usage(Space{Table: 1}, w); write*w.Seconds() < 3999.999 || write*w.Seconds() > 4000.001 {
		t.Fatalf("usage %v units, want 4000", write*w.Seconds())
	}
	var total float64
	for _, c := range r.Top(Space{Table: 1}, w, 100).PartitionKeys {
		total += (c.ReadUnits + c.WriteUnits) * w.Seconds()
	}
	if total < 3999 || total > 4001 {
		t.Fatalf("partition keys add up to %v units, want 4000", total)
	}
}
