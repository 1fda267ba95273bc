package dynagotest

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/inproc"
	"github.com/dynago/dynago/internal/throttle"
)

// An Option configures a server started by New or Start. Options apply
// in order: a later option of the same kind replaces an earlier one,
// except WithDesign, which adds a design. A nil Option is ignored. An
// option given an invalid value makes New fail the test (Start return an
// error) naming it.
type Option func(*options)

// options are the Options applied, before New turns them into the
// server's configuration.
type options struct {
	designs     []string
	strict      bool
	throttle    bool
	scale       float64
	gsiLag      time.Duration
	createDelay time.Duration
	now         func() time.Time
	ttlSweep    *time.Duration
	rollover    time.Duration
	errs        []error
}

func (o *options) fail(format string, args ...any) {
	o.errs = append(o.errs, fmt.Errorf(format, args...))
}

// defaultTTLSweep is how often expired items are deleted without
// WithTTLSweep: dynago serve's default (--ttl-sweep).
const defaultTTLSweep = 5 * time.Second

// WithDesign attaches the design file at path (a single-table design, as
// dynago design check reads it; relative to the working directory, which
// go test makes the package's directory) to its table, as dynago serve
// --design FILE does: every data-plane request on that table is
// classified as one of the design's access patterns or as an undeclared
// access path, and the report is served as JSON at
// Endpoint()+"/design/traffic" ({"tables": [...]}; ?table=NAME for one
// table) and in the dynago_design_* metrics at Endpoint()+"/metrics". The
// design does not create its table. WithDesign may be given once for each
// of several tables. New fails if the file cannot be read or does not
// parse, or if two designs name one table.
func WithDesign(path string) Option {
	return func(o *options) { o.designs = append(o.designs, path) }
}

// WithDesignStrict makes the designs of WithDesign refuse any Scan that
// no access pattern of its table's design declares, as dynago serve
// --design-strict does: the Scan fails with AccessDeniedException, as
// under an IAM policy that denies it, so that a test fails at an access
// path its design does not declare. Without WithDesign, New fails.
func WithDesignStrict() Option {
	return func(o *options) { o.strict = true }
}

// WithThrottling holds requests to DynamoDB's throughput limits divided
// by scale, as dynago serve --throttle --capacity-scale does: each
// partition of a table or global secondary index serves 3,000 read and
// 1,000 write units a second, a provisioned table its provisioned units
// (with 300 s of burst capacity), an on-demand table its
// OnDemandThroughput maximums, and a partition that runs hot for 60 s
// splits. A refused request fails with ProvisionedThroughputExceededException
// or ThrottlingException and its ThrottlingReasons, as DynamoDB's. scale
// is at least 1: 1 is DynamoDB's own limits, 100 makes a partition take 10
// writes a second. Client retries throttled requests (see Client). The
// capacity refills by the server's clock (WithClock).
func WithThrottling(scale float64) Option {
	return func(o *options) {
		if !(scale >= 1) || math.IsInf(scale, 1) {
			o.fail("WithThrottling: scale %g must be a number, at least 1", scale)
		}
		o.throttle, o.scale = true, scale
	}
}

// WithGSILag delays the visibility of every change to a global secondary
// index by d, as DynamoDB's asynchronous index updates do (dynago serve
// --gsi-lag): a Query or Scan of the index sees a write d after it (and
// within 50 ms more), while the table sees it at once. 0, the default,
// updates the indexes in the write's own transaction. The lag is measured
// by the server's clock (WithClock). A negative d fails New.
func WithGSILag(d time.Duration) Option {
	return func(o *options) {
		if d < 0 {
			o.fail("WithGSILag: %v is negative", d)
		}
		o.gsiLag = d
	}
}

