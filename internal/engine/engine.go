// Package engine implements DynamoDB's semantics over the transactional
// storage interface: one file per operation, each a method
// (*Engine).Op(ctx, *api.OpInput) (output, error) that takes a prepared
// input (api.Request: its Prepare has run, so the request is checked and
// its parsed expressions are set) and returns either an output ready to
// encode or a *ddberr.Error.
//
// Every operation runs in storage transactions; conditional writes and
// read-modify-writes are retried on storage.ErrConflict, so their
// guarantees hold across any number of dynago processes sharing a store.
// No DynamoDB semantics rest on locks held in this package.
//
// Every item write, whichever operation makes it, goes through one path
// (write.go): a change is prepared, read, checked and applied, with its
// stream record, index entries and item collection size, in one storage
// transaction. Secondary indexes (index.go) are thus maintained in the
// transaction of the item write that changes them; online GSI creation (backfill.go) and the
// optional GSI propagation lag (gsi_lag.go) run in the background until
// Close. Transactions (transact.go) are one storage transaction each.
package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/insights"
	"github.com/dynago/dynago/internal/pricing"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/throttle"
)

// Options configure an Engine. Zero values mean the documented defaults.
type Options struct {
	// Now returns the current time; nil means time.Now. Tests inject a
	// fake clock.
	Now func() time.Time
	// CreateDelay keeps new tables in CREATING for this long (DynamoDB
	// takes seconds; the default 0 makes tables ACTIVE at once).
	CreateDelay time.Duration
	// AccountID is the account in ARNs; "" means "000000000000", as
	// DynamoDB Local uses.
	AccountID string
	// DefaultRegion is used in ARNs when a request carries no credential
	// scope; "" means "us-east-1".
	DefaultRegion string
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// MaxRetries bounds how often an operation is retried after a storage
	// conflict before it fails; 0 means 64.
	MaxRetries int
	// ItemCollectionSizeLimit is the most bytes one item collection of a
	// table with local secondary indexes may hold (items plus LSI
	// entries); 0 means DynamoDB's 10 GB. Tests set it lower.
	ItemCollectionSizeLimit int64
	// GSILag delays the visibility of every change to a global secondary
	// index by this long, as DynamoDB's asynchronous GSI updates do; 0
	// (the default) applies them in the write's transaction.
	GSILag time.Duration
	// TTLSweep is how often expired items are deleted; 0 means never (the
	// engine's tests sweep by hand). DynamoDB sweeps within hours or days.
	TTLSweep time.Duration
	// Throttle, when set, holds requests to DynamoDB's throughput limits
	// (package throttle), divided by its Scale; nil (the default) never
	// throttles.
	Throttle *throttle.Options
	// Prices is the price table the insights report costs traffic at;
	// the zero value means pricing.Default().
	Prices pricing.Prices
	// Observer, when set, is told what requests consumed and which were
	// throttled.
	Observer Observer
	// StreamShards is how many shards a new stream starts with; 0 means
	// DefaultStreamShards (4).
	StreamShards int
	// StreamRollover is how long a stream shard stays open before a child
	// shard replaces it; 0 means DefaultStreamRollover (4 hours, as
	// DynamoDB).
	StreamRollover time.Duration
	// MaxClosedShards bounds the closed shards a stream keeps: past it,
	// the oldest are dropped before their records reach the 24-hour
	// retention period. 0 means DefaultMaxClosedShards (1,000). With
	// DynamoDB's four-hour rollover a stream never has that many (a day
	// is six generations); a rollover of seconds would otherwise pile up
	// tens of thousands of shards a day, each one in the descriptor that
	// every rollover rewrites.
	MaxClosedShards int
	// GCInterval is how often the store's garbage collection runs, on a
	// store that has one (storage.GarbageCollector: TiKV); 0 means
	// DefaultGCInterval, a negative value never.
	GCInterval time.Duration
	// StreamUpkeep is how often shards are rolled over and records past
	// the 24-hour retention trimmed; 0 means never (the engine's tests
	// call the upkeep by hand).
	StreamUpkeep time.Duration
}

// Storage garbage collection defaults: every ten minutes, keeping the
// last ten minutes of versions (TiDB's default tikv_gc_life_time), more
// than any dynago transaction lasts.
const (
	DefaultGCInterval = 10 * time.Minute
	GCKeep            = 10 * time.Minute
)

// Observer receives capacity events, for metrics. Its methods must be
// safe for concurrent use and quick.
type Observer interface {
	// Consumed reports units consumed on a table (index "") or a GSI.
	Consumed(table, index string, write bool, units float64)
	// Throttled reports a request refused, with its ThrottlingReasons
	// reason (TableWriteKeyRangeThroughputExceeded, ...).
	Throttled(table, index, reason string)
}

