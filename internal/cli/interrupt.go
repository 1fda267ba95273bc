package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// onInterrupt returns a context that the first SIGINT or SIGTERM cancels,
// for load and dump: the command then stops at its next step, finishes or
// abandons what is in flight and reports. It says so on stderr, calls
// release (when not nil: load closes standard input, so that a read
// blocked on it returns), and gives the signals back to their default,
// so that a second Ctrl-C ends a command stuck on a blocked pipe at once
// (as dynago serve's second signal does). stop releases the signals; call
// it when the command ends.
func onInterrupt(parent context.Context, stderr io.Writer, release func()) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			signal.Stop(sig)
			fmt.Fprintln(stderr, "interrupted: stopping (interrupt again to stop at once)")
			cancel()
			if release != nil {
				release()
			}
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		signal.Stop(sig)
		cancel()
	}
}