// WithCreateDelay keeps what DynamoDB takes a while to create in its
// transitional state for d, as dynago serve --create-delay does: a new
// table stays CREATING (data-plane requests on it fail with
// ResourceNotFoundException, as DynamoDB's do), a new global secondary
// index CREATING, a stream, Time to Live or Contributor Insights ENABLING
// or DISABLING; each then turns ACTIVE, ENABLED or DISABLED by itself
// (dynamodb.NewTableExistsWaiter waits for a table). 0, the default,
// makes them ACTIVE at once. DeleteTable has no delay: the table is gone
// for every later request at once (its answer says DELETING). The delay
// is measured by the server's clock (WithClock). A negative d fails New.
func WithCreateDelay(d time.Duration) Option {
	return func(o *options) {
		if d < 0 {
			o.fail("WithCreateDelay: %v is negative", d)
		}
		o.createDelay = d
	}
}

// WithClock makes the server read the time from now instead of
// time.Now, for everything it times: items' expiry under Time to Live
// (which items the sweep deletes, WithTTLSweep), stream records'
// ApproximateCreationDateTime, shard rollover and the 24-hour retention,
// tables' and indexes' creation times, WithCreateDelay, WithGSILag and
// the refill of WithThrottling's capacity. now is called from many
// goroutines at once and must be safe for that; a clock that a test
// advances keeps its time behind a mutex or an atomic. Request signing is
// not affected: the client signs with the real time and the server does
// not check signatures. A nil now is time.Now. The TTL sweep still runs
// on its own schedule (every 5 s by default): a test that moves its clock
// past an item's expiry and waits for the deletion sets WithTTLSweep too.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithTTLSweep sets how often the server deletes items past their Time to
// Live, as dynago serve --ttl-sweep does: items whose TTL attribute is a
// Number of seconds since the Unix epoch before the clock's now (and not
// over five years before, as DynamoDB ignores those). Deletions go through
// the normal delete path, so indexes follow, and appear in the table's
// stream as DynamoDB's TTL deletions do. The first sweep runs d after New.
// The default is every 5 s (DynamoDB deletes within days); 0 never
// deletes. A negative d fails New.
func WithTTLSweep(d time.Duration) Option {
	return func(o *options) {
		if d < 0 {
			o.fail("WithTTLSweep: %v is negative", d)
		}
		o.ttlSweep = &d
	}
}

// WithStreamRollover sets how long a stream shard that holds records
// stays open before a child shard continues it, as dynago serve
// --stream-rollover does (DynamoDB: about 4 hours, the default), so that a
// consumer's handling of shard lineage can be tested in milliseconds.
// Shards are rolled over, and records past 24 hours trimmed, every d/4 or
// every second, whichever is more often, by the server's clock
// (WithClock). A d that is not positive fails New.
func WithStreamRollover(d time.Duration) Option {
	return func(o *options) {
		if d <= 0 {
			o.fail("WithStreamRollover: %v is not positive", d)
		}
		o.rollover = d
	}
}

// inproc is the in-process server's configuration: dynago serve
// --in-memory's, changed by the options.
func (o *options) inproc() (inproc.Options, error) {
	if o.strict && len(o.designs) == 0 {
		o.fail("WithDesignStrict needs WithDesign")
	}
	if err := errors.Join(o.errs...); err != nil {
		return inproc.Options{}, err
	}
	rollover := o.rollover
	if rollover == 0 {
		rollover = engine.DefaultStreamRollover
	}
	eo := engine.Options{
		Now: o.now, CreateDelay: o.createDelay, GSILag: o.gsiLag, TTLSweep: defaultTTLSweep,
		StreamRollover: rollover, StreamUpkeep: max(time.Millisecond, min(time.Second, rollover/4)),
	}
	if o.ttlSweep != nil {
		eo.TTLSweep = *o.ttlSweep
	}
	if o.throttle {
		eo.Throttle = &throttle.Options{Scale: o.scale}
	}
	return inproc.Options{Engine: eo, Designs: o.designs, Strict: o.strict}, nil
}
