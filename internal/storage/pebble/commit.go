// Committing a read-write transaction: the commit lock, the conflict
// check, applying and syncing the batch, and publishing what it wrote.

package pebble

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/dynago/dynago/internal/storage"
)

// commit applies t's batch (which it then owns) on the instance and waits
// until it is durable. It returns storage.ErrConflict if t read a key a
// newer commit wrote, or began on an instance since replaced, and an
// error wrapping storage.ErrUnavailable if the instance is broken or
// breaks before the batch is durable (the write's outcome is then
// unknown, as after a crash).
//
// The batch is applied and synced by a goroutine of its own, so that a
// writer is answered as soon as the instance breaks even if Pebble never
// returns (a commit pipeline left locked, a flush that never ends).
func (in *instance) commit(t *rwTxn) error {
	if in.s.cur.Load() != in {
		t.batch.Close()
		return storage.ErrConflict
	}
	if err := in.lock(); err != nil {
		t.batch.Close()
		return err
	}
	done := make(chan error, 1)
	go func() { done <- in.applyAndSync(t) }()
	select {
	case err := <-done:
		return err
	case <-in.broken:
		select {
		case err := <-done: // it finished as the instance broke
			return err
		default:
			return in.cause
		}
	}
}

// applyAndSync runs with the commit lock held, and releases it once the
// batch is applied; then it waits for the WAL sync.
func (in *instance) applyAndSync(t *rwTxn) error {
	if err := in.apply(t); err != nil {
		return err
	}
	err := t.batch.SyncWait()
	if err != nil {
		err = in.fail(fmt.Errorf("WAL sync: %w", err))
	} else {
		t.batch.Close()
	}
	in.pending.finish(t, t.stampedKeys, t.inflight, err)
	return err
}

// apply validates t's read set and applies its batch, releasing the
// commit lock whatever happens. A panic in Pebble breaks the instance;
// the batch is then left to the garbage collector, not closed, since
// Pebble may still hold it.
func (in *instance) apply(t *rwTxn) (err error) {
	defer func() { <-in.sem }()
	defer func() {
		if err != nil && t.inflight != nil { // readers of its keys must not wait for ever
			in.pending.finish(t, t.stampedKeys, t.inflight, err)
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			err = in.fail(fmt.Errorf("pebble panicked applying a batch: %v", p))
		}
	}()
	if err := in.conflicts(t); err != nil {
		t.batch.Close()
		return err
	}
	s := in.s
	stamp := s.stamp.Load()
	if len(t.stamped) > 0 {
		stamp++
		var st [storage.StampLen]byte
		binary.BigEndian.PutUint64(st[:], stamp)
		for i, w := range t.stamped {
			binary.BigEndian.PutUint16(st[8:], uint16(i))
			key := make([]byte, 0, len(w.prefix)+len(st)+len(w.suffix))
			key = append(append(append(key, w.prefix...), st[:]...), w.suffix...)
			if err := t.batch.Set(key, w.value, nil); err != nil {
				t.batch.Close()
				return err
			}
			t.stampedKeys = append(t.stampedKeys, key)
		}
		if err := t.batch.Set(stampKey, st[:8], nil); err != nil {
			t.batch.Close()
			return err
		}
	}
	// Registered before the batch becomes visible: a reader that sees it
	// waits for its sync (pending.go).
	t.inflight = in.pending.add(t, t.stampedKeys)
	if err := in.db.ApplyNoSyncWait(t.batch, pebble.Sync); err != nil {
		return in.fail(fmt.Errorf("apply: %w", err))
	}
	if !s.written.Load() { // a load, not a store, on every commit after the first
		s.written.Store(true)
	}
	return in.publish(t, stamp)
}

// conflicts returns storage.ErrConflict if a key t read was written by a
// commit newer than t's start.
func (in *instance) conflicts(t *rwTxn) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if t.start < in.horizon && len(t.reads) > 0 {
		return storage.ErrConflict
	}
	for _, k := range t.reads {
		if seq, ok := in.recent[k]; ok && seq > t.start {
			return storage.ErrConflict
		}
	}
	return nil
}

// lock takes the commit lock, or fails once the instance is broken or
// after commitLockWait.
func (in *instance) lock() error {
	select {
	case in.sem <- struct{}{}:
	default:
		t := time.NewTimer(commitLockWait)
		defer t.Stop()
		select {
		case in.sem <- struct{}{}:
		case <-in.broken:
			return in.cause
		case <-t.C:
			return fmt.Errorf("%w: a write waited %v for the commit lock", storage.ErrUnavailable, commitLockWait)
		}
	}
	if in.isBroken() {
		<-in.sem
		return in.cause
	}
	return nil
}

// publish records an applied batch: its stamp, its keys in recent, the
// read cache. A retired instance publishes nothing: its successor owns
// the counters, and the write, on a fenced instance, never becomes
// durable.
func (in *instance) publish(t *rwTxn, stamp uint64) error {
	s := in.s
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.retired {
		return fmt.Errorf("%w: the store was reopened during the write", storage.ErrUnavailable)
	}
	s.stamp.Store(stamp)
	seq := s.seq.Load() + 1
	for _, w := range t.writes {
		in.recent[w.key] = seq
		if s.cacheable([]byte(w.key)) {
			if _, ok := in.cache.Load(w.key); ok {
				// Replace, not delete: the entry is current again at once.
				in.cache.Store(w.key, cached{value: w.value, absent: w.delete})
			}
		}
	}
	for _, r := range t.ranges {
		in.cache.Range(func(k, _ any) bool {
			if key := k.(string); key >= string(r[0]) && (len(r[1]) == 0 || key < string(r[1])) {
				in.cache.Delete(k)
				in.cached--
			}
			return true
		})
	}
	s.seq.Store(seq)
	if len(t.ranges) > 0 {
		in.horizon = seq
	}
	if len(in.recent) > recentLimit {
		in.prune()
	}
	return nil
}

// prune drops the oldest entries of recent until at most recentKeep
// remain, and moves the horizon past them. Called with mu held, when
// recent has grown past recentLimit: it then frees at least
// recentLimit-recentKeep entries, so its cost per commit stays constant.
func (in *instance) prune() {
	seqs := make([]uint64, 0, len(in.recent))
	for _, v := range in.recent {
		seqs = append(seqs, v)
	}
	slices.Sort(seqs)
	h := seqs[len(seqs)-recentKeep-1] // keep only entries newer than h
	for k, v := range in.recent {
		if v <= h {
			delete(in.recent, k)
		}
	}
	in.horizon = max(in.horizon, h)
}
