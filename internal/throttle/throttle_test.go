package throttle

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"
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

// key returns a key position in partition-key hash h with sort key sk.
func key(h uint64, sk string) []byte {
	return append(binary.BigEndian.AppendUint64(nil, h), sk...)
}

// serve sends rate demands a second for dur, each made by mk(i), and
// returns how many were admitted in the last second.
func serve(l *Limiter, now *time.Time, rate int, dur time.Duration, mk func(i int) Demand) (lastSecond int) {
	lastSecond, _ = serveCounting(l, now, rate, dur, mk)
	return lastSecond
}

// serveCounting is serve that also returns how many were throttled.
func serveCounting(l *Limiter, now *time.Time, rate int, dur time.Duration, mk func(i int) Demand) (lastSecond, throttled int) {
	step := time.Second / time.Duration(rate)
	end := now.Add(dur)
	for i := 0; now.Before(end); i++ {
		d := []Demand{mk(i)}
		if _, ok := l.Admit(*now, d); ok {
			l.Charge(*now, d)
			if end.Sub(*now) <= time.Second {
				lastSecond++
			}
		} else {
			throttled++
		}
		*now = now.Add(step)
	}
	return lastSecond, throttled
}

// TestHeatSplit: one partition key whose writes spread over its sort
// keys runs hot at its partition's limit; after HeatSplitAfter the
// partition splits between the sort keys and the key serves double. A
// single hot item, or a sort key that only grows (a timestamp), runs
// hot just as long and never splits: a split would not help it.
//
// Source: https://aws.amazon.com/blogs/database/part-3-scaling-dynamodb-how-partitions-hot-keys-and-split-for-heat-impact-performance/
// and bp-partition-key-design ("a single item ... still limited").
func TestHeatSplit(t *testing.T) {
	settings := Settings{WriteUnits: 1000} // one partition; the table holds 10/s (scaled) and 300 s of burst
	for _, tc := range []struct {
		name      string
		sk        func(i int) string
		wantSplit bool
	}{
		{"sort keys spread", func(i int) string { return fmt.Sprintf("ORDER#%04d", (i*7919)%10000) }, true},
		{"one item", func(int) string { return "ORDER#1" }, false},
		{"growing sort key", func(i int) string { return fmt.Sprintf("2026-11-30T%08d", i) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(Options{Scale: 100, HeatSplitAfter: 10 * time.Second})
			now := t0
			mk := func(i int) Demand {
				return Demand{Space: Space{Table: 1}, Settings: settings, Hash: 9, Key: key(9, tc.sk(i)), Write: true, Units: 1}
			}
			// 30 a second against a partition of 10 (scaled) for 30 s.
			start := now
			got, throttled := serveCounting(l, &now, 30, 30*time.Second, mk)
			parts := l.PartitionCount(Space{Table: 1})
			// Every throttled request stays counted across the split.
			load, _ := l.Load(Space{Table: 1}, start, now)
			counted := 0
			for _, p := range load.Partitions {
				counted += p.WriteThrottled
			}
			if counted != throttled || throttled == 0 {
				t.Fatalf("partitions count %d throttled requests, want %d", counted, throttled)
			}
			if split := parts > 1; split != tc.wantSplit {
				t.Fatalf("%d partitions after 30 s hot, want split %v", parts, tc.wantSplit)
			}
			if want := 10; tc.wantSplit {
				if got < 2*want-1 {
					t.Fatalf("after the split the key served %d/s, want at least %d", got, 2*want-1)
				}
			} else if got > want+1 {
				t.Fatalf("served %d/s without a split, want at most %d", got, want+1)
			}
		})
	}
}

// TestOnDemandGrowth: an on-demand table starts with four partitions
// (4,000 write units a second, scaled 40) and keeps double its previous
// peak available: traffic that steps up to just under double its peak
// is served in full, and the partitions grow with each new peak.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html
// ("up to double your previous peak traffic").
func TestOnDemandGrowth(t *testing.T) {
	l := New(Options{Scale: 100})
	now := t0
	sp := Space{Table: 4}
	mk := func(i int) Demand {
		return Demand{Space: sp, Settings: Settings{OnDemand: true}, Hash: uint64(i) * 0x9E3779B97F4A7C15, Write: true, Units: 1}
	}
	if got := serve(l, &now, 32, 5*time.Second, mk); got != 32 { // peak 3,200
		t.Fatalf("32/s on a new table: served %d in the last second", got)
	}
	if n := l.PartitionCount(sp); n != 7 {
		t.Fatalf("after a peak of 32/s: %d partitions, want 7 (double the peak over 10 a partition)", n)
	}
	// 64/s, under double the peak: the first second may lose a few to
	// uneven hash ranges, then the partitions grow again.
	if got := serve(l, &now, 64, 5*time.Second, mk); got != 64 {
		t.Fatalf("64/s after a peak of 32: served %d in the last second", got)
	}
	n := l.PartitionCount(sp)
	if n < 12 || n > 13 {
		t.Fatalf("after a peak of about 64/s: %d partitions, want 12 or 13", n)
	}
	load, ok := l.Load(sp, now.Add(-5*time.Second), now.Add(-time.Nanosecond)) // the 64/s run
	if !ok || len(load.Partitions) != n || load.PeakWriteUnits < 60 {
		t.Fatalf("Load: %+v", load)
	}
	var sum float64
	for _, p := range load.Partitions {
		sum += p.WriteUnits
		if p.WriteLimit != 10 {
			t.Fatalf("partition limit %v, want 10", p.WriteLimit)
		}
	}
	if sum < 63 || sum > 65 {
		t.Fatalf("partitions served %.1f/s in all, want 64", sum)
	}
}

