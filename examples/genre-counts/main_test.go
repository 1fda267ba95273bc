package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/server"
	"github.com/dynago/dynago/internal/storage/pebble"
)

// TestGenreCounts runs the example against an in-process dynago whose
// stream shards roll over every 100 ms, so the consumer follows shard
// lineage; the derived counts must equal the recount.
func TestGenreCounts(t *testing.T) {
	const movies = "../../../shared/data/moviedata.json"
	if _, err := os.Stat(movies); err != nil {
		t.Skipf("movies dataset not available: %v", err)
	}
	st, err := pebble.Open(pebble.Options{InMemory: true, ReadCached: catalog.IsKey})
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := engine.New(st, engine.Options{Logger: quiet, StreamRollover: 100 * time.Millisecond, StreamUpkeep: 20 * time.Millisecond})
	ts := httptest.NewServer(server.New(e, server.Options{Logger: quiet}))
	defer func() { ts.Close(); e.Close(); st.Close() }()
	var out strings.Builder
	if err := run(context.Background(), ts.URL, movies, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "derived counts match the recount") || !strings.Contains(out.String(), "Documentary") {
		t.Fatalf("report:\n%s", out.String())
	}
	t.Log(out.String())
}
