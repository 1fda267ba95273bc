package engine

// Helpers the engine's tests share: running an operation the way the
// server does, opening an engine, an injectable clock, and walking
// operations through tables of answers.

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/storage/pebble"
	"github.com/dynago/dynago/internal/storage/teststore"
)

// input is the constraint on an operation's input type I: a pointer to
// P that decodes and prepares itself (api.Request).
type input[P any] interface {
	*P
	api.Request
}

// run decodes and prepares body as the input of fn and calls it, the way
// the server does.
func run[P any, I input[P], O any](e *Engine, fn func(*Engine, context.Context, I) (O, error), body string) (O, error) {
	in := I(new(P))
	var zero O
	if err := api.DecodeInput([]byte(body), in); err != nil {
		return zero, err
	}
	if err := in.Prepare(); err != nil {
		return zero, err
	}
	return fn(e, context.Background(), in)
}

// mustRun is run, failing the test on an error.
func mustRun[P any, I input[P], O any](t testing.TB, e *Engine, fn func(*Engine, context.Context, I) (O, error), body string) O {
	t.Helper()
	out, err := run(e, fn, body)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return out
}

// openEngine opens an engine with opts over a store in dir, or in memory
// when dir is "", closed when the test ends.
func openEngine(t testing.TB, opts Options, dir string) (*Engine, storage.Store) {
	t.Helper()
	if dir == "" {
		// In memory: Pebble or the mock TiKV cluster (package teststore).
		st := teststore.Open(t)
		e := New(st, opts)
		t.Cleanup(func() { e.Close() })
		return e, st
	}
	st, err := pebble.Open(pebble.Options{Dir: dir, ReadCached: catalog.IsKey})
	if err != nil {
		t.Fatal(err)
	}
	e := New(st, opts)
	t.Cleanup(func() { e.Close(); st.Close() })
	return e, st
}

// fakeClock is an injectable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// startWorkers starts n goroutines, worker w calling work with a random
// source seeded by (w, stream), and returns a function that waits for
// them all.
func startWorkers(n int, stream uint64, work func(r *rand.Rand)) (wait func()) {
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			work(rand.New(rand.NewPCG(seed, stream)))
		}(uint64(w))
	}
	return wg.Wait
}

// stopped reports whether stop has been closed, without waiting.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// answerFunc runs one operation on a request body and renders its
// answer as the step tables write it: the response JSON, or the error as
// "Code: message".
type answerFunc func(e *Engine, body string) string

// answer is the operation fn as an answerFunc.
func answer[P any, I input[P], O interface{ AppendJSON([]byte) []byte }](fn func(*Engine, context.Context, I) (O, error)) answerFunc {
	return func(e *Engine, body string) string {
		out, err := run(e, fn, body)
		if err != nil {
			return err.Error()
		}
		return string(out.AppendJSON(nil))
	}
}

// answerStep is one step of a walk: an operation (by its name in the
// walk's table of operations), its request body, the answer wanted, and
// how far the clock moves on after it.
type answerStep struct {
	op, body, want string
	advance        time.Duration
}

// walkAnswers takes the steps in order, failing at the first whose answer
// is not the one wanted.
func walkAnswers(t testing.TB, e *Engine, clock *fakeClock, ops map[string]answerFunc, steps []answerStep) {
	t.Helper()
	for i, s := range steps {
		if got := ops[s.op](e, s.body); got != s.want {
			t.Fatalf("step %d %s %s:\n got %s\nwant %s", i, s.op, s.body, got, s.want)
		}
		clock.Advance(s.advance)
	}
}
