package engine

import (
	"bufio"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// crashDirEnv names the data directory of the writer child process that
// TestCrash_IndexesAgreeWithTable kills.
const crashDirEnv = "DYNAGO_CRASH_CHILD_DIR"

// TestCrash_IndexesAgreeWithTable kills a process writing to an indexed
// on-disk table (SIGKILL, no shutdown) at several points, reopens the
// store each time and checks that the table and every index agree item
// for item: an index entry commits in the same storage batch as its item.
func TestCrash_IndexesAgreeWithTable(t *testing.T) {
	if os.Getenv(crashDirEnv) != "" {
		t.Skip("child process")
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	for round := 0; round < 3; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the child has written for a while, then kill it
		// mid-write.
		sc := bufio.NewScanner(out)
		writes := 0
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "wrote ") {
				writes++
				if writes == 3+round*2 {
					break
				}
			}
		}
		if writes == 0 {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("child wrote nothing")
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()

		e, st := openEngine(t, Options{}, dir)
		checkIndexes(t, e, st, "ixt")
		e.Close()
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			return
		}
	}
}

// TestCrashChild is the writer process of TestCrash_IndexesAgreeWithTable;
// it runs only with DYNAGO_CRASH_CHILD_DIR set, and writes until killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("run by TestCrash_IndexesAgreeWithTable")
	}
	e, _ := openEngine(t, Options{}, dir)
	run(e, (*Engine).CreateTable, indexedTable) // exists after the first round
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
			for {
				if err := randomWrite(e, r); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				total++
				if total%200 == 0 {
					os.Stdout.WriteString("wrote 200\n")
				}
				mu.Unlock()
			}
		}(uint64(w))
	}
	wg.Wait()
}
