package pebble

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/storage"
)

// TestRecentWrites_BoundedWhateverTheKeysPerCommit: with many keys per
// commit (index entries, transactions) the table of recent writes stays
// under recentLimit and each commit stays cheap; a transaction that began
// before the pruned horizon still conflicts rather than missing a write.
func TestRecentWrites_BoundedWhateverTheKeysPerCommit(t *testing.T) {
	s, err := Open(Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	early, err := s.Begin(ctx, storage.ReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := early.Get([]byte("k0-0")); !errors.Is(err, storage.ErrNotFound) {
		t.Fatal(err)
	}
	const commits, perCommit = 30_000, 10 // 300,000 keys > recentLimit
	start := time.Now()
	for c := 0; c < commits; c++ {
		tx, err := s.Begin(ctx, storage.ReadWrite)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < perCommit; k++ {
			tx.Set(fmt.Appendf(nil, "k%d-%d", c, k), []byte("v"))
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	in := s.cur.Load()
	in.mu.Lock()
	n := len(in.recent)
	in.mu.Unlock()
	if n > recentLimit {
		t.Fatalf("%d recent writes tracked, limit %d", n, recentLimit)
	}
	early.Set([]byte("other"), []byte("v"))
	if err := early.Commit(); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("a transaction older than the horizon committed: %v", err)
	}
	t.Logf("%d commits of %d keys in %v; %d keys tracked", commits, perCommit, time.Since(start), n)
}
