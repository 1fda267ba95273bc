package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dynago/dynago/bench/internal/loopback"
)

// server runs dynago serve on disk and kills and restarts it. Its
// generation counts the servers that have come up; clients read it before
// each request, so that after a lost answer they can wait for a server
// newer than the one they talked to (the old process is then dead, and
// the request has applied or not, for good).
type server struct {
	bin, dataDir, logDir, addr string
	extra                      []string // further serve flags

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd has exited
	killing bool          // the soak is killing cmd (its exit is expected)
	gen     int           // servers that have come up so far
	up      bool          // cmd is running and answered GET /
	changed chan struct{} // closed and replaced on every change of gen or up
	died    chan string   // an unexpected exit, with the log file
	logs    []string
}

func newServer(bin, dataDir, logDir string, extra []string) (*server, error) {
	port, err := loopback.FreePort()
	if err != nil {
		return nil, err
	}
	return &server{
		bin: bin, dataDir: dataDir, logDir: logDir, extra: extra,
		addr:    "127.0.0.1:" + strconv.Itoa(port),
		changed: make(chan struct{}),
		died:    make(chan string, 1),
	}, nil
}

func (s *server) endpoint() string { return "http://" + s.addr }

// broadcast wakes every waiter; call with mu held.
func (s *server) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// generation returns the number of the server that is (or was last) up.
func (s *server) generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// pid returns the running server's process id, or 0.
func (s *server) pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// start runs a new server process and waits until GET / answers 200.
func (s *server) start(ctx context.Context) error {
	s.mu.Lock()
	n := len(s.logs) + 1
	s.mu.Unlock()
	logPath := filepath.Join(s.logDir, fmt.Sprintf("server-%02d.log", n))
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	args := append([]string{"serve", "--addr", s.addr, "--data-dir", s.dataDir}, s.extra...)
	cmd := exec.Command(s.bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	// Its own process group, so that a Ctrl-C on the soak's terminal does
	// not stop it gracefully behind the soak's back; and killed by the
	// kernel if the soak dies without cleaning up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return err
	}
	exited := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.exited, s.killing = cmd, exited, false
	s.logs = append(s.logs, logPath)
	s.mu.Unlock()
	go func() {
		err := cmd.Wait()
		f.Close()
		s.mu.Lock()
		expected := s.killing
		if s.cmd == cmd {
			s.up = false
			s.broadcast()
		}
		s.mu.Unlock()
		close(exited)
		if !expected {
			select {
			case s.died <- fmt.Sprintf("server pid %d exited on its own (%v); log %s", cmd.Process.Pid, err, logPath):
			default:
			}
		}
	}()

	hc := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := hc.Get(s.endpoint() + "/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-exited:
			return fmt.Errorf("server exited before answering GET / (log %s):\n%s", logPath, tail(logPath, 20))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("server not answering GET / with 200 after 60s (log %s)", logPath)
		}
	}
	s.mu.Lock()
	s.gen++
	s.up = true
	s.broadcast()
	s.mu.Unlock()
	return nil
}

// kill sends SIGKILL to the server's process group and waits for it to
// exit. Clients see the server down from just before the signal.
func (s *server) kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	if cmd == nil {
		s.mu.Unlock()
		return
	}
	s.killing = true
	s.up = false
	s.broadcast()
	s.mu.Unlock()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
	<-exited
}

// waitNewer waits until a server newer than generation g0 is up. When the
// server of g0 is still up (the request failed while no kill happened),
// it waits liveWait instead, so that the request has long finished in
// the server before the caller looks at its outcome.
func (s *server) waitNewer(ctx context.Context, g0 int, liveWait time.Duration) error {
	live := time.Now().Add(liveWait)
	for {
		s.mu.Lock()
		gen, up, ch := s.gen, s.up, s.changed
		s.mu.Unlock()
		if up && gen > g0 {
			return nil
		}
		if up && gen == g0 && !time.Now().Before(live) {
			return nil
		}
		select {
		case <-ch:
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// waitUp waits until a server is up.
func (s *server) waitUp(ctx context.Context) error {
	for {
		s.mu.Lock()
		up, ch := s.up, s.changed
		s.mu.Unlock()
		if up {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// rss returns the server's resident set size in bytes (VmRSS).
func (s *server) rss() (int64, error) {
	pid := s.pid()
	if pid == 0 {
		return 0, errors.New("no server running")
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb << 10, err
			}
		}
	}
	return 0, errors.New("no VmRSS in /proc status")
}

// logFiles returns the log of every server started so far.
func (s *server) logFiles() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.logs...)
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// scanLogs returns the lines of the server logs that show a fault (a
// panic, a Go runtime fatal error, an ERROR-level record, a data race)
// and, apart, the WARN-level records.
func scanLogs(paths []string) (faults, warns []string) {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			faults = append(faults, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			where := filepath.Base(p) + ": " + line
			switch {
			case strings.Contains(line, "panic"), strings.HasPrefix(line, "fatal error"),
				strings.Contains(line, "level=ERROR"), strings.Contains(line, "DATA RACE"):
				faults = append(faults, where)
			case strings.Contains(line, "level=WARN"):
				warns = append(warns, where)
			}
		}
		f.Close()
	}
	return faults, warns
}
