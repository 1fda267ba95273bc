// Package gosdk drives a real "dynago serve" process through
// aws-sdk-go-v2, the way an application would.
package gosdk

import (
	"context"
	"fmt"
	"io"
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

// sdkHTTPClient is the SDK's default HTTP client with request bodies
// reduced to an io.ReadCloser. Go SDK clients otherwise fail a response
// now and then with "deserialization failed ... use of closed network
// connection" against any HTTP server: smithy-go's body reader answers
// io.EOF to net/http's WriteTo probe once the SDK has closed it, and
// net/http then closes the connection mid-response (aws/aws-sdk-go-v2#2737;
// bench/loadgen/client.go explains it in full). Under a loaded machine all
// of the default retryer's four attempts can hit it.
var sdkHTTPClient = noWriteToClient{awshttp.NewBuildableClient()}

type noWriteToClient struct{ c *awshttp.BuildableClient }

// Do sends r with its body's WriteTo hidden.
func (n noWriteToClient) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = struct{ io.ReadCloser }{r.Body}
	}
	return n.c.Do(r)
}

var ctx = context.Background()
