package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dynago/dynago/internal/storage"
)

// Leases: background duties done once per cluster.
//
// Several dynago nodes may serve one store (TiKV). The TTL sweep, stream
// upkeep, index backfills and storage garbage collection are each run
// by one node at a time: the holder of the duty's lease, a key
//
//	'l' '/' duty  →  holder node ID (8 bytes) | expiry (8 bytes, Unix ns)
//
// taken or renewed (once a third of its time has passed) in a read-write
// transaction before each round of the duty, and taken over by another node once it expires (a node that
// stopped or lost the store). Close releases the leases a node holds, so
// a replacement takes over at its next tick. Leases save work; they are
// not what makes duties correct: every write a duty makes is a
// transaction that is safe to repeat (a TTL delete re-checks the expiry,
// a shard rollover re-reads the stream, a backfill batch re-reads its
// items), so two nodes that briefly both think they hold a lease (clock
// skew past the lease time) waste work and conflict, nothing more.
// Expiry uses each node's wall clock, not Options.Now, which tests set.

// leasePrefix starts every lease key.
const leasePrefix = "l/"

// minLease is the shortest lease a duty takes.
const minLease = 10 * time.Second

// leases tracks the leases this engine holds, to release them on Close.
type leases struct {
	mu   sync.Mutex
	held map[string]bool
}

// holdLease takes or renews the lease of duty for ttl and reports
// whether this node holds it.
func (e *Engine) holdLease(ctx context.Context, duty string, ttl time.Duration) (bool, error) {
	key := []byte(leasePrefix + duty)
	var held bool
	err := e.update(ctx, func(tx storage.Txn) error {
		now := time.Now() // wallclock: lease expiries are compared across nodes (see Leases above)
		v, err := tx.Get(key)
		switch {
		case errors.Is(err, storage.ErrNotFound):
		case err != nil:
			return fmt.Errorf("read lease %q: %w", key, err)
		case len(v) != 16:
			return fmt.Errorf("corrupt lease %q: %x", key, v)
		default:
			holder, expiry := binary.BigEndian.Uint64(v), int64(binary.BigEndian.Uint64(v[8:]))
			if holder != e.nodeID && now.UnixNano() < expiry {
				held = false
				return nil
			}
			if holder == e.nodeID && time.Duration(expiry-now.UnixNano()) > ttl*2/3 {
				held = true // renewed recently: no write
				return nil
			}
		}
		held = true
		out := binary.BigEndian.AppendUint64(make([]byte, 0, 16), e.nodeID)
		return tx.Set(key, binary.BigEndian.AppendUint64(out, uint64(now.Add(ttl).UnixNano())))
	})
	e.leases.mu.Lock()
	defer e.leases.mu.Unlock()
	if e.leases.held == nil {
		e.leases.held = map[string]bool{}
	}
	if err == nil && held {
		e.leases.held[duty] = true
	} else {
		delete(e.leases.held, duty)
	}
	return held && err == nil, err
}

// releaseLeases deletes the leases this node holds, so that another node
// takes the duties over at once.
func (e *Engine) releaseLeases(ctx context.Context) {
	duties := func() []string {
		e.leases.mu.Lock()
		defer e.leases.mu.Unlock()
		duties := make([]string, 0, len(e.leases.held))
		for d := range e.leases.held {
			duties = append(duties, d)
		}
		e.leases.held = nil
		return duties
	}()
	for _, duty := range duties {
		e.releaseLease(ctx, duty)
	}
}

// releaseLease deletes one lease if this node still holds it.
func (e *Engine) releaseLease(ctx context.Context, duty string) {
	key := []byte(leasePrefix + duty)
	err := e.update(ctx, func(tx storage.Txn) error {
		v, err := tx.Get(key)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read lease %q: %w", key, err)
		}
		if len(v) == 16 && binary.BigEndian.Uint64(v) == e.nodeID {
			return tx.Delete(key)
		}
		return nil
	})
	if err != nil {
		e.opts.Logger.Warn("release lease", "duty", duty, "err", err)
	}
	e.leases.mu.Lock()
	defer e.leases.mu.Unlock()
	delete(e.leases.held, duty)
}

// duty runs fn every interval until Close, on whichever node holds the
// duty's lease, logging its errors as name.
func (e *Engine) duty(interval time.Duration, name string, fn func(ctx context.Context) error) {
	ttl := max(3*interval, minLease)
	e.every(interval, name, func(ctx context.Context) error {
		held, err := e.holdLease(ctx, name, ttl)
		if err != nil || !held {
			return err
		}
		return fn(ctx)
	})
}
