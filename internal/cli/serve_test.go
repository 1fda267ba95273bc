package cli

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/throttle"
)

// TestServeOptions_Check: each out-of-range flag is named in its error.
func TestServeOptions_Check(t *testing.T) {
	ok := serveOptions{ttlSweep: 5 * time.Second, collLimit: engine.DefaultItemCollectionSizeLimit,
		shards: engine.DefaultStreamShards, rollover: engine.DefaultStreamRollover, scale: 1,
		splitAfter: throttle.DefaultHeatSplitAfter}
	if err := ok.check(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		change func(*serveOptions)
		want   string
	}{
		{func(o *serveOptions) { o.gsiLag = -time.Second }, "--gsi-lag"},
		{func(o *serveOptions) { o.createDelay = -time.Second }, "--create-delay must not be negative"},
		{func(o *serveOptions) { o.ttlSweep = -1 }, "--ttl-sweep"},
		{func(o *serveOptions) { o.collLimit = 0 }, "--item-collection-size-limit"},
		{func(o *serveOptions) { o.shards = 0 }, "--stream-shards must be within 1..1000"},
		{func(o *serveOptions) { o.shards = 1001 }, "--stream-shards"},
		{func(o *serveOptions) { o.rollover = 999 * time.Millisecond }, "--stream-rollover must be at least 1s"},
		{func(o *serveOptions) { o.scale = 0.5 }, "--capacity-scale must be a number, at least 1"},
		{func(o *serveOptions) { o.scale = math.NaN() }, "--capacity-scale"},
		{func(o *serveOptions) { o.scale = math.Inf(1) }, "--capacity-scale"},
		{func(o *serveOptions) { o.splitAfter = 500 * time.Millisecond }, "--heat-split-after must be at least 1s"},
	} {
		o := ok
		tc.change(&o)
		if err := o.check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error naming %q", err, tc.want)
		}
	}
}
