package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	// progressbar/v3 over mpb/v8: load and dump show one bar, which
	// progressbar draws with one call per update and no goroutine of its
	// own (mpb is built for many concurrent bars and renders from its own
	// goroutine, which a single bar does not need); it is maintained (v3.19
	// of 2025, steady releases since 2017, widely used) and depends only on
	// golang.org/x/term, colorstring and uniseg.
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressSample is a command's advance at one moment: items done, and
// the done and total of the bar's measure (bytes for load, items for
// dump; total 0 when unknown).
type progressSample struct {
	items, done, total int64
}

// progressKind is how a command reports progress.
type progressKind int

// The ways of reporting progress: none (--quiet), a plain line every
// plainEvery (stderr is not a terminal), a bar (stderr is a terminal).
const (
	progressNone progressKind = iota
	progressPlain
	progressBar
)

// Progress refresh intervals.
const (
	plainEvery = 5 * time.Second
	barEvery   = 200 * time.Millisecond
)

// progressKindFor picks the progress report for stderr: none when quiet,
// a bar on a terminal, plain lines otherwise.
func progressKindFor(stderr io.Writer, quiet bool) progressKind {
	if quiet {
		return progressNone
	}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return progressBar
	}
	return progressPlain
}

// progress reports a command's advance on stderr from a sample function
// called by its own goroutine until stop.
type progress struct {
	kind   progressKind
	w      io.Writer
	verb   string // "loaded", "dumped"
	bytes  bool   // the measure is bytes
	sample func() progressSample
	start  time.Time
	bar    *progressbar.ProgressBar
	quit   chan struct{}
	wg     sync.WaitGroup
}

// startProgress starts reporting; sample must be safe to call from
// another goroutine.
func startProgress(kind progressKind, w io.Writer, verb string, bytes bool, sample func() progressSample) *progress {
	p := &progress{kind: kind, w: w, verb: verb, bytes: bytes, sample: sample, start: time.Now(), quit: make(chan struct{})}
	if kind == progressNone {
		return p
	}
	every := plainEvery
	if kind == progressBar {
		every = barEvery
		total := sample().total
		if total <= 0 {
			total = -1 // a spinner with a count
		}
		opts := []progressbar.Option{
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionShowCount(),
			progressbar.OptionFullWidth(),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(barEvery),
		}
		if bytes {
			opts = append(opts, progressbar.OptionShowBytes(true))
		} else {
			opts = append(opts, progressbar.OptionShowIts(), progressbar.OptionSetItsString("items"))
		}
		p.bar = progressbar.NewOptions64(total, opts...)
	}
	p.wg.Add(1)
	go p.run(every)
	return p
}

// run updates the report every interval until stop.
func (p *progress) run(every time.Duration) {
	defer p.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
			p.update(p.sample())
		}
	}
}

// update shows one sample.
func (p *progress) update(s progressSample) {
	elapsed := time.Since(p.start)
	rate := float64(s.items) / max(elapsed.Seconds(), 1e-9)
	if p.kind == progressBar {
		// A total known late (or exceeded: DescribeTable's ItemCount
		// is stale) moves the bar's end; an unknown one keeps the spinner.
		if end := max(s.total, s.done); s.total > 0 && end != p.bar.GetMax64() {
			p.bar.ChangeMax64(end)
		}
		if p.bytes {
			p.bar.Describe(fmt.Sprintf("%d items, %.0f items/s", s.items, rate))
		}
		p.bar.Set64(s.done)
		return
	}
	line := fmt.Sprintf("%s %d items in %s, %.0f items/s", p.verb, s.items, elapsed.Round(time.Second), rate)
	if s.total > 0 && s.done > 0 && s.done <= s.total {
		frac := float64(s.done) / float64(s.total)
		left := time.Duration(float64(elapsed) * (1 - frac) / frac)
		line += fmt.Sprintf(", %.0f%% done, about %s left", 100*frac, left.Round(time.Second))
	}
	fmt.Fprintln(p.w, line)
}

// stop ends the report (and clears the bar) before the summary is printed.
func (p *progress) stop() {
	if p.kind == progressNone {
		return
	}
	close(p.quit)
	p.wg.Wait()
	if p.bar != nil {
		p.bar.Finish()
	}
}
