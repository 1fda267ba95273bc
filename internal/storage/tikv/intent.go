package tikv

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/dynago/dynago/internal/storage"
)

// Intents: large stamped transactions.
//
// A transaction of more than intentThreshold bytes may take longer than
// the stamp window to prewrite. Before its prewrite it commits a small
// intent key, under the namespace and a 0x01 byte (outside every key the
// engine writes),
//
//	ns 0x01 "intent/" | stamp (8 bytes) | start timestamp (8 bytes)
//
// in a transaction held to the ordinary window, and then gets the long
// window (Options.LongStampWindow) for its own commit. StampHorizon keeps
// the horizon below every intent that is younger than the long window,
// so readers wait for the large transaction instead of skipping its
// records; the intent is deleted when the transaction ends, or ignored
// once the long window has passed (its transaction can no longer
// commit), and CollectGarbage deletes those.

// intentThreshold is the size of a transaction's writes (bytes) above
// which a stamped transaction writes an intent.
const intentThreshold = 1 << 20

// intentPoll is how often StampHorizon looks again at a live intent.
const intentPoll = 20 * time.Millisecond

// DefaultLongStampWindow is the default Options.LongStampWindow.
const DefaultLongStampWindow = time.Minute

// intentRange returns the namespace's intent key range.
func (s *Store) intentRange() (lo, hi []byte) {
	lo = append(append([]byte(nil), s.end...), "intent/"...)
	return lo, append(append([]byte(nil), s.end...), "intent0"...)
}

// writeIntent commits the intent of a stamped transaction and returns
// its key; ErrConflict if that took longer than the stamp window.
func (s *Store) writeIntent(ctx context.Context, stamp, startTS uint64) ([]byte, error) {
	lo, _ := s.intentRange()
	key := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(lo, stamp), startTS)
	kt, err := s.kv.Begin()
	if err != nil {
		return nil, mapErr(err)
	}
	if err := kt.Set(key, []byte{1}); err != nil {
		kt.Rollback()
		return nil, mapErr(err)
	}
	late := false
	kt.SetCommitTSUpperBoundCheck(func(commitTS uint64) bool {
		late = pastStamp(stamp, commitTS) >= s.window
		return !late
	})
	if err := kt.Commit(ctx); err != nil {
		if late {
			return nil, fmt.Errorf("%w (intent committed past the %v stamp window)", storage.ErrConflict, s.window)
		}
		return nil, mapErr(err)
	}
	return key, nil
}

// deleteIntent removes an intent once its transaction has ended; an
// intent left behind (a node that stopped) expires after the long window.
func (s *Store) deleteIntent(key []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	kt, err := s.kv.Begin()
	if err == nil {
		kt.Delete(key)
		err = kt.Commit(ctx)
	}
	if err != nil {
		s.logger.Warn("tikv: delete stamp intent (it expires on its own)", "err", err)
	}
}

// oldestIntent returns the smallest stamp of an intent younger than the
// long window at now, or 0.
func (s *Store) oldestIntent(ctx context.Context, now uint64) (uint64, error) {
	lo, hi := s.intentRange()
	it, err := s.kv.GetSnapshot(now).Iter(lo, hi)
	if err != nil {
		return 0, mapErr(err)
	}
	defer it.Close()
	for ; it.Valid(); err = it.Next() {
		if err != nil {
			return 0, mapErr(err)
		}
		k := it.Key()[len(lo):]
		if len(k) != 16 {
			continue
		}
		stamp := binary.BigEndian.Uint64(k)
		if pastStamp(stamp, now) < s.longWindow {
			return stamp, nil // keys are in stamp order
		}
	}
	return 0, mapErr(err)
}

// deleteExpiredIntents removes the intents older than the long window.
func (s *Store) deleteExpiredIntents(ctx context.Context, now uint64) error {
	lo, hi := s.intentRange()
	kt, err := s.kv.Begin()
	if err != nil {
		return mapErr(err)
	}
	it, err := kt.GetSnapshot().Iter(lo, hi)
	if err != nil {
		kt.Rollback()
		return mapErr(err)
	}
	n := 0
	for ; it.Valid() && err == nil; err = it.Next() {
		k := it.Key()
		if len(k) == len(lo)+16 && pastStamp(binary.BigEndian.Uint64(k[len(lo):]), now) < s.longWindow {
			break
		}
		kt.Delete(bytes.Clone(k))
		n++
	}
	it.Close()
	if err != nil || n == 0 {
		kt.Rollback()
		return mapErr(err)
	}
	return mapErr(kt.Commit(ctx))
}
