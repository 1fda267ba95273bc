package engine

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/throttle"
)

// TestInsightsHistory: the series behind the insights report add up to
// its figures for the same window: each key space's slots to its units
// a second, each partition's steps to its partition's units and
// throttled requests; throttling off, there is no heat.
func TestInsightsHistory(t *testing.T) {
	for _, tc := range []struct {
		name     string
		throttle bool
	}{
		{"throttling on", true},
		{"throttling off", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			opts := Options{Now: clock.Now}
			if tc.throttle {
				opts.Throttle = &throttle.Options{Scale: 100}
			}
			e, _ := openEngine(t, opts, "")
			mustRun(t, e, (*Engine).CreateTable, ordersTable)
			clock.Advance(25 * time.Second)
			throttled := 0
			for i := range 200 { // 20 a second for 10 s on one GSI key
				_, err := run(e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"orders","Item":{"PK":{"S":"ORDER#%d"},"SK":{"S":"A"},"GSI2PK":{"S":"STATUS#open"},"GSI2SK":{"S":"%06d"}}}`, i, i))
				if err != nil {
					throttled++
				}
				clock.Advance(50 * time.Millisecond)
			}
			mustRun(t, e, (*Engine).GetItem, `{"TableName":"orders","Key":{"PK":{"S":"ORDER#1"},"SK":{"S":"A"}}}`)
			clock.Advance(7 * time.Second)
			h, err := e.InsightsHistory(context.Background(), "orders", time.Minute, 5, 2*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			r := h.Report
			if len(h.KeySpaces) != 2 || h.KeySpaces[1].Index != "GSI2" || len(r.KeySpaces) != 2 {
				t.Fatalf("key spaces: %+v", h.KeySpaces)
			}
			if got := r.At.Sub(h.From).Seconds(); got != r.WindowSeconds {
				t.Fatalf("window from %v to %v is %v s, report says %v", h.From, r.At, got, r.WindowSeconds)
			}
			for i, s := range h.KeySpaces {
				var read, write float64
				for _, u := range s.Slots {
					read, write = read+u.ReadUnits, write+u.WriteUnits
				}
				rs := r.KeySpaces[i]
				if math.Abs(read/r.WindowSeconds-rs.ReadUnits) > 1e-9 || math.Abs(write/r.WindowSeconds-rs.WriteUnits) > 1e-9 || rs.WriteUnits == 0 {
					t.Errorf("%q: slots %.2f/%.2f units, report %.4f/%.4f a second over %v s", s.Index, read, write, rs.ReadUnits, rs.WriteUnits, r.WindowSeconds)
				}
				if !tc.throttle {
					if s.Heat != nil {
						t.Errorf("%q: heat without throttling", s.Index)
					}
					continue
				}
				if s.Heat == nil || len(s.Heat.Partitions) != len(rs.Partitions) || s.Heat.StepSeconds != 2 {
					t.Fatalf("%q: heat %+v for %d partitions", s.Index, s.Heat, len(rs.Partitions))
				}
				for j, p := range s.Heat.Partitions {
					var units float64
					thr := 0
					for k, secs := range s.Heat.Seconds {
						units += p.WriteUnits[k] * secs
						thr += p.WriteThrottled[k]
					}
					rp := rs.Partitions[j]
					if p.HashStart != rp.HashStart || math.Abs(units/r.WindowSeconds-rp.WriteUnits) > 1e-9 || thr != rp.WriteThrottled || p.WriteLimit != 10 {
						t.Errorf("%q partition %d: %.2f units, %d throttled; report %+v", s.Index, j, units, thr, rp)
					}
				}
			}
			if tc.throttle && (throttled == 0 || r.KeySpaces[1].Partitions == nil) {
				t.Fatalf("no write throttled (%d)", throttled)
			}
		})
	}
}
