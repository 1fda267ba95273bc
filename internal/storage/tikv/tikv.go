// Package tikv implements storage.Store on TiKV through
// github.com/tikv/client-go/v2, so that any number of stateless dynago
// nodes can serve the same tables. It owns the mapping of dynago's
// transaction contract onto TiKV's percolator transactions; the engine
// above it is the same as on the embedded Pebble store.
//
// # Transactions
//
// A ReadWrite transaction is an optimistic TiKV transaction. TiKV gives
// snapshot isolation: its prewrite fails a key written by a transaction
// that committed after this one began, but only for keys this one writes.
// dynago's contract also fails a transaction whose read keys changed (a
// condition check on one item, then a write of another, must not commit
// on a stale read), so Commit locks every key Get read: TiKV writes an
// Op_Lock record for each, and its prewrite checks those keys for newer
// commits like written ones. That is how TiDB's SELECT FOR UPDATE works
// in optimistic mode, and it makes the transactions serializable for the
// keys they read. Scan does not lock, as the contract allows. A
// transaction that wrote nothing commits nothing.
//
// Locks are exclusive, though: every write of a table reads the table's
// catalog descriptor, and locking it would make all writes of a table
// conflict with each other. Keys chosen by Options.ValidatedReads (the
// catalog) are validated instead: between the prewrite and the commit,
// once the commit timestamp is chosen (client-go's commit-TS check, the
// hook TiDB uses for its schema lease), Commit reads them again at the
// commit timestamp and fails with ErrConflict if one changed. A
// transaction that changes the catalog and is still uncommitted is then
// serialized after this one. Validation alone is not enough for ordinary
// keys: two transactions that each read what the other writes could
// both validate before either commits (write skew), which the locks
// prevent.
//
// ReadOnly transactions take a fresh timestamp from PD for each Get and
// Scan, so each read sees every commit before it; Snapshot transactions
// read at the timestamp taken at Begin.
//
// # Stamped writes
//
// TiKV chooses a transaction's commit timestamp after its keys are
// written, so a key cannot contain it. A stamped transaction instead
// takes a fresh timestamp s from PD at Commit, writes its stamped keys
// with s, and refuses to commit (ErrConflict; the engine retries) if
// its commit timestamp is Options.StampWindow or more after s. Every
// stamp s that commits therefore commits before s + window, and at PD
// time now every stamp up to now - window has settled: StampHorizon
// returns that, waiting (at most the window) when the caller needs a
// stamp it has seen covered. A transaction with more than 1 MiB of
// writes may take longer than the window to prewrite: it first commits
// an intent holding its stamp, and StampHorizon keeps the horizon below
// the stamp until the transaction ends (see Intents, below). Stream readers read up to the horizon, so
// they never see a stamp filled in behind them; a record is readable at
// most a window after its commit. Two transactions that write
// or read-and-write the same key get stamps in their commit order (the
// later one began after the earlier committed); unrelated transactions
// may commit in a different order than their stamps, which no reader can
// tell apart.
//
// One case escapes both checks: when a reader meets the transaction's
// lock, TiKV may push the lock's minimum commit timestamp past the
// reader's, and the committer then retries the commit with a newer
// timestamp without running the check again (TiDB's schema check has
// the same gap). If that retry lands past the stamp window, a stream
// reader that read the shard in between has skipped the record; if a
// validated key changed in between, the transaction committed on the old
// catalog. The store logs either at error level and counts them in
// StampsPastWindow and StaleValidations. The first needs a commit RPC
// stalled for the whole window (half a second by default) while another
// request reads the same key; the second a catalog change (UpdateTable,
// a stream shard rollover) landing in the milliseconds between the two
// commit attempts.
//
// # Keys
//
// Every key is stored under Options.Namespace and a 0x00 byte, so one
// TiKV cluster can hold several dynago deployments, or sit beside TiDB
// (whose keys start with 't' and 'm').
//
// Sources: https://tikv.org/deep-dive/distributed-transaction/percolator/,
// https://tikv.org/deep-dive/distributed-transaction/optimistic-transaction/,
// https://docs.pingcap.com/tidb/stable/optimistic-transaction.
package tikv

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pingcaplog "github.com/pingcap/log"
	tikverr "github.com/tikv/client-go/v2/error"
	"github.com/tikv/client-go/v2/kv"
	"github.com/tikv/client-go/v2/oracle"
	"github.com/tikv/client-go/v2/tikv"
	"github.com/tikv/client-go/v2/txnkv"
	"github.com/tikv/client-go/v2/txnkv/transaction"
	"github.com/tikv/client-go/v2/txnkv/txnsnapshot"
	"go.uber.org/zap/zapcore"

	"github.com/dynago/dynago/internal/storage"
)

