package engine

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
)

// crashDirEnv names the data directory of the writer child process that
// the crash tests kill; crashModeEnv says what it writes.
const (
	crashDirEnv  = "DYNAGO_CRASH_CHILD_DIR"
	crashModeEnv = "DYNAGO_CRASH_CHILD_MODE"
)

// TestCrash_IndexesAgreeWithTable kills a process writing to an indexed
// on-disk table (SIGKILL, no shutdown) at several points, reopens the
// store each time and checks that the table and every index agree item
// for item: an index entry commits in the same storage batch as its item.
func TestCrash_IndexesAgreeWithTable(t *testing.T) {
	crashRounds(t, "indexes", func(e *Engine, st storage.Store) { checkIndexes(t, e, st, "ixt") })
}

// TestCrash_TransactionsWholeOrAbsent kills a process making transfer
// transactions between on-disk accounts; after each restart the balances
// still sum to the opening total: every transaction is whole or absent.
func TestCrash_TransactionsWholeOrAbsent(t *testing.T) {
	crashRounds(t, "transfers", func(e *Engine, st storage.Store) {
		sum := 0
		for _, b := range balances(t, e, crashAccounts) {
			sum += b
		}
		if sum != crashAccounts*100 {
			t.Errorf("balances sum to %d after the crash, want %d", sum, crashAccounts*100)
		}
	})
}

// TestCrash_StreamAgreesWithTable kills a process writing to an indexed
// on-disk table with a stream whose shards roll over every 30 ms; after
// each restart, replaying the whole stream (following shard lineage)
// gives exactly the table: no change without its record, no record
// without its change.
func TestCrash_StreamAgreesWithTable(t *testing.T) {
	crashRounds(t, "streams", func(e *Engine, st storage.Store) {
		arn := latestArn(t, e, "ixt")
		checkReplay(t, readWholeStream(t, e, arn), nil, tableImages(t, e, st, "ixt"))
		checkIndexes(t, e, st, "ixt")
	})
}

const crashAccounts = 20

// crashRounds runs the writer child in mode three times, killing it with
// SIGKILL while it writes, and checks the reopened store each time.
func crashRounds(t *testing.T, mode string, check func(*Engine, storage.Store)) {
	if os.Getenv(crashDirEnv) != "" {
		t.Skip("child process")
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	for round := 0; round < 3; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashModeEnv+"="+mode)
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
		check(e, st)
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
	opts := Options{}
	if os.Getenv(crashModeEnv) == "streams" {
		opts = Options{StreamShards: 2, StreamRollover: 30 * time.Millisecond, StreamUpkeep: 10 * time.Millisecond}
	}
	e, _ := openEngine(t, opts, dir)
	write := randomWrite
	switch os.Getenv(crashModeEnv) {
	case "streams":
		run(e, (*Engine).CreateTable, streamedTable) // exists after the first round
	case "transfers":
		if _, err := run(e, (*Engine).CreateTable, accountsTable); err == nil {
			for i := 0; i < crashAccounts; i++ {
				mustRun(t, e, (*Engine).PutItem, fmt.Sprintf(`{"TableName":"accounts","Item":{"pk":{"S":"a%d"},"bal":{"N":"100"}}}`, i))
			}
		}
		write = func(e *Engine, r *rand.Rand) error {
			from, to := r.IntN(crashAccounts), r.IntN(crashAccounts)
			if from == to {
				return nil
			}
			if err := transfer(e, from, to, 1+r.IntN(30)); err != nil && !isCancelled(err, ddberr.TransactionCanceledException) {
				return err
			}
			return nil
		}
	default:
		run(e, (*Engine).CreateTable, indexedTable) // exists after the first round
	}
	var mu sync.Mutex
	total := 0
	startWorkers(4, uint64(time.Now().UnixNano()), func(r *rand.Rand) {
		for {
			if err := write(e, r); err != nil {
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
	})()
}