// TestResize: a key space splits as its data passes 10 GB a partition.
func TestResize(t *testing.T) {
	l := New(Options{})
	sp, s := Space{Table: 6}, Settings{ReadUnits: 5, WriteUnits: 5}
	l.Resize(t0, sp, s, 9<<30)
	if n := l.PartitionCount(sp); n != 1 {
		t.Fatalf("9 GB: %d partitions", n)
	}
	l.Resize(t0, sp, s, 35<<30)
	if n := l.PartitionCount(sp); n != 4 {
		t.Fatalf("35 GB: %d partitions, want 4", n)
	}
	l.Resize(t0, sp, s, 1<<30) // partitions never merge
	if n := l.PartitionCount(sp); n != 4 {
		t.Fatalf("shrunk to 1 GB: %d partitions, want still 4", n)
	}
}

// TestLoad_CountsThrottles: Load reports units and throttled requests
// per partition.
func TestLoad_CountsThrottles(t *testing.T) {
	l := New(Options{Scale: 100})
	now := t0
	sp := Space{Table: 7}
	serve(l, &now, 20, 3*time.Second, func(int) Demand {
		return Demand{Space: sp, Settings: Settings{ReadUnits: 5, WriteUnits: 5}, Hash: 1, Write: false, Units: 1}
	})
	load, _ := l.Load(sp, now.Add(-3*time.Second), now.Add(-time.Nanosecond))
	if len(load.Partitions) != 1 || load.Partitions[0].ReadUnits == 0 || load.Partitions[0].ReadThrottled == 0 {
		t.Fatalf("Load: %+v", load)
	}
}

// TestHashBound: the initial partitions are equal hash ranges.
func TestHashBound(t *testing.T) {
	for n := 1; n < 40; n++ {
		for i := 1; i < n; i++ {
			h := binary.BigEndian.Uint64(hashBound(i, n))
			if hi, _ := bits.Mul64(h, uint64(n)); int(hi) != i {
				t.Fatalf("hashBound(%d, %d) = %x is not the first hash of range %d", i, n, h, i)
			}
			if hi, _ := bits.Mul64(h-1, uint64(n)); int(hi) != i-1 {
				t.Fatalf("hashBound(%d, %d) = %x: %x is not in range %d", i, n, h, h-1, i-1)
			}
		}
	}
}

// BenchmarkAdmitCharge: one single-item write's limiter work (admit,
// then charge) on a table of four partitions.
func BenchmarkAdmitCharge(b *testing.B) {
	l := New(Options{})
	now := t0
	ds := make([][]Demand, 1024)
	for i := range ds {
		h := uint64(i) * 0x9E3779B97F4A7C15
		ds[i] = []Demand{{Space: Space{Table: 1}, Settings: Settings{OnDemand: true}, Hash: h, Key: key(h, "SK#1"), Write: true, Units: 1}}
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d := ds[i%len(ds)]
		now = now.Add(time.Millisecond)
		if _, ok := l.Admit(now, d); ok {
			l.Charge(now, d)
		}
	}
}

// TestLimiter_Concurrent: admissions, charges, splits and reports from
// many goroutines on one key space (run with -race).
func TestLimiter_Concurrent(t *testing.T) {
	l := New(Options{Scale: 100, HeatSplitAfter: time.Second})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			now := t0
			for i := range 2000 {
				d := []Demand{{Space: Space{Table: 1}, Settings: Settings{OnDemand: true}, Hash: 5, Key: key(5, fmt.Sprintf("SK#%04d", (i*31+g)%1000)), Write: true, Units: 1}}
				if _, ok := l.Admit(now, d); ok {
					l.Charge(now, d)
				}
				if i%500 == 0 {
					l.Load(Space{Table: 1}, now.Add(-time.Minute), now)
					l.PartitionCount(Space{Table: 1})
				}
				now = now.Add(5 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if n := l.PartitionCount(Space{Table: 1}); n < 4 {
		t.Fatalf("%d partitions", n)
	}
}