var (
	_ storage.Store            = (*Store)(nil)
	_ storage.GarbageCollector = (*Store)(nil)
)

// DefaultStampWindow is the default Options.StampWindow.
const DefaultStampWindow = 500 * time.Millisecond

// DefaultConnectTimeout is the default Options.ConnectTimeout.
const DefaultConnectTimeout = 20 * time.Second

// DefaultNamespace is the default Options.Namespace.
const DefaultNamespace = "dynago"

// Options configure a Store.
type Options struct {
	// PD lists the placement driver endpoints, host:port each. Open
	// connects to them; New ignores them.
	PD []string
	// Namespace prefixes every key (followed by a 0x00 byte); "" means
	// DefaultNamespace. Deployments with different namespaces share a
	// cluster without seeing each other. It must not contain a 0x00
	// byte (CheckNamespace).
	Namespace string
	// StampWindow bounds the time from a stamped transaction's stamp to
	// its commit timestamp (see the package documentation); 0 means
	// DefaultStampWindow. StampHorizon waits up to this long.
	StampWindow time.Duration
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// LongStampWindow bounds the commit of a large stamped transaction
	// (over 1 MiB of writes), which announces itself with an intent so
	// that stream readers wait for it; 0 means DefaultLongStampWindow.
	LongStampWindow time.Duration
	// ConnectTimeout bounds how long Open waits for PD; 0 means
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// ValidatedReads, when set, chooses keys that many read-write
	// transactions read and few write (for dynago, the catalog). A Get of
	// one is not locked at commit, which would make every transaction
	// that reads it conflict with every other; instead Commit checks,
	// after the prewrite and at the commit timestamp, that its value is
	// still the one read, and fails with ErrConflict if not.
	ValidatedReads func(key []byte) bool
}

// Store is a storage.Store on a TiKV cluster. It is safe for concurrent
// use.
type Store struct {
	kv     *tikv.KVStore
	owned  bool // Close closes kv
	prefix []byte
	end    []byte // first key past the namespace
	window time.Duration
	// longWindow bounds large stamped transactions (with an intent).
	longWindow time.Duration
	logger     *slog.Logger
	closed     atomic.Bool

	validate func(key []byte) bool

	// StampsPastWindow counts stamped transactions whose final commit
	// timestamp was StampWindow or more after their stamp (see the
	// package documentation).
	StampsPastWindow atomic.Int64
	// StaleValidations counts transactions that committed, pushed past
	// their checked commit timestamp, after a validated key changed.
	StaleValidations atomic.Int64
}

// Open connects to the TiKV cluster whose PD endpoints opts.PD lists.
// Errors: none of the endpoints answers within Options.ConnectTimeout.
func Open(opts Options) (*Store, error) {
	if len(opts.PD) == 0 {
		return nil, errors.New("tikv: no PD endpoints")
	}
	if err := CheckNamespace(opts.Namespace); err != nil {
		return nil, err
	}
	quietClientLogs.Do(func() { pingcaplog.SetLevel(zapcore.ErrorLevel) })
	timeout := opts.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	// client-go's PD client retries an unreachable PD for ever and takes
	// no context: wait for it at most timeout.
	type result struct {
		c   *txnkv.Client
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := txnkv.NewClient(opts.PD)
		done <- result{c, err}
	}()
	var c *txnkv.Client
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("tikv: connect to PD %s: %w", strings.Join(opts.PD, ","), r.err)
		}
		c = r.c
	case <-time.After(timeout):
		go func() { // close the client if it connects after all
			if r := <-done; r.err == nil {
				r.c.Close()
			}
		}()
		return nil, fmt.Errorf("tikv: no PD answered at %s within %v", strings.Join(opts.PD, ","), timeout)
	}
	s := New(c.KVStore, opts)
	s.owned = true
	return s, nil
}

