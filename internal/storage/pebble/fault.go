// Storage faults: breaking an instance, reopening the store in its
// place, and what Pebble reports from its own goroutines (see the
// package documentation).

package pebble

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/dynago/dynago/internal/storage"
)

// close closes the instance's database within closeWait, or fences and
// abandons it.
func (in *instance) close() error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("pebble panicked closing: %v", p)
			}
		}()
		done <- in.db.Close()
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(closeWait):
		in.fs.fenceWithin(closeWait)
		return fmt.Errorf("pebble: close did not finish within %v; the database was left as a crash would leave it", closeWait)
	}
}

// abandon fences a replaced or broken instance (waiting at most closeWait
// for a change in flight) and closes its database in the background (when
// tryClose is set) or not at all.
func (in *instance) abandon(tryClose bool) {
	in.fs.fenceWithin(closeWait)
	if tryClose {
		go func() {
			defer func() { recover() }()
			in.db.Close()
		}()
	}
}

// keep replaces a broken instance by a new one (see the package
// documentation) until Close.
//
// An instance that breaks again soon after a reopen (a fault that lasts:
// an fsync that keeps failing) is reopened after the backoff reached so
// far rather than at once, so that a lasting fault costs a reopen every
// few seconds, not one per write.
func (s *Store) keep() {
	defer close(s.keeperDone)
	backoff := 50 * time.Millisecond
	var reopened time.Time
	for {
		select {
		case <-s.stop:
			return
		case <-s.wake:
		}
		if time.Since(reopened) > 30*time.Second {
			backoff = 50 * time.Millisecond
		} else {
			select {
			case <-s.stop:
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, reopenBackoffMax)
		}
		for attempt := 1; ; attempt++ {
			old := s.cur.Load()
			if !old.isBroken() {
				break
			}
			err := s.reopen(old)
			if err == nil {
				reopened = time.Now()
				s.log.Info("storage: reopened after a fault; writes are accepted again", "fault", old.cause, "attempts", attempt)
				break
			}
			if attempt == 1 || attempt%10 == 0 {
				s.log.Warn("storage: cannot reopen yet; writes are refused, reads go on", "fault", old.cause, "err", err, "attempts", attempt)
			}
			select {
			case <-s.stop:
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, reopenBackoffMax)
		}
	}
}

// reopen fences old, opens a new instance and makes it current.
func (s *Store) reopen(old *instance) error {
	old.fs.fence()
	old.retire()
	in, err := s.openGuarded(false)
	if err != nil {
		return err
	}
	// Counted before the new instance is current, so that whoever sees
	// it healthy also sees the reopen counted.
	s.reopens.Add(1)
	s.cur.Store(in)
	old.abandon(true)
	return nil
}

// retire marks a replaced instance: from now on its commits publish
// nothing.
func (in *instance) retire() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.retired = true
}

// fail breaks the instance (see the package documentation) and returns
// the error its writes now get.
func (in *instance) fail(cause error) error {
	in.breakOnce.Do(func() {
		in.cause = fmt.Errorf("%w: storage fault, writes refused until the store reopens: %v", storage.ErrUnavailable, cause)
		close(in.broken)
		in.s.log.Error("storage fault: refusing writes and reopening the store", "err", cause)
		select {
		case in.s.wake <- struct{}{}:
		default:
		}
	})
	return in.cause
}

func (in *instance) isBroken() bool {
	select {
	case <-in.broken:
		return true
	default:
		return false
	}
}

// backgroundError is Pebble's report of a failed background job. For a
// broken instance, the goroutine of a background job ends here: Pebble
// would otherwise retry a failed flush at once, for ever, on a database
// that is being replaced.
//
// While the instance is being opened, Open itself waits for the flush of
// the WAL it replayed, and Pebble retries a failed one at once: each
// failure is then followed by a pause, doubling from 50 ms to 2 s, so
// that a reopen on a disk still full waits for space without spinning.
//
// When the store's first Open has met errors for openGiveUp, or the store
// is closing, an instance still opening is given up: its background
// goroutines end here too.
func (in *instance) backgroundError(err error) {
	if !in.opened.Load() {
		in.logBackground(err)
		now := time.Now().UnixNano()
		in.firstErr.CompareAndSwap(0, now)
		if in.first && time.Duration(now-in.firstErr.Load()) >= openGiveUp {
			in.giveUpOnce.Do(func() { in.giveUp <- err })
		}
		pause := time.Duration(in.backoff.Load())
		pause = min(max(2*pause, 50*time.Millisecond), 2*time.Second)
		in.backoff.Store(int64(pause))
		select {
		case <-in.s.stop:
		case <-in.abandoned:
			in.fs.fenced.Store(true) // it writes nothing more
		case <-time.After(pause):
			return
		}
		if !calledFromDynago() {
			runtime.Goexit()
		}
		return
	}
	if in.isBroken() && !calledFromDynago() {
		runtime.Goexit()
	}
	in.logBackground(err)
}

// logBackground logs a background error, at most one line every 10 s (a
// full disk fails every compaction), and none for a fenced instance.
func (in *instance) logBackground(err error) {
	if errors.Is(err, errFenced) {
		return
	}
	now := time.Now().UnixNano()
	if last := in.lastLog.Load(); now-last > int64(10*time.Second) && in.lastLog.CompareAndSwap(last, now) {
		msg, _, _ := strings.Cut(err.Error(), "\n") // not Pebble's attached stack traces
		in.s.log.Error("storage background error", "err", msg)
	}
}

// calledFromDynago reports whether the caller's goroutine runs dynago
// code (a request, a commit, a reopen), as opposed to one of Pebble's
// background goroutines.
func calledFromDynago() bool {
	var pcs [64]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "github.com/dynago/dynago/") {
			return true
		}
		if !more {
			return false
		}
	}
}

// pebbleLogger sends Pebble's logging to slog, for one instance.
type pebbleLogger struct {
	l  *slog.Logger
	in *instance
}

func (p pebbleLogger) Infof(format string, args ...any) {
	p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

// Fatalf is Pebble's report of a state it cannot go on from; it must not
// return. The instance breaks (and is replaced). In a goroutine of
// dynago's (a commit, a read, a reopen) Fatalf panics, for the caller's
// recover to answer the request; in one of Pebble's background goroutines
// it ends that goroutine, where a panic would end the process.
func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.l.Error(msg, "component", "pebble")
	p.in.fail(errors.New(msg))
	if !p.in.opened.Load() && p.in.giveUp != nil { // Open will never return
		p.in.fs.fenced.Store(true)
		p.in.giveUpOnce.Do(func() { p.in.giveUp <- errors.New(msg) })
	}
	if calledFromDynago() {
		panic("pebble: " + msg)
	}
	runtime.Goexit()
}
