package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestActivity_WhenIdle: release runs once a quiet period has passed with
// no request, not again while the server stays quiet, and again after a
// request and another quiet period (serve's memory release, issue 22).
func TestActivity_WhenIdle(t *testing.T) {
	var a activity
	var releases atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.whenIdle(ctx, 20*time.Millisecond, func() { releases.Add(1) })
	}()
	defer func() { cancel(); <-done }()
	waitFor := func(n int32) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); releases.Load() < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d releases after 10 s, want %d", releases.Load(), n)
			}
		}
	}
	waitFor(1)
	time.Sleep(100 * time.Millisecond) // five more quiet periods
	if n := releases.Load(); n != 1 {
		t.Fatalf("%d releases while quiet, want 1", n)
	}
	h := a.wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	if a.requests.Load() != 1 {
		t.Fatalf("requests %d after one, want 1", a.requests.Load())
	}
	waitFor(2)
}