// CheckNamespace accepts 1 to 64 of the characters A-Z a-z 0-9 . _ -,
// not starting with t or m (TiDB's keys start with those, and a
// namespace that shares a cluster with TiDB must not overlap them). ""
// stands for DefaultNamespace.
func CheckNamespace(ns string) error {
	if ns == "" {
		return nil
	}
	if len(ns) > 64 {
		return fmt.Errorf("tikv: namespace %q is longer than 64 characters", ns)
	}
	for _, r := range ns {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("tikv: namespace %q: only A-Z a-z 0-9 . _ - are allowed", ns)
		}
	}
	if ns[0] == 't' || ns[0] == 'm' {
		return fmt.Errorf("tikv: namespace %q starts with %q, as TiDB's keys do", ns, ns[:1])
	}
	return nil
}

// New returns a Store on an open client-go store (a real cluster's, or
// the mock cluster's of package tikvtest). Close does not close kv.
func New(kv *tikv.KVStore, opts Options) *Store {
	ns := opts.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	window := opts.StampWindow
	if window <= 0 {
		window = DefaultStampWindow
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	quietClientLogs.Do(func() { pingcaplog.SetLevel(zapcore.ErrorLevel) })
	prefix := append([]byte(ns), 0)
	end := append([]byte(ns), 1)
	long := opts.LongStampWindow
	if long <= 0 {
		long = DefaultLongStampWindow
	}
	return &Store{kv: kv, prefix: prefix, end: end, window: window, longWindow: max(long, window),
		logger: logger, validate: opts.ValidatedReads}
}

// quietClientLogs lowers client-go's own logger (pingcap/log, on
// stderr) to errors: at its default level it logs every lock met and
// every retried commit, which are normal under contention.
var quietClientLogs sync.Once

// KV returns the client-go store, for cluster-wide duties (GC).
func (s *Store) KV() *tikv.KVStore { return s.kv }

// Close releases the store; it closes the client only if Open made it.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return errors.New("tikv: store already closed")
	}
	if s.owned {
		return s.kv.Close()
	}
	return nil
}

// key returns k under the namespace.
func (s *Store) key(k []byte) []byte {
	out := make([]byte, 0, len(s.prefix)+len(k))
	return append(append(out, s.prefix...), k...)
}

// bounds maps a Scan's bounds into the namespace ("" is unbounded).
func (s *Store) bounds(lower, upper []byte) ([]byte, []byte) {
	lo, hi := s.prefix, s.end
	if len(lower) > 0 {
		lo = s.key(lower)
	}
	if len(upper) > 0 {
		hi = s.key(upper)
	}
	return lo, hi
}

// timestamp returns a fresh timestamp from PD.
func (s *Store) timestamp(ctx context.Context) (uint64, error) {
	ts, err := s.kv.GetOracle().GetTimestamp(ctx, &oracle.Option{TxnScope: oracle.GlobalTxnScope})
	if err != nil {
		return 0, fmt.Errorf("tikv: get timestamp: %w", err)
	}
	return ts, nil
}

// Begin starts a transaction.
func (s *Store) Begin(ctx context.Context, mode storage.Mode) (storage.Txn, error) {
	if s.closed.Load() {
		return nil, errors.New("tikv: store closed")
	}
	switch mode {
	case storage.ReadOnly:
		return &roTxn{s: s, ctx: ctx}, nil
	case storage.Snapshot:
		ts, err := s.timestamp(ctx)
		if err != nil {
			return nil, err
		}
		return &roTxn{s: s, ctx: ctx, snap: s.kv.GetSnapshot(ts)}, nil
	}
	kt, err := s.kv.Begin()
	if err != nil {
		return nil, fmt.Errorf("tikv: begin: %w", err)
	}
	return &rwTxn{s: s, ctx: ctx, kt: kt, reads: map[string]struct{}{},
		validated: map[string]validatedRead{}, written: map[string]struct{}{}}, nil
}

// DeleteRange removes every key in [lower, upper) with TiKV's
// DeleteRange, which drops all versions at once, outside any transaction.
func (s *Store) DeleteRange(ctx context.Context, lower, upper []byte) error {
	lo, hi := s.bounds(lower, upper)
	if _, err := s.kv.DeleteRange(ctx, lo, hi, 4); err != nil {
		return fmt.Errorf("tikv: delete range: %w", err)
	}
	return nil
}

