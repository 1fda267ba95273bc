// Reads never return a write that is not yet durable (see "Durable
// reads" in the package documentation).

package pebble

import (
	"slices"
	"sync"
	"sync/atomic"
)

// inflight is one applied batch waiting for its WAL sync.
type inflight struct {
	done chan struct{} // closed once synced or failed
	err  error         // set before done is closed
}

// pendingWrites are the keys and ranges of the batches an instance has
// applied (so readers can see them) but not yet synced.
type pendingWrites struct {
	n      atomic.Int64 // batches in flight: 0 lets readers skip the lock
	mu     sync.Mutex
	keys   map[string]*inflight
	ranges []pendingRange
}

type pendingRange struct {
	lower, upper []byte // [lower, upper); an empty upper is unbounded
	f            *inflight
}

// add registers t's keys (writes, stamped keys as they will be written,
// ranges) as written by a batch about to be applied, and returns it.
// Called with the commit lock held, before the batch becomes visible.
func (p *pendingWrites) add(t *rwTxn, stamped [][]byte) *inflight {
	f := &inflight{done: make(chan struct{})}
	p.n.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.keys == nil {
		p.keys = map[string]*inflight{}
	}
	for _, w := range t.writes {
		p.keys[w.key] = f
	}
	for _, k := range stamped {
		p.keys[string(k)] = f
	}
	for _, r := range t.ranges {
		p.ranges = append(p.ranges, pendingRange{r[0], r[1], f})
	}
	return f
}

// finish records that f's batch is durable (err nil) or never will be,
// wakes its readers, and forgets its keys (unless a later batch wrote
// them again: that one's sync implies this one's).
func (p *pendingWrites) finish(t *rwTxn, stamped [][]byte, f *inflight, err error) {
	f.err = err
	close(f.done)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range t.writes {
		if p.keys[w.key] == f {
			delete(p.keys, w.key)
		}
	}
	for _, k := range stamped {
		if p.keys[string(k)] == f {
			delete(p.keys, string(k))
		}
	}
	if len(t.ranges) > 0 {
		kept := p.ranges[:0]
		for _, r := range p.ranges {
			if r.f != f {
				kept = append(kept, r)
			}
		}
		p.ranges = kept
	}
	p.n.Add(-1)
}

// forKey returns the batches in flight that wrote key or a range holding
// it.
func (p *pendingWrites) forKey(key []byte) []*inflight {
	if p.n.Load() == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var fs []*inflight
	if f := p.keys[string(key)]; f != nil {
		fs = append(fs, f)
	}
	for _, r := range p.ranges {
		if string(key) >= string(r.lower) && (len(r.upper) == 0 || string(key) < string(r.upper)) {
			fs = append(fs, r.f)
		}
	}
	return fs
}

// forRange returns the batches in flight that wrote a key in [lower,
// upper) (an empty bound is unbounded) or a range overlapping it.
func (p *pendingWrites) forRange(lower, upper []byte) []*inflight {
	if p.n.Load() == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// Batches in flight are few (one per writer waiting for an fsync), so
	// a linear check keeps fs free of duplicates without a map per Scan.
	var fs []*inflight
	for k, f := range p.keys {
		if k >= string(lower) && (len(upper) == 0 || k < string(upper)) && !slices.Contains(fs, f) {
			fs = append(fs, f)
		}
	}
	for _, r := range p.ranges {
		if (len(upper) == 0 || string(r.lower) < string(upper)) && (len(r.upper) == 0 || string(lower) < string(r.upper)) && !slices.Contains(fs, r.f) {
			fs = append(fs, r.f)
		}
	}
	return fs
}

// await waits until the batches fs are durable, or returns why one never
// will be (the instance broke).
func (in *instance) await(fs []*inflight) error {
	for _, f := range fs {
		select {
		case <-f.done:
		case <-in.broken:
			select {
			case <-f.done:
			default:
				return in.cause
			}
		}
		if f.err != nil {
			return f.err
		}
	}
	return nil
}
