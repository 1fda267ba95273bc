package engine

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/storage"
)

// TestLeases: one node at a time holds a duty's lease; another takes it
// when it expires or is released.
func TestLeases(t *testing.T) {
	a, st := openEngine(t, Options{}, "")
	b := New(st, Options{})
	defer b.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		node *Engine
		duty string
		ttl  time.Duration
		want bool
	}{
		{a, "x", time.Hour, true},
		{b, "x", time.Hour, false}, // a holds it
		{a, "x", time.Hour, true},  // renewed by its holder
		{b, "y", time.Millisecond, true},
	} {
		held, err := tc.node.holdLease(ctx, tc.duty, tc.ttl)
		if err != nil || held != tc.want {
			t.Fatalf("holdLease(%s) = %v, %v; want %v", tc.duty, held, err, tc.want)
		}
	}
	time.Sleep(5 * time.Millisecond)
	if held, _ := a.holdLease(ctx, "y", time.Hour); !held {
		t.Fatal("an expired lease was not taken over")
	}
	a.releaseLease(ctx, "x")
	if held, _ := b.holdLease(ctx, "x", time.Hour); !held {
		t.Fatal("a released lease was not taken")
	}
}

// TestLeases_DutyMovesWhenItsNodeCloses: of two nodes sweeping TTL, one
// holds the duty; when it closes, the other takes it over.
func TestLeases_DutyMovesWhenItsNodeCloses(t *testing.T) {
	first, st := openEngine(t, Options{TTLSweep: 10 * time.Millisecond}, "")
	second := New(st, Options{TTLSweep: 10 * time.Millisecond})
	defer second.Close()
	holder := func() uint64 {
		var id uint64
		first.read(context.Background(), func(tx storage.Txn) error {
			if v, err := tx.Get([]byte(leasePrefix + "TTL sweep")); err == nil && len(v) == 16 {
				id = binary.BigEndian.Uint64(v)
			}
			return nil
		})
		return id
	}
	waitFor := func(what string, ok func(uint64) bool) uint64 {
		deadline := time.Now().Add(20 * time.Second)
		for {
			if id := holder(); ok(id) {
				return id
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the lease holder is %x", what, holder())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	h := waitFor("a node takes the duty", func(id uint64) bool { return id != 0 })
	time.Sleep(100 * time.Millisecond) // ten ticks: the duty stays put
	if now := holder(); now != h {
		t.Fatalf("the duty moved from %x to %x while both nodes ran", h, now)
	}
	byID := map[uint64]*Engine{first.nodeID: first, second.nodeID: second}
	byID[h].Close()
	waitFor("the other node takes over", func(id uint64) bool { return id != 0 && id != h })
}
