package main

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

// counts is a set of named counters.
type counts map[string]int64

func (c counts) add(o counts) {
	for k, v := range o {
		c[k] += v
	}
}

// sorted returns the names in order.
func (c counts) sorted() []string {
	names := make([]string, 0, len(c))
	for k := range c {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func (c counts) total() int64 {
	var t int64
	for _, v := range c {
		t += v
	}
	return t
}

// stats is what one client observed; each client has its own, merged at
// the end.
type stats struct {
	ok         counts // answered operations by type (acknowledged writes, reads)
	pages      counts // Query and Scan pages by operation
	errs       counts // failed attempts by "operation: kind"
	unknown    counts // operations whose outcome was unknown, by type
	resApplied counts // keys (or transfers) of unknown operations that had applied
	resNot     counts // ... that had not
	resEither  counts // ... that could have either way (both states expired and swept)
	unresolved counts // ... whose outcome the run could not learn
	unexpected counts // definite errors no request of the soak should get, by "operation: code"
	liveLost   int64  // unknown outcomes while the server was not killed
	readChecks int64  // consistent reads compared with the model as the run went
	xfer       counts // transfer outcomes
}

func newStats() *stats {
	return &stats{ok: counts{}, pages: counts{}, errs: counts{}, unknown: counts{},
		resApplied: counts{}, resNot: counts{}, resEither: counts{}, unresolved: counts{},
		unexpected: counts{}, xfer: counts{}}
}

func (s *stats) add(o *stats) {
	s.ok.add(o.ok)
	s.pages.add(o.pages)
	s.errs.add(o.errs)
	s.unknown.add(o.unknown)
	s.resApplied.add(o.resApplied)
	s.resNot.add(o.resNot)
	s.resEither.add(o.resEither)
	s.unresolved.add(o.unresolved)
	s.unexpected.add(o.unexpected)
	s.liveLost += o.liveLost
	s.readChecks += o.readChecks
	s.xfer.add(o.xfer)
}

// violations collects what contradicts a check while the run goes on, by
// check number; the first few of each are kept in full.
type violations struct {
	mu    sync.Mutex
	n     map[int]int
	first map[int][]string
}

func newViolations() *violations {
	return &violations{n: map[int]int{}, first: map[int][]string{}}
}

func (v *violations) add(check int, format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.n[check]++
	if len(v.first[check]) < 10 {
		v.first[check] = append(v.first[check], fmt.Sprintf(format, args...))
	}
}

func (v *violations) get(check int) (int, []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.n[check], append([]string(nil), v.first[check]...)
}

// progress counts answered operations across clients, for the log lines.
var progress atomic.Int64
