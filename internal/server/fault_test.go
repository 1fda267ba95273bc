package server_test

// Storage faults through the HTTP edge (issue 20): while the disk refuses
// writes, every write is answered promptly with DynamoDB's 500
// InternalServerError body, reads keep working and GET / answers 503
// naming the fault; once the fault ends writes resume without a restart,
// GET / is 200 again, and every acknowledged write is there. The fault is
// injected with Pebble's vfs/errorfs on the WAL.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/server"
	"github.com/dynago/dynago/internal/storage/pebble"
)

// walFault fails WAL writes and syncs with ENOSPC while on.
type walFault struct{ on atomic.Bool }

func (f *walFault) String() string { return "wal fault" }

func (f *walFault) MaybeError(op errorfs.Op) error {
	if !f.on.Load() || !strings.HasSuffix(op.Path, ".log") {
		return nil
	}
	switch op.Kind {
	case errorfs.OpCreate, errorfs.OpReuseForWrite, errorfs.OpFileWrite, errorfs.OpFileSync,
		errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
		return syscall.ENOSPC
	}
	return nil
}

func TestServer_StorageFault_AnswersAndRecovers(t *testing.T) {
	f := &walFault{}
	st, err := pebble.Open(pebble.Options{Dir: "db", FS: errorfs.Wrap(vfs.NewMem(), f), ReadCached: catalog.IsKey})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(st, engine.Options{})
	s := server.New(eng, server.Options{})
	s.MarkReady()
	ts := httptest.NewServer(s)
	defer func() { ts.Close(); eng.Close(); st.Close() }()

	if status, _, body := call(t, ts, "CreateTable", `{"TableName":"Fault","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`); status != 200 {
		t.Fatalf("CreateTable: %d %s", status, body)
	}
	put := func(pk string) (int, []byte) {
		status, _, body := call(t, ts, "PutItem", fmt.Sprintf(`{"TableName":"Fault","Item":{"pk":{"S":%q}}}`, pk))
		return status, body
	}
	health := func() (int, string) {
		resp, err := http.Get(ts.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, b.String()
	}
	var acked []string
	for i := 0; i < 20; i++ {
		pk := fmt.Sprintf("before-%d", i)
		if status, body := put(pk); status != 200 {
			t.Fatalf("PutItem: %d %s", status, body)
		}
		acked = append(acked, pk)
	}

	f.on.Store(true)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				pk := fmt.Sprintf("during-%d-%d", w, i)
				start := time.Now()
				status, body := put(pk)
				if took := time.Since(start); took > 5*time.Second {
					t.Errorf("PutItem during the fault took %v", took)
				}
				switch {
				case status == 200:
					mu.Lock()
					acked = append(acked, pk)
					mu.Unlock()
				case status != 500 || string(body) != `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}`:
					t.Errorf("PutItem during the fault: %d %s", status, body)
				}
			}
		}()
	}
	wg.Wait()
	if status, body := health(); status != 503 || !strings.Contains(body, "unhealthy: ") || !strings.Contains(body, "no space left on device") {
		t.Errorf("GET / during the fault: %d %q", status, body)
	}
	if status, _, body := call(t, ts, "GetItem", `{"TableName":"Fault","Key":{"pk":{"S":"before-0"}}}`); status != 200 || !strings.Contains(string(body), "before-0") {
		t.Errorf("GetItem during the fault: %d %s", status, body)
	}

	f.on.Store(false)
	deadline := time.Now().Add(20 * time.Second)
	for {
		status, _ := health()
		if status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("GET / never became healthy again")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if status, body := put("after"); status != 200 {
		t.Fatalf("PutItem after the fault: %d %s", status, body)
	}
	acked = append(acked, "after")
	for _, pk := range acked {
		status, _, body := call(t, ts, "GetItem", fmt.Sprintf(`{"TableName":"Fault","Key":{"pk":{"S":%q}},"ConsistentRead":true}`, pk))
		if status != 200 || !strings.Contains(string(body), pk) {
			t.Fatalf("acknowledged PutItem %s lost: %d %s", pk, status, body)
		}
	}
}
