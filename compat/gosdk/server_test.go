// Package gosdk drives dynago through aws-sdk-go-v2, the way an
// application would: a real "dynago serve" process for each test, built
// from ./cmd/dynago when the first test needs it. With
// DYNAGO_GOSDK_SERVER=inproc the tests whose serve flags package
// dynagotest can express (--in-memory, --throttle, --capacity-scale,
// --ttl-sweep, --stream-rollover, --gsi-lag, --create-delay) run against
// an in-process server from dynagotest.New instead, so that the suite
// checks dynagotest end to end; the others (a data directory, a crash,
// TiKV, credentials and TLS) still start the binary.
package gosdk

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynago/dynago/dynagotest"
	"github.com/dynago/dynago/internal/sdkhttp"
)

// inProcess is DYNAGO_GOSDK_SERVER=inproc: StartServer runs what it can
// through dynagotest.
var inProcess = os.Getenv("DYNAGO_GOSDK_SERVER") == "inproc"

// binDir holds the dynago binary, built once per test run by dynago.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dynago-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildTags are the build tags of the dynago binary the tests start: none
// (the default build), or tikv when a test needs the TiKV backend
// (tikvcluster_test.go sets it).
var buildTags = ""

// buildOnce builds ./cmd/dynago into binDir with buildTags, the first time a
// test needs it.
var buildOnce = sync.OnceValues(func() (string, error) {
	binary := filepath.Join(binDir, "dynago")
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-tags", buildTags, "-o", binary, "./cmd/dynago")
	build.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build dynago: %w", err)
	}
	return binary, nil
})

// dynago returns the path of the built dynago binary.
func dynago(tb testing.TB) string {
	tb.Helper()
	binary, err := buildOnce()
	if err != nil {
		tb.Fatal(err)
	}
	return binary
}

// Server is a running "dynago serve" process, or an in-process server
// (DYNAGO_GOSDK_SERVER=inproc).
type Server struct {
	Endpoint string
	cmd      *exec.Cmd
	done     chan error
	stopped  bool
	inproc   *dynagotest.Server
}

// StartServer starts dynago on a free loopback port with the given extra
// flags and waits until GET / answers 200. With DYNAGO_GOSDK_SERVER=inproc
// and flags that dynagotest can express, the server runs in this process.
func StartServer(tb testing.TB, args ...string) *Server {
	tb.Helper()
	if opts, ok := inprocOptions(args); inProcess && ok {
		srv := dynagotest.New(tb, opts...)
		return &Server{Endpoint: srv.Endpoint(), inproc: srv}
	}
	binary := dynago(tb)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(binary, append([]string{"serve", "--addr", addr, "--log-level", "warn"}, args...)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	s := &Server{Endpoint: "http://" + addr, cmd: cmd, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	tb.Cleanup(func() { s.Stop(tb) })
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("dynago did not become ready: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop sends SIGTERM and waits for a clean exit (closes an in-process
// server). Stopping twice is fine.
func (s *Server) Stop(tb testing.TB) {
	tb.Helper()
	if s.stopped {
		return
	}
	s.stopped = true
	if s.inproc != nil {
		s.inproc.Close()
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		if err != nil {
			tb.Errorf("dynago exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		tb.Errorf("dynago did not stop within 30s of SIGTERM")
	}
}

// Kill ends the server with SIGKILL, as a crash would, and waits for it
// (closes an in-process server, which has nothing to crash: the tests
// that crash a server keep a data directory, which only a process has).
func (s *Server) Kill() {
	if s.stopped {
		return
	}
	s.stopped = true
	if s.inproc != nil {
		s.inproc.Close()
		return
	}
	s.cmd.Process.Kill()
	<-s.done
}

// Client returns an aws-sdk-go-v2 DynamoDB client for the server, with
// the SDK's default retry policy as applications have it, over
// sdkHTTPClient.
func (s *Server) Client() *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("dynago", "dynago", ""),
		HTTPClient:   sdkHTTPClient,
	})
}

// sdkHTTPClient is the SDK's default HTTP client with the request
// bodies' WriteTo hidden from net/http (sdkhttp.NoWriteTo, aws/aws-sdk-go-v2#2737),
// which otherwise fails a response now and then with "use of closed
// network connection".
var sdkHTTPClient = sdkhttp.NoWriteTo{Doer: awshttp.NewBuildableClient()}

var ctx = context.Background()

// inprocOptions returns the dynagotest options for serve flags, and
// whether dynagotest can express them all ("--flag value" forms only).
func inprocOptions(args []string) ([]dynagotest.Option, bool) {
	durations := map[string]func(time.Duration) dynagotest.Option{
		"--ttl-sweep": dynagotest.WithTTLSweep, "--stream-rollover": dynagotest.WithStreamRollover,
		"--gsi-lag": dynagotest.WithGSILag, "--create-delay": dynagotest.WithCreateDelay,
	}
	var opts []dynagotest.Option
	throttle, scale := false, 1.0
	for i := 0; i < len(args); i++ {
		flag := args[i]
		switch {
		case flag == "--in-memory":
		case flag == "--throttle":
			throttle = true
		case flag == "--capacity-scale" && i+1 < len(args):
			i++
			v, err := strconv.ParseFloat(args[i], 64)
			if err != nil {
				return nil, false
			}
			scale = v
		case durations[flag] != nil && i+1 < len(args):
			i++
			d, err := time.ParseDuration(args[i])
			if err != nil {
				return nil, false
			}
			opts = append(opts, durations[flag](d))
		default:
			return nil, false
		}
	}
	if throttle {
		opts = append(opts, dynagotest.WithThrottling(scale))
	}
	return opts, true
}
