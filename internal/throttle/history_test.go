package throttle

import (
	"math"
	"testing"
	"time"
)

// TestHistory_StepsAddUpToLoad: a hot key driven at 200 writes a second
// for 10 s (limit 100 a second at scale 10) shows in its partition's
// steps, throttles marked in the steps they happened in, and the steps
// summed over their seconds are Load's figures for the same window; the
// other partitions stay at zero.
func TestHistory_StepsAddUpToLoad(t *testing.T) {
	for _, tc := range []struct {
		name  string
		step  time.Duration
		steps int
	}{
		{"seconds", time.Second, 21},
		{"five seconds", 5 * time.Second, 5},
		{"under a second is a second", time.Millisecond, 21},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(Options{Scale: 10})
			sp := Space{Table: 1}
			if _, ok := l.History(sp, t0, t0, time.Second); ok {
				t.Fatal("history of a space that served nothing")
			}
			now := t0.Add(5 * time.Second)
			hot := Demand{Space: sp, Settings: Settings{OnDemand: true}, Hash: 42, Write: true, Units: 1}
			_, thr, _ := drive(l, &now, hot, 5*time.Millisecond, 10*time.Second)
			from, to := t0, t0.Add(20*time.Second)
			h, ok := l.History(sp, from, to, tc.step)
			load, _ := l.Load(sp, from, to)
			if !ok || len(h.Seconds) != tc.steps || len(h.Partitions) != 4 || len(load.Partitions) != 4 {
				t.Fatalf("history: ok %v, %d steps, %d partitions", ok, len(h.Seconds), len(h.Partitions))
			}
			if h.Start.Unix()%int64(h.Step/time.Second) != 0 || h.Start.After(from) {
				t.Fatalf("steps start at %v (step %v)", h.Start, h.Step)
			}
			hotParts := 0
			for i, p := range h.Partitions {
				var units, secs float64
				throttled := 0
				for k := range h.Seconds {
					units += p.WriteUnits[k] * h.Seconds[k]
					secs += h.Seconds[k]
					throttled += p.WriteThrottled[k]
					if p.WriteUnits[k] > p.WriteLimit*2.1 {
						t.Errorf("partition %d step %d: %.1f units a second, limit %.0f", i, k, p.WriteUnits[k], p.WriteLimit)
					}
				}
				lp := load.Partitions[i]
				if want := lp.WriteUnits * math.Max(to.Sub(from).Seconds(), 1); math.Abs(units-want) > 1e-6 || throttled != lp.WriteThrottled || p.Start != lp.Start || p.WriteLimit != 100 {
					t.Errorf("partition %d: %.2f units, %d throttled; Load says %.2f, %d", i, units, throttled, want, lp.WriteThrottled)
				}
				if secs != 21 {
					t.Errorf("steps hold %v seconds, want 21", secs)
				}
				if throttled > 0 {
					hotParts++
					if throttled != thr || p.WriteThrottled[0] != 0 || p.WriteUnits[len(p.WriteUnits)-1] != 0 {
						t.Errorf("hot partition: %d throttled of %d; first step %d, last %v", throttled, thr, p.WriteThrottled[0], p.WriteUnits[len(p.WriteUnits)-1])
					}
				}
			}
			if hotParts != 1 {
				t.Fatalf("%d partitions throttled, want 1", hotParts)
			}
		})
	}
}
