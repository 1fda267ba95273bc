// Package gosdk drives a real "dynago serve" process through
// aws-sdk-go-v2, the way an application would.
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
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynago/dynago/internal/sdkhttp"
)

// binary is built once per test run.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dynago-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "dynago")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	build := exec.Command("go", "build", "-o", binary, "./cmd/dynago")
	build.Dir = root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build dynago:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Server is a running "dynago serve" process.
type Server struct {
	Endpoint string
	cmd      *exec.Cmd
	done     chan error
	stopped  bool
}

// StartServer starts dynago on a free loopback port with the given extra
// flags and waits until GET / answers 200.
func StartServer(tb testing.TB, args ...string) *Server {
	tb.Helper()
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

// Stop sends SIGTERM and waits for a clean exit. Stopping twice is fine.
func (s *Server) Stop(tb testing.TB) {
	tb.Helper()
	if s.stopped {
		return
	}
	s.stopped = true
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

// Kill ends the server with SIGKILL, as a crash would, and waits for it.
func (s *Server) Kill() {
	if s.stopped {
		return
	}
	s.stopped = true
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
