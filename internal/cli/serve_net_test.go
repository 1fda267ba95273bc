package cli

// The network edge of "dynago serve" (issue 20), tested with raw sockets:
// TLS (HTTP/1.1 and HTTP/2, plain HTTP refused), the connection limit,
// the read-header and idle timeouts, and the 16 MB body limit.

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/testcert"
)

// serveForTest runs "dynago serve --addr 127.0.0.1:0 args..." in this
// process and returns its base URL; the test's cleanup stops it.
func serveForTest(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	cmd := newServeCommand(pw, io.Discard)
	cmd.SetArgs(append([]string{"--addr", "127.0.0.1:0", "--log-level", "error"}, args...))
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx); pw.Close() }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("serve %v: %v (%v)", args, err, <-done)
	}
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	// "dynago listening on http://127.0.0.1:PORT (data: ...)"
	url, _, _ := strings.Cut(strings.TrimPrefix(line, "dynago listening on "), " ")
	return url
}

func TestServe_TLS(t *testing.T) {
	certFile, keyFile, pool := testcert.Write(t)
	url := serveForTest(t, "--in-memory", "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("serve printed %q, want an https:// endpoint", url)
	}
	for _, h2 := range []bool{false, true} {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: h2}
		if !h2 {
			tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{} // HTTP/1.1 only
		}
		resp, err := (&http.Client{Transport: tr}).Get(url + "/")
		if err != nil {
			t.Fatalf("GET / over TLS (h2 %v): %v", h2, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(string(body), "healthy: ") || (resp.ProtoMajor == 2) != h2 {
			t.Errorf("GET / over TLS (h2 %v): %s %s %q", h2, resp.Proto, resp.Status, body)
		}
		tr.CloseIdleConnections()
	}
	// Plain HTTP on the TLS port is refused (net/http's 400 for an HTTP
	// request sent to an HTTPS server).
	resp, err := http.Get("http://" + strings.TrimPrefix(url, "https://") + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(body), "HTTP request to an HTTPS server") {
		t.Errorf("plain HTTP to the TLS port: %s %q", resp.Status, body)
	}
}

func TestServe_TLSFlags(t *testing.T) {
	certFile, keyFile, _ := testcert.Write(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert", certFile}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-key", keyFile}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-cert", keyFile, "--tls-key", certFile}, "--tls-cert " + keyFile},
		{[]string{"--max-connections", "0"}, "--max-connections must be at least 1"},
		{[]string{"--credentials", "/nonexistent/credentials"}, "--credentials: "},
		{[]string{"--credentials", ""}, "--credentials needs a file name"},
		{[]string{"--tls-cert", "", "--tls-key", ""}, "--tls-cert needs a file name"},
		{[]string{"--credentials", certFile}, "--credentials: " + certFile + ":1: "},
	} {
		var out, errOut strings.Builder
		code := Main(append([]string{"serve", "--addr", "127.0.0.1:0", "--in-memory"}, tc.args...), &out, &errOut)
		if code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("serve %v: exit %d, %q; want exit 2 and %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}

// dial opens a raw connection to the server at url.
func dial(t *testing.T, url string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin reports whether the server closes c (after anything it
// sends) within d.
func closedWithin(c net.Conn, d time.Duration) (bool, string) {
	c.SetReadDeadline(time.Now().Add(d))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false, string(b)
	}
	return true, string(b)
}

func TestServe_MaxConnections(t *testing.T) {
	url := serveForTest(t, "--in-memory", "--max-connections", "2")
	a, b := dial(t, url), dial(t, url)
	_, _ = a, b
	time.Sleep(100 * time.Millisecond) // both accepted
	closed, got := closedWithin(dial(t, url), 5*time.Second)
	if !closed || !strings.HasPrefix(got, "HTTP/1.1 503 Service Unavailable\r\n") || !strings.Contains(got, "at most 2 at once (dynago serve --max-connections)") {
		t.Fatalf("third connection: closed %v, %q", closed, got)
	}
	a.Close()
	time.Sleep(100 * time.Millisecond)
	c := dial(t, url)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || line != "HTTP/1.1 200 OK\r\n" {
		t.Fatalf("a connection once one closed: %q %v", line, err)
	}
}

func TestServe_SlowClients(t *testing.T) {
	url := serveForTest(t, "--in-memory", "--read-header-timeout", "300ms", "--idle-timeout", "300ms")
	// Headers that never end.
	c := dial(t, url)
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\n")
	if closed, _ := closedWithin(c, 5*time.Second); !closed {
		t.Error("a client that never finished its headers kept its connection")
	}
	// A connection that never sends anything.
	if closed, _ := closedWithin(dial(t, url), 5*time.Second); !closed {
		t.Error("a silent connection was kept")
	}
	// An idle keep-alive connection after one request.
	c = dial(t, url)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	closed, got := closedWithin(c, 5*time.Second)
	if !closed || !strings.HasPrefix(got, "HTTP/1.1 200 OK\r\n") {
		t.Errorf("idle connection: closed %v after %q", closed, got)
	}
}

// TestServe_BodyLimit: a body over 16 MB is answered 413 with an empty body
// (docs/dynamodb-behaviour.md §1: dynalite's connection test, recorded from
// DynamoDB), whether its length is declared or it comes chunked, and the
// connection is closed rather than read to the end.
func TestServe_BodyLimit(t *testing.T) {
	url := serveForTest(t, "--in-memory")
	const head = "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n" +
		"Authorization: AWS4-HMAC-SHA256 Credential=AKID/20260102/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=abc\r\nX-Amz-Date: 20260102T030405Z\r\n"
	// Declared: refused before the body is read.
	c := dial(t, url)
	io.WriteString(c, head+"Content-Length: 16777217\r\n\r\n{")
	r := bufio.NewReader(c)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 413 || len(body) != 0 {
		t.Errorf("declared 16 MB + 1: %s %q", resp.Status, body)
	}
	// Chunked: refused once 16 MB + 1 have arrived.
	c = dial(t, url)
	w := bufio.NewWriter(c)
	go func() {
		w.WriteString(head + "Transfer-Encoding: chunked\r\n\r\n")
		chunk := strings.Repeat(" ", 1<<20)
		for i := 0; i < 20; i++ {
			if _, err := w.WriteString("100000\r\n" + chunk + "\r\n"); err != nil {
				return
			}
		}
		w.WriteString("0\r\n\r\n")
		w.Flush()
	}()
	resp, err = http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 413 || len(body) != 0 {
		t.Errorf("chunked 20 MB: %s %q", resp.Status, body)
	}
}

// TestServe_HeaderLimit: a request line and headers over 16 KB are
// refused with 400 before anything else, a long URL included
// (scylladb/scylladb#23438: DynamoDB's 16 KB header limit; PR #23442 for
// the 17,000-byte URL), and up to the limit a request is served.
func TestServe_HeaderLimit(t *testing.T) {
	url := serveForTest(t, "--in-memory")
	for _, tc := range []struct {
		name, request string
		want          string
	}{
		{"16 KB of headers", "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("a", 16<<10) + "\r\n\r\n", "HTTP/1.1 400 "},
		{"a 17,000-byte URL", "GET /" + strings.Repeat("a", 17000) + " HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 400 "},
		{"15 KB of headers", "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("a", 15<<10) + "\r\n\r\n", "HTTP/1.1 200 "},
	} {
		c := dial(t, url)
		io.WriteString(c, tc.request)
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, tc.want) {
			t.Errorf("%s: %q %v, want %q", tc.name, line, err, tc.want)
		}
	}
}
