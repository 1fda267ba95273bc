package throttle

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestPartitions follows DynamoDB's published initial partition counts.
func TestPartitions(t *testing.T) {
	for _, tc := range []struct {
		s    Settings
		want int
	}{
		{Settings{ReadUnits: 5, WriteUnits: 5}, 1},
		{Settings{ReadUnits: 3000, WriteUnits: 0}, 1},
		{Settings{ReadUnits: 3000, WriteUnits: 1000}, 2},
		{Settings{ReadUnits: 7500, WriteUnits: 2000}, 5}, // 2.5 + 2 → 5 (developer guide's example shape)
		{Settings{OnDemand: true}, 4},
	} {
		if got := Partitions(tc.s); got != tc.want {
			t.Errorf("Partitions(%+v) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// drive sends one demand of units every step for d of clock time and
// returns how many were admitted.
func drive(l *Limiter, now *time.Time, d Demand, step, dur time.Duration) (admitted, throttled int, last Verdict) {
	for end := now.Add(dur); now.Before(end); *now = now.Add(step) {
		if v, ok := l.Admit(*now, []Demand{d}); !ok {
			throttled++
			last = v
			continue
		}
		l.Charge(*now, []Demand{d})
		admitted++
	}
	return admitted, throttled, last
}

// TestHotKey_HeldToThePartitionLimit: on an on-demand table with far more
// capacity than one partition, writes of 1 unit to one key at 2,000 a
// second are held to the partition's 1,000 (scaled by 10: 100 of 200),
// and the verdict is the key range; the same rate spread over many keys
// passes.
func TestHotKey_HeldToThePartitionLimit(t *testing.T) {
	l := New(Options{Scale: 10})
	now := t0
	hot := Demand{Space: Space{Table: 1}, Settings: Settings{OnDemand: true}, Hash: 42, Write: true, Units: 1}
	ok, thr, v := drive(l, &now, hot, 5*time.Millisecond, 10*time.Second) // 200/s for 10 s
	// 100 a second for 10 s, plus the partition's first second of burst.
	if ok < 1000 || ok > 1101 || thr == 0 || v.Limit != KeyRange || !v.Write {
		t.Fatalf("hot key: %d admitted, %d throttled, verdict %+v; want about 1,000 and KeyRange", ok, thr, v)
	}
	l = New(Options{Scale: 10})
	now = t0
	throttled := 0
	for i := 0; i < 2000; i++ { // 200/s over 10 s, each on another key
		d := hot
		d.Hash = uint64(i) * 0x9E3779B97F4A7C15
		if _, ok := l.Admit(now, []Demand{d}); !ok {
			throttled++
		} else {
			l.Charge(now, []Demand{d})
		}
		now = now.Add(5 * time.Millisecond)
	}
	if throttled != 0 {
		t.Fatalf("spread keys: %d throttled, want 0 (four partitions of 100/s)", throttled)
	}
}

// TestProvisioned_BurstThenRate: a provisioned table with 10 write units
// serves its 300 seconds of saved burst, then its provisioned rate.
func TestProvisioned_BurstThenRate(t *testing.T) {
	l := New(Options{})
	now := t0
	d := Demand{Space: Space{Table: 2}, Settings: Settings{ReadUnits: 10, WriteUnits: 10}, Hash: 7, Write: true, Units: 1}
	// 1 a millisecond: the partition allows 1,000/s, the table 10/s plus a burst of 3,000.
	ok, _, v := drive(l, &now, d, time.Millisecond, 4*time.Second)
	if ok < 3000 || ok > 3041 || v.Limit != Provisioned {
		t.Fatalf("burst: %d admitted, verdict %+v; want the 3,000 saved plus 10/s", ok, v)
	}
	ok, _, _ = drive(l, &now, d, time.Millisecond, 10*time.Second)
	if ok < 99 || ok > 101 {
		t.Fatalf("after the burst: %d admitted in 10 s, want 100", ok)
	}
}

// TestOnDemand_Max: an OnDemandThroughput maximum caps the table below
// what its partitions allow.
func TestOnDemand_Max(t *testing.T) {
	l := New(Options{})
	now := t0
	// Spread over the partitions (4 × 1,000/s), capped at 50/s.
	capped := Settings{OnDemand: true, MaxWriteUnits: 50}
	admitted, throttled := 0, 0
	var last Verdict
	for i := 0; i < 1000; i++ { // 1,000 over one second
		d := Demand{Space: Space{Table: 3}, Settings: capped, Hash: uint64(i) * 0x9E3779B97F4A7C15, Write: true, Units: 1}
		if v, ok := l.Admit(now, []Demand{d}); ok {
			l.Charge(now, []Demand{d})
			admitted++
		} else {
			throttled++
			last = v
		}
		now = now.Add(time.Millisecond)
	}
	if admitted > 101 || last.Limit != MaxOnDemand {
		t.Fatalf("capped: %d admitted, verdict %+v; want about 100 (50 saved + 50/s) and MaxOnDemand", admitted, last)
	}
}

// TestSettingsChange_RebuildsState: new throughput settings take effect.
func TestSettingsChange_RebuildsState(t *testing.T) {
	l := New(Options{})
	d := Demand{Space: Space{Table: 5}, Settings: Settings{ReadUnits: 1, WriteUnits: 1}, Write: true, Units: 400}
	l.Charge(t0, []Demand{d})
	if _, ok := l.Admit(t0, []Demand{d}); ok {
		t.Fatal("a table 100 units in debt was admitted")
	}
	d.Settings.WriteUnits = 1000
	if _, ok := l.Admit(t0, []Demand{d}); !ok {
		t.Fatal("raised throughput was not applied")
	}
}
