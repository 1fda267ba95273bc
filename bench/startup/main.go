// Command startup measures how fast a dynago binary starts and how much
// memory it holds when idle: for each of -n starts it runs
// `BIN serve --addr 127.0.0.1:PORT --data-dir DIR`, times the first 200
// answer to GET / from the moment of exec, waits -idle, then reads the
// process's resident memory from /proc/PID/status and /proc/PID/smaps,
// split into the binary's code (its r-xp mapping), its read-only data
// (r--p), its writable data, and anonymous memory (the Go heap, stacks and
// Pebble's memtables and caches). It prints the median of each, and the
// package init time the Go runtime reports (GODEBUG=inittrace=1) for the
// first start.
//
// It is a measurement, not a test: it fails only when the server cannot be
// started. Traffic goes to 127.0.0.1 only.
//
// Usage:
//
//	go run ./bench/startup -bin /tmp/dynago [-n 10] [-idle 1s] [-data-dir DIR | -movies FILE] [-json]
//
// Without -data-dir each start gets a new empty directory (removed after);
// with it every start reopens that directory. -movies FILE first loads
// FILE (../shared/data/moviedata.json) into a new directory, as table
// Movies with three global secondary indexes and a stream (movies.go), and
// every start reopens that one; with -idle 1m it gives the memory after
// loading the movies and idling a minute. Drop the page cache first
// (echo 3 > /proc/sys/vm/drop_caches, as root) for cold-start figures: a
// binary already in the page cache is mapped in larger runs.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dynago/dynago/bench/internal/loopback"
)

// sample is one start's figures: milliseconds to the first GET / and
// resident kilobytes after the idle wait, in total and by kind.
type sample struct {
	ReadyMS  float64 `json:"ready_ms"`
	RSSKB    int     `json:"rss_kb"`
	TextKB   int     `json:"text_kb"`
	RODataKB int     `json:"rodata_kb"`
	DataKB   int     `json:"data_kb"`
	AnonKB   int     `json:"anon_kb"`
}

