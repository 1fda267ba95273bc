package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// pidList is a flag.Value of PIDs: repeatable and comma-separated.
type pidList []int

func (p *pidList) String() string { return fmt.Sprint([]int(*p)) }

// Set adds the comma-separated PIDs in s.
func (p *pidList) Set(s string) error {
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 0 {
			return fmt.Errorf("bad pid %q", f)
		}
		*p = append(*p, pid)
	}
	return nil
}

// procStat is what loadgen reads from /proc/<pid>/stat.
type procStat struct {
	ppid      int
	startTime uint64 // tells a PID apart from a reused one
	ticks     uint64 // utime+stime+cutime+cstime: all threads, reaped children
}

// parseStat parses the content of /proc/<pid>/stat. The command name is in
// parentheses and may hold spaces, so fields are counted from the last ')'.
func parseStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("malformed stat")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); field k is f[k-3].
	if len(f) < 20 {
		return procStat{}, errors.New("short stat")
	}
	var s procStat
	var err error
	num := func(k int) uint64 {
		v, e := strconv.ParseUint(f[k-3], 10, 64)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	s.ppid = int(num(4))
	s.ticks = num(14) + num(15) + num(16) + num(17)
	s.startTime = num(22)
	return s, err
}

// procKey identifies a process across PID reuse.
type procKey struct {
	pid   int
	start uint64
}

// snapshot returns the CPU ticks of the roots and all their descendants.
func snapshot(roots []int) (map[procKey]uint64, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	all := map[int]procStat{}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		s, err := parseStat(b)
		if err != nil {
			continue
		}
		all[pid] = s
		children[s.ppid] = append(children[s.ppid], pid)
	}
	out := map[procKey]uint64{}
	queue := append([]int(nil), roots...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		s, ok := all[pid]
		if !ok {
			continue
		}
		k := procKey{pid, s.startTime}
		if _, seen := out[k]; seen {
			continue
		}
		out[k] = s.ticks
		queue = append(queue, children[pid]...)
	}
	for _, pid := range roots {
		if _, ok := all[pid]; !ok {
			return nil, fmt.Errorf("server pid %d: no such process", pid)
		}
	}
	return out, nil
}

// clockTicks returns the kernel's USER_HZ (getconf CLK_TCK), 100 if unknown.
func clockTicks() float64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && v > 0 {
			return float64(v)
		}
	}
	return 100
}

// cpuMeter measures the CPU time of the server processes and of loadgen
// itself over a window.
type cpuMeter struct {
	roots  []int
	hz     float64
	before map[procKey]uint64
	self   time.Duration
	busy   uint64 // machine-wide busy ticks at start
}

func newCPUMeter(roots []int) *cpuMeter { return &cpuMeter{roots: roots, hz: clockTicks()} }

func (m *cpuMeter) start() (err error) {
	m.busy = machineBusy()
	m.self = selfCPU()
	if len(m.roots) > 0 {
		m.before, err = snapshot(m.roots)
	}
	return err
}

// cpuTimes is what a cpuMeter measured over its window.
type cpuTimes struct {
	server  time.Duration // server processes; -1 without server PIDs
	client  time.Duration // loadgen itself
	machine time.Duration // all CPUs of the machine, busy (not idle or iowait)
}

// stop returns the CPU times since start. A server process born in the
// window counts whole; one that died in it counts only if a measured parent
// reaped it.
func (m *cpuMeter) stop() (t cpuTimes, err error) {
	t.client = selfCPU() - m.self
	if busy := machineBusy(); busy >= m.busy && m.busy > 0 {
		t.machine = m.ticks(busy - m.busy)
	}
	t.server = -1
	if len(m.roots) == 0 {
		return t, nil
	}
	after, err := snapshot(m.roots)
	if err != nil {
		return t, err
	}
	var ticks uint64
	for k, t := range after {
		if b := m.before[k]; t >= b {
			ticks += t - b
		}
	}
	t.server = m.ticks(ticks)
	return t, nil
}

func (m *cpuMeter) ticks(n uint64) time.Duration {
	return time.Duration(float64(n) / m.hz * float64(time.Second))
}

// machineBusy returns the busy ticks of all CPUs from /proc/stat (0 if
// unreadable): everything but idle and iowait, guest time being part of
// user time already.
func machineBusy() uint64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var busy uint64
	for i, v := range f[1:9] { // user nice system idle iowait irq softirq steal
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0
		}
		if i != 3 && i != 4 {
			busy += n
		}
	}
	return busy
}

// selfCPU returns the user+system CPU time of this process.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// waitQuiet waits until the whole machine has been nearly idle (under 15%
// of one core busy) for two consecutive seconds, or until limit has passed;
// it reports whether it found quiet. Run before a measurement, while the
// server is idle, it keeps other jobs on a shared machine out of the window
// as far as it can.
func waitQuiet(limit time.Duration) bool {
	hz := clockTicks()
	deadline := time.Now().Add(limit)
	calm := 0
	for time.Now().Before(deadline) {
		before := machineBusy()
		time.Sleep(time.Second)
		after := machineBusy()
		if before == 0 || after < before {
			return false // no /proc/stat: nothing to wait for
		}
		if float64(after-before)/hz < 0.15 {
			if calm++; calm == 2 {
				return true
			}
		} else {
			calm = 0
		}
	}
	return false
}