// Engine serves DynamoDB operations on a storage.Store. It is safe for
// concurrent use.
type Engine struct {
	store storage.Store
	opts  Options

	// tables caches decoded catalog descriptors by name, and streams
	// stream descriptors by catalog key; an entry is used only while the
	// stored bytes are the same, so a change made by another node is
	// seen at once.
	tables  decodeCache[*catalog.Table]
	streams decodeCache[*catalog.Stream]

	// stats caches DescribeTable's ItemCount and TableSizeBytes.
	statsMu sync.Mutex
	stats   map[uint64]tableStats

	// Background work (index backfills), stopped by Close.
	bgCtx    context.Context
	bgCancel context.CancelFunc
	bg       sync.WaitGroup

	// limiter enforces throughput limits; nil when Options.Throttle is.
	limiter *throttle.Limiter
	// insights holds the units each table and GSI consumed recently and,
	// where Contributor Insights is on, their most accessed and most
	// throttled keys.
	insights insights.Recorder

	// leases are the cluster duties this node holds (lease.go).
	leases leases
	// backfills are the index backfills this node runs, by
	// backfillDuty.
	backfillsMu sync.Mutex
	backfills   map[string]bool

	// nodeID tells this engine's leases from other nodes'.
	nodeID uint64
}

// decodeCache keeps the last decoding of each key's stored bytes. It is
// safe for concurrent use.
type decodeCache[T any] struct {
	m sync.Map // key → *decoded[T]
}

type decoded[T any] struct {
	raw []byte
	v   T
}

// get returns the decoding of raw stored at key, calling decode only
// when the bytes differ from the last ones seen. raw may be reused by
// the caller.
func (c *decodeCache[T]) get(key string, raw []byte, decode func([]byte) (T, error)) (T, error) {
	if d, ok := c.m.Load(key); ok {
		if d := d.(*decoded[T]); bytes.Equal(d.raw, raw) {
			return d.v, nil
		}
	}
	v, err := decode(raw)
	if err == nil {
		c.m.Store(key, &decoded[T]{raw: bytes.Clone(raw), v: v})
	}
	return v, err
}

// forget drops key.
func (c *decodeCache[T]) forget(key string) { c.m.Delete(key) }

// New returns an Engine on store. The engine does not own the store.
func New(store storage.Store, opts Options) *Engine {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.AccountID == "" {
		opts.AccountID = "000000000000"
	}
	if opts.DefaultRegion == "" {
		opts.DefaultRegion = "us-east-1"
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 64
	}
	if opts.ItemCollectionSizeLimit == 0 {
		opts.ItemCollectionSizeLimit = DefaultItemCollectionSizeLimit
	}
	if opts.Prices == (pricing.Prices{}) {
		opts.Prices = pricing.Default()
	}
	if opts.StreamShards <= 0 {
		opts.StreamShards = DefaultStreamShards
	}
	if opts.MaxClosedShards <= 0 {
		opts.MaxClosedShards = DefaultMaxClosedShards
	}
	if opts.StreamRollover <= 0 {
		opts.StreamRollover = DefaultStreamRollover
	}
	e := &Engine{store: store, opts: opts, stats: map[uint64]tableStats{}}
	if opts.Throttle != nil {
		e.limiter = throttle.New(*opts.Throttle)
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	e.nodeID = binary.BigEndian.Uint64(id[:])
	e.bgCtx, e.bgCancel = context.WithCancel(context.Background())
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		e.resumeBackfills(e.bgCtx)
	}()
	// Another node's backfill is resumed here if that node stops.
	e.every(backfillLease/2, "index backfills", func(ctx context.Context) error { e.resumeBackfills(ctx); return nil })
	if gc, ok := store.(storage.GarbageCollector); ok && opts.GCInterval >= 0 {
		interval := opts.GCInterval
		if interval == 0 {
			interval = DefaultGCInterval
		}
		e.duty(interval, "storage GC", func(ctx context.Context) error { return gc.CollectGarbage(ctx, GCKeep) })
	}
	if opts.TTLSweep > 0 {
		e.duty(opts.TTLSweep, "TTL sweep", func(ctx context.Context) error {
			n, err := e.sweepTTL(ctx)
			if n > 0 {
				e.opts.Logger.Debug("TTL sweep", "deleted", n)
			}
			return err
		})
	}
	if opts.StreamUpkeep > 0 {
		e.duty(opts.StreamUpkeep, "stream upkeep", e.streamUpkeep)
	}
	if opts.GSILag > 0 {
		// Changes become visible at most a tick after their lag.
		tick := min(max(opts.GSILag/20, time.Millisecond), 50*time.Millisecond)
		e.duty(tick, "GSI propagation", func(context.Context) error { return e.propagateDue() })
	}
	return e
}