// StampHorizon returns a commit stamp h such that every stamped write
// with a stamp at most h that ever commits is visible to transactions
// begun after it returns, and h >= need unless ctx ends first. With now
// PD's current time, every stamp up to now - StampWindow has settled (it
// committed within the window, before now, or never will), except the
// stamps of live intents, which hold the horizon just below them until
// their transaction ends or the long window passes. StampHorizon returns
// that, after waiting until it reaches need.
func (s *Store) StampHorizon(ctx context.Context, need uint64) (uint64, error) {
	for {
		now, err := s.timestamp(ctx)
		if err != nil {
			return 0, err
		}
		settled := oracle.ComposeTS(oracle.ExtractPhysical(now)-s.window.Milliseconds()-1, 0)
		wait := time.Duration(oracle.ExtractPhysical(need)-oracle.ExtractPhysical(settled))*time.Millisecond + time.Millisecond
		oldest, err := s.oldestIntent(ctx, now)
		if err != nil {
			return 0, err
		}
		if oldest != 0 && oldest <= settled {
			settled = oldest - 1
			wait = intentPoll // until its transaction ends
		}
		if settled >= need {
			return settled, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// CollectGarbage advances TiKV's GC safe point to keep before PD's
// current time: it resolves the locks older than that and lets TiKV drop
// the versions no snapshot at or after the safe point can read. A
// transaction older than keep then fails its reads (client-go's
// ErrGCTooEarly), so keep must exceed the longest transaction.
func (s *Store) CollectGarbage(ctx context.Context, keep time.Duration) error {
	now, err := s.timestamp(ctx)
	if err != nil {
		return err
	}
	if err := s.deleteExpiredIntents(ctx, now); err != nil {
		return err
	}
	safePoint := oracle.ComposeTS(oracle.ExtractPhysical(now)-keep.Milliseconds(), 0)
	if _, err := s.kv.GC(ctx, safePoint); err != nil {
		return fmt.Errorf("tikv: GC to safe point %d: %w", safePoint, err)
	}
	return nil
}

// mapErr maps client-go errors onto the storage contract's.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if tikverr.IsErrNotFound(err) {
		return storage.ErrNotFound
	}
	var latch *tikverr.ErrWriteConflictInLatch
	var retry *tikverr.ErrRetryable
	if tikverr.IsErrWriteConflict(err) || errors.As(err, &latch) || errors.As(err, &retry) {
		return fmt.Errorf("%w (%v)", storage.ErrConflict, err)
	}
	return fmt.Errorf("tikv: %w", err)
}

// roTxn is a ReadOnly (snap nil: a fresh snapshot per read) or Snapshot
// transaction.
type roTxn struct {
	s    *Store
	ctx  context.Context
	snap *txnsnapshot.KVSnapshot
}

func (t *roTxn) snapshot() (*txnsnapshot.KVSnapshot, error) {
	if t.snap != nil {
		return t.snap, nil
	}
	ts, err := t.s.timestamp(t.ctx)
	if err != nil {
		return nil, err
	}
	return t.s.kv.GetSnapshot(ts), nil
}

func (t *roTxn) Get(key []byte) ([]byte, error) {
	snap, err := t.snapshot()
	if err != nil {
		return nil, err
	}
	v, err := snap.Get(t.ctx, t.s.key(key))
	if err != nil {
		return nil, mapErr(err)
	}
	return decodeValue(v), nil
}

func (t *roTxn) Scan(lower, upper []byte, reverse bool) (storage.Iterator, error) {
	snap, err := t.snapshot()
	if err != nil {
		return nil, err
	}
	return t.s.scan(snap, lower, upper, reverse)
}

func (t *roTxn) Set(key, value []byte) error                   { return storage.ErrReadOnly }
func (t *roTxn) Delete(key []byte) error                       { return storage.ErrReadOnly }
func (t *roTxn) SetStamped(prefix, suffix, value []byte) error { return storage.ErrReadOnly }
func (t *roTxn) Commit() error                                 { return nil }
func (t *roTxn) Rollback()                                     {}

// stamped is one buffered SetStamped call.
type stamped struct {
	prefix, suffix, value []byte
}

// validatedRead is the value a Get of a validated key returned.
type validatedRead struct {
	value  []byte
	absent bool
}

// rwTxn is a ReadWrite transaction.
type rwTxn struct {
	s         *Store
	ctx       context.Context
	kt        *transaction.KVTxn
	reads     map[string]struct{}      // keys Get read, locked at commit (namespaced)
	validated map[string]validatedRead // validated keys Get read (namespaced)
	written   map[string]struct{}      // keys Set or Deleted (namespaced)
	stamped   []stamped
	done      bool
}

func (t *rwTxn) Get(key []byte) ([]byte, error) {
	k := t.s.key(key)
	v, err := t.kt.Get(t.ctx, k)
	if err != nil && !tikverr.IsErrNotFound(err) {
		return nil, mapErr(err)
	}
	if _, own := t.written[string(k)]; !own {
		if t.s.validate != nil && t.s.validate(key) {
			if _, seen := t.validated[string(k)]; !seen {
				t.validated[string(k)] = validatedRead{value: bytes.Clone(v), absent: err != nil}
			}
		} else {
			t.reads[string(k)] = struct{}{}
		}
	}
	if err != nil {
		return nil, storage.ErrNotFound
	}
	return decodeValue(v), nil
}

// Scan reads the snapshot the transaction began with, not its writes.
func (t *rwTxn) Scan(lower, upper []byte, reverse bool) (storage.Iterator, error) {
	return t.s.scan(t.kt.GetSnapshot(), lower, upper, reverse)
}

func (t *rwTxn) Set(key, value []byte) error {
	if t.done {
		return errors.New("tikv: transaction is over")
	}
	k := t.s.key(key)
	t.written[string(k)] = struct{}{}
	return t.kt.Set(k, encodeValue(value))
}

func (t *rwTxn) Delete(key []byte) error {
	if t.done {
		return errors.New("tikv: transaction is over")
	}
	k := t.s.key(key)
	t.written[string(k)] = struct{}{}
	return t.kt.Delete(k)
}

func (t *rwTxn) SetStamped(prefix, suffix, value []byte) error {
	if len(t.stamped) >= 1<<16 {
		return storage.ErrTooManyStamped
	}
	t.stamped = append(t.stamped, stamped{
		prefix: bytes.Clone(prefix), suffix: bytes.Clone(suffix), value: bytes.Clone(value),
	})
	return nil
}

// Commit locks the keys read, stamps the stamped writes and runs TiKV's
// two-phase commit; between the prewrite and the commit, with the commit
// timestamp chosen, it checks the stamp window and the validated reads.
func (t *rwTxn) Commit() error {
	if t.done {
		return errors.New("tikv: transaction is over")
	}
	t.done = true
	if len(t.written) == 0 && len(t.stamped) == 0 {
		t.kt.Rollback()
		return nil // nothing to commit: the reads were one snapshot
	}
	var locks [][]byte
	for k := range t.reads {
		if _, own := t.written[k]; !own {
			locks = append(locks, []byte(k))
		}
	}
	if len(locks) > 0 {
		// In an optimistic transaction LockKeys only marks the keys: they
		// are checked for newer commits at prewrite.
		if err := t.kt.LockKeys(t.ctx, kv.NewLockCtx(t.kt.StartTS(), 0, time.Now()), locks...); err != nil {
			t.kt.Rollback()
			return mapErr(err)
		}
	}
	var stamp uint64
	window := t.s.window
	if len(t.stamped) > 0 {
		var err error
		if stamp, err = t.s.timestamp(t.ctx); err != nil {
			t.kt.Rollback()
			return err
		}
		size := t.kt.Size()
		for _, w := range t.stamped {
			size += len(w.prefix) + storage.StampLen + len(w.suffix) + len(w.value)
		}
		if size > intentThreshold {
			// A large transaction may take longer than the stamp window
			// to prewrite: it announces its stamp first (see the package
			// documentation) and gets the long window.
			intent, err := t.s.writeIntent(t.ctx, stamp, t.kt.StartTS())
			if err != nil {
				t.kt.Rollback()
				return err
			}
			defer t.s.deleteIntent(intent)
			window = t.s.longWindow
		}
		for i, w := range t.stamped {
			k := make([]byte, 0, len(w.prefix)+storage.StampLen+len(w.suffix))
			k = append(k, w.prefix...)
			k = binary.BigEndian.AppendUint64(k, stamp)
			k = binary.BigEndian.AppendUint16(k, uint16(i))
			k = append(k, w.suffix...)
			if err := t.kt.Set(t.s.key(k), encodeValue(w.value)); err != nil {
				t.kt.Rollback()
				return mapErr(err)
			}
		}
	}
	validated := make(map[string]validatedRead, len(t.validated))
	for k, r := range t.validated {
		if _, own := t.written[k]; !own {
			validated[k] = r
		}
	}
	var refused atomic.Value // string: why the check refused the commit
	var checkedTS uint64
	if stamp != 0 || len(validated) > 0 {
		t.kt.SetCommitTSUpperBoundCheck(func(commitTS uint64) bool {
			checkedTS = commitTS
			if stamp != 0 && pastStamp(stamp, commitTS) >= window {
				refused.Store(fmt.Sprintf("stamped commit past its %v window", window))
				return false
			}
			if why := t.s.changedSince(t.ctx, validated, commitTS); why != "" {
				refused.Store(why)
				return false
			}
			return true
		})
		t.kt.SetCommitCallback(func(info string, err error) {
			if err != nil {
				return
			}
			var ti transaction.TxnInfo
			if json.Unmarshal([]byte(info), &ti) != nil || ti.CommitTS == checkedTS {
				return
			}
			// A reader pushed the commit past the checked timestamp.
			if stamp != 0 && pastStamp(stamp, ti.CommitTS) >= window {
				t.s.StampsPastWindow.Add(1)
				t.s.logger.Error("tikv: stamped transaction committed past its stamp window; a stream reader may have skipped its records",
					"stamp", stamp, "commit_ts", ti.CommitTS, "window", window)
			}
			if why := t.s.changedSince(t.ctx, validated, ti.CommitTS-1); why != "" {
				t.s.StaleValidations.Add(1)
				t.s.logger.Error("tikv: transaction committed after a validated key changed", "why", why,
					"checked_ts", checkedTS, "commit_ts", ti.CommitTS)
			}
		})
	}
	err := t.kt.Commit(t.ctx)
	if why, _ := refused.Load().(string); err != nil && why != "" {
		return fmt.Errorf("%w (%s)", storage.ErrConflict, why)
	}
	return mapErr(err)
}

// changedSince reports, as a reason, whether any validated key's value
// at ts differs from the one read ("" when none does).
func (s *Store) changedSince(ctx context.Context, validated map[string]validatedRead, ts uint64) string {
	if len(validated) == 0 {
		return ""
	}
	snap := s.kv.GetSnapshot(ts)
	for k, r := range validated {
		v, err := snap.Get(ctx, []byte(k))
		switch {
		case tikverr.IsErrNotFound(err):
			if !r.absent {
				return fmt.Sprintf("validated key %q deleted", k)
			}
		case err != nil:
			return fmt.Sprintf("validated key %q unreadable: %v", k, err)
		case r.absent || !bytes.Equal(v, r.value):
			return fmt.Sprintf("validated key %q changed", k)
		}
	}
	return ""
}

// pastStamp returns how long after stamp commitTS is, by PD's clock.
func pastStamp(stamp, commitTS uint64) time.Duration {
	return time.Duration(oracle.ExtractPhysical(commitTS)-oracle.ExtractPhysical(stamp)) * time.Millisecond
}

func (t *rwTxn) Rollback() {
	if t.done {
		return
	}
	t.done = true
	t.kt.Rollback()
}

// encodeValue and decodeValue escape the values TiKV cannot hold as
// they are: TiKV refuses an empty value, so an empty value is stored as
// one 0x00 byte, and a value that starts with 0x00 gets one more in
// front. Every other value is stored unchanged.
func encodeValue(v []byte) []byte {
	if len(v) > 0 && v[0] != 0 {
		return v
	}
	out := make([]byte, 0, len(v)+1)
	return append(append(out, 0), v...)
}

func decodeValue(v []byte) []byte {
	if len(v) > 0 && v[0] == 0 {
		return v[1:]
	}
	return v
}
