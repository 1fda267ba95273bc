package main

import (
	"os"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// Field 2 holds spaces and a ')' to check counting from the last ')'.
	line := "4242 (node (x) y) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 75 3 2 20 0 11 0 98765 1000 100\n"
	s, err := parseStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if s.ppid != 17 || s.ticks != 250+75+3+2 || s.startTime != 98765 {
		t.Fatalf("got %+v", s)
	}
	if _, err := parseStat([]byte("1 (x) S 0")); err == nil {
		t.Fatal("short stat: want error")
	}
}

func TestSnapshotSelf(t *testing.T) {
	snap, err := snapshot([]int{os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap) < 1 {
		t.Fatal("own process missing from snapshot")
	}
	if _, err := snapshot([]int{1 << 30}); err == nil {
		t.Fatal("missing pid: want error")
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	if p := percentile(d, 0.5); p != 50 {
		t.Fatalf("p50 = %d", p)
	}
	if p := percentile(d, 0.99); p != 99 {
		t.Fatalf("p99 = %d", p)
	}
	if p := percentile(nil, 0.5); p != 0 {
		t.Fatalf("empty p50 = %d", p)
	}
}

func TestPidList(t *testing.T) {
	var p pidList
	if err := p.Set("1, 2,3"); err != nil {
		t.Fatal(err)
	}
	if err := p.Set("4"); err != nil {
		t.Fatal(err)
	}
	if len(p) != 4 || p[3] != 4 {
		t.Fatalf("got %v", p)
	}
	if err := p.Set("x"); err == nil {
		t.Fatal("want error")
	}
}