func main() {
	bin := flag.String("bin", "", "the dynago binary to start (required)")
	n := flag.Int("n", 10, "how many starts")
	idle := flag.Duration("idle", time.Second, "how long to wait after the first answer before reading memory")
	dataDir := flag.String("data-dir", "", "a data directory every start reopens; empty: a fresh empty one each time")
	movies := flag.String("movies", "", "first load this movies file (../shared/data/moviedata.json) into a new data directory, table Movies with 3 GSIs and a stream, read the loading server's memory after -movies-idle, and start on that directory every time")
	moviesIdle := flag.Duration("movies-idle", time.Minute, "with -movies, how long the loading server idles after the load before its memory is read")
	jsonOut := flag.Bool("json", false, "print the medians as one JSON object")
	flag.Parse()
	if *bin == "" || *n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	abs, err := filepath.Abs(*bin)
	if err != nil {
		log.Fatal(err)
	}
	if *movies != "" {
		if *dataDir != "" {
			log.Fatal("-movies makes its own data directory; give -movies or -data-dir")
		}
		dir, err := os.MkdirTemp("", "dynago-startup-movies-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		began := time.Now()
		var after sample
		n, err := prepareMovies(abs, dir, *movies, *moviesIdle, &after)
		if err != nil {
			os.RemoveAll(dir)
			log.Fatalf("-movies: %v", err)
		}
		fmt.Printf("loaded %d movies into %s in %.1f s; resident %v after the load: %.1f MB = code %.1f + read-only data %.1f + data %.1f + anonymous %.1f (MB)\n",
			n, dir, time.Since(began).Seconds()-moviesIdle.Seconds(), *moviesIdle,
			mb(after.RSSKB), mb(after.TextKB), mb(after.RODataKB), mb(after.DataKB), mb(after.AnonKB))
		*dataDir = dir
	}
	var samples []sample
	var inits initTrace
	for i := range *n {
		s, it, err := start(abs, *dataDir, *idle, i == 0)
		if err != nil {
			log.Fatalf("start %d: %v", i+1, err)
		}
		if i == 0 {
			inits = it
		}
		samples = append(samples, s)
	}
	m := medians(samples)
	if *jsonOut {
		json.NewEncoder(os.Stdout).Encode(map[string]any{"bin": *bin, "starts": *n, "median": m, "init_ms": inits.ms, "inits": inits.count})
		return
	}
	fmt.Printf("%s: %d starts, medians\n", *bin, *n)
	fmt.Printf("  first GET / answered after %.1f ms (package init: %.1f ms in %d packages, first start)\n", m.ReadyMS, inits.ms, inits.count)
	fmt.Printf("  resident after %v idle: %.1f MB = code %.1f + read-only data %.1f + data %.1f + anonymous %.1f (MB)\n",
		*idle, mb(m.RSSKB), mb(m.TextKB), mb(m.RODataKB), mb(m.DataKB), mb(m.AnonKB))
	for _, p := range inits.top {
		fmt.Printf("    init %-60s %5.2f ms\n", p.pkg, p.ms)
	}
}

func mb(kb int) float64 { return float64(kb) / 1024 }

// start runs one server, measures it and stops it. trace asks for the
// package init trace.
func start(bin, dataDir string, idle time.Duration, trace bool) (sample, initTrace, error) {
	dir := dataDir
	if dir == "" {
		d, err := os.MkdirTemp("", "dynago-startup-")
		if err != nil {
			return sample{}, initTrace{}, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	port, err := loopback.FreePort()
	if err != nil {
		return sample{}, initTrace{}, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin, "serve", "--addr", addr, "--data-dir", dir, "--log-level", "warn")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	if trace {
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	}
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, initTrace{}, err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	client := &http.Client{Timeout: 200 * time.Millisecond}
	var s sample
	for {
		resp, err := client.Get("http://" + addr + "/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				s.ReadyMS = float64(time.Since(began).Microseconds()) / 1000
				break
			}
		}
		if time.Since(began) > 30*time.Second {
			return sample{}, initTrace{}, fmt.Errorf("no 200 from GET / after 30 s; stderr: %s", stderr.String())
		}
		time.Sleep(time.Millisecond) // a tighter poll takes CPU from the server it waits for
	}
	time.Sleep(idle)
	if err := readMemory(cmd.Process.Pid, bin, &s); err != nil {
		return sample{}, initTrace{}, err
	}
	var it initTrace
	if trace {
		it = parseInitTrace(stderr.String())
	}
	return s, it, nil
}

// readMemory fills s's memory figures from /proc/PID: VmRSS, and the Rss
// of the binary's mappings by permission and of anonymous mappings.
func readMemory(pid int, bin string, s *sample) error {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			s.RSSKB, _ = strconv.Atoi(f[1])
		}
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return err
	}
	defer f.Close()
	var kind *int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if mapping.MatchString(fields[0]) {
			kind = nil
			path := ""
			if len(fields) >= 6 {
				path = fields[5]
			}
			switch {
			case path == bin && strings.HasPrefix(fields[1], "r-x"):
				kind = &s.TextKB
			case path == bin && strings.HasPrefix(fields[1], "r--"):
				kind = &s.RODataKB
			case path == bin:
				kind = &s.DataKB
			case path == "" || strings.HasPrefix(path, "[heap]") || strings.HasPrefix(path, "[stack"):
				kind = &s.AnonKB
			}
			continue
		}
		if fields[0] == "Rss:" && kind != nil && len(fields) >= 2 {
			kb, _ := strconv.Atoi(fields[1])
			*kind += kb
		}
	}
	return sc.Err()
}

// mapping matches the first field of a mapping's header line in smaps.
var mapping = regexp.MustCompile(`^[0-9a-f]+-[0-9a-f]+$`)

// initTrace sums GODEBUG=inittrace=1's lines: total milliseconds, the
// number of packages, and the slowest ones.
type initTrace struct {
	ms    float64
	count int
	top   []pkgInit
}

type pkgInit struct {
	pkg string
	ms  float64
}

// parseInitTrace reads lines like "init github.com/x/y @1.2 ms, 0.31 ms
// clock, 1024 bytes, 12 allocs".
func parseInitTrace(stderr string) initTrace {
	var it initTrace
	for _, line := range strings.Split(stderr, "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[0] != "init" {
			continue
		}
		ms, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			continue
		}
		it.ms += ms
		it.count++
		it.top = append(it.top, pkgInit{f[1], ms})
	}
	slices.SortFunc(it.top, func(a, b pkgInit) int {
		switch {
		case a.ms > b.ms:
			return -1
		case a.ms < b.ms:
			return 1
		}
		return strings.Compare(a.pkg, b.pkg)
	})
	if len(it.top) > 10 {
		it.top = it.top[:10]
	}
	return it
}

// medians returns the median of each figure.
func medians(ss []sample) sample {
	med := func(get func(sample) float64) float64 {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = get(s)
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return sample{
		ReadyMS:  med(func(s sample) float64 { return s.ReadyMS }),
		RSSKB:    int(med(func(s sample) float64 { return float64(s.RSSKB) })),
		TextKB:   int(med(func(s sample) float64 { return float64(s.TextKB) })),
		RODataKB: int(med(func(s sample) float64 { return float64(s.RODataKB) })),
		DataKB:   int(med(func(s sample) float64 { return float64(s.DataKB) })),
		AnonKB:   int(med(func(s sample) float64 { return float64(s.AnonKB) })),
	}
}