// every runs fn in the background every interval until Close, logging
// its errors as name.
func (e *Engine) every(interval time.Duration, name string, fn func(ctx context.Context) error) {
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-e.bgCtx.Done():
				return
			case <-t.C:
			}
			if err := fn(e.bgCtx); err != nil && e.bgCtx.Err() == nil {
				if errors.Is(err, storage.ErrUnavailable) {
					// The store has logged the fault once; it reports
					// it through Health until it recovers.
					e.opts.Logger.Debug(name, "err", err)
				} else {
					e.opts.Logger.Warn(name, "err", err)
				}
			}
		}
	}()
}

// Close stops the engine's background work (index backfills, which
// resume when an engine is next opened on the store) and waits for it.
// Requests must have ended. The store stays open.
func (e *Engine) Close() {
	e.bgCancel()
	e.bg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.releaseLeases(ctx)
}

// Health returns nil while the store accepts writes, and otherwise why
// it does not (an error wrapping storage.ErrUnavailable: a disk fault the
// store is recovering from; see storage.HealthReporter). Stores that
// cannot tell are always healthy.
func (e *Engine) Health() error {
	if h, ok := e.store.(storage.HealthReporter); ok {
		return h.Health()
	}
	return nil
}

type regionKey struct{}

// WithRegion returns a context carrying the region of the request's
// credential scope; ARNs use it.
func WithRegion(ctx context.Context, region string) context.Context {
	return context.WithValue(ctx, regionKey{}, region)
}

type hostKey struct{}

// WithHost returns a context carrying the host (and port) the request
// was sent to; DescribeEndpoints answers with it.
func WithHost(ctx context.Context, host string) context.Context {
	return context.WithValue(ctx, hostKey{}, host)
}

func (e *Engine) region(ctx context.Context) string {
	if r, ok := ctx.Value(regionKey{}).(string); ok && r != "" {
		return r
	}
	return e.opts.DefaultRegion
}

// tableArn returns a table's ARN in the request's region.
func (e *Engine) tableArn(ctx context.Context, name string) string {
	return "arn:aws:dynamodb:" + e.region(ctx) + ":" + e.opts.AccountID + ":table/" + name
}

// lookup returns the table named name as seen by tx, using the cache when
// the stored descriptor is unchanged.
func (e *Engine) lookup(tx storage.Txn, name string) (*catalog.Table, error) {
	raw, err := tx.Get(catalog.TableKey(name))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, catalog.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read table %s: %w", name, err)
	}
	return e.tables.get(name, raw, catalog.Decode)
}

// activeTable returns an ACTIVE table for a data-plane operation, or
// DynamoDB's ResourceNotFoundException.
func (e *Engine) activeTable(tx storage.Txn, name string) (*catalog.Table, error) {
	t, err := e.lookup(tx, name)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, ddberr.TableNotFound()
	}
	if err != nil {
		return nil, err
	}
	if t.Status(e.opts.Now()) != catalog.StatusActive {
		return nil, ddberr.TableNotFound()
	}
	return t, nil
}

// read runs fn in a read-only transaction.
func (e *Engine) read(ctx context.Context, fn func(tx storage.Txn) error) error {
	tx, err := e.store.Begin(ctx, storage.ReadOnly)
	if err != nil {
		return fmt.Errorf("begin a read: %w", err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// update runs fn in a read-write transaction and commits, retrying the
// whole of fn when the commit meets a conflict. fn must be idempotent
// apart from its effects on tx.
func (e *Engine) update(ctx context.Context, fn func(tx storage.Txn) error) error {
	return e.updateChecked(ctx, fn, nil)
}

// updateChecked is update with a hook called after each commit conflict
// with the time the failed attempt began; a non-nil error from it ends
// the retries (single-item writes use it to answer a collision with a
// transaction as DynamoDB does).
func (e *Engine) updateChecked(ctx context.Context, fn func(tx storage.Txn) error, conflict func(began time.Time) error) error {
	for n := 1; ; n++ {
		began := e.opts.Now()
		err := e.attempt(ctx, fn)
		if !errors.Is(err, storage.ErrConflict) {
			return err
		}
		if conflict != nil {
			if err := conflict(began); err != nil {
				return err
			}
		}
		if n >= e.opts.MaxRetries {
			return ddberr.New(ddberr.TransactionConflictException, "Transaction is ongoing for the item")
		}
	}
}

// attempt runs fn in one read-write transaction and commits it once; a
// conflict is returned as storage.ErrConflict for the caller to handle.
func (e *Engine) attempt(ctx context.Context, fn func(tx storage.Txn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	tx, err := e.store.Begin(ctx, storage.ReadWrite)
	if err != nil {
		return fmt.Errorf("begin a write: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// newTableID returns a random version-4 UUID.
func newTableID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
