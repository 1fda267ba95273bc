package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/dynagotest"
)

// TestGenreCounts runs the example against an in-process dynago
// (dynagotest) whose stream shards roll over every 100 ms, so the
// consumer follows shard lineage; the derived counts must equal the
// recount.
func TestGenreCounts(t *testing.T) {
	const movies = "../../../shared/data/moviedata.json"
	if _, err := os.Stat(movies); err != nil {
		t.Skipf("movies dataset not available: %v", err)
	}
	srv := dynagotest.New(t, dynagotest.WithStreamRollover(100*time.Millisecond))
	var out strings.Builder
	if err := run(context.Background(), srv.Endpoint(), movies, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "derived counts match the recount") || !strings.Contains(out.String(), "Documentary") {
		t.Fatalf("report:\n%s", out.String())
	}
	t.Log(out.String())
}
