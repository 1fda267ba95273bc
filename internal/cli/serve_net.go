package cli

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Connection limits of "dynago serve".
const (
	// defaultMaxConnections bounds the connections served at once.
	defaultMaxConnections = 4096
	// refuseWriteTimeout bounds the answer to a connection over the limit.
	refuseWriteTimeout = 2 * time.Second
)

// listen opens serve's listener on o.addr: plain TCP, or TLS with
// --tls-cert and --tls-key (HTTP/1.1 and HTTP/2 by ALPN), at most
// o.maxConns connections at once. It returns the URL scheme.
func listen(o serveOptions, logger *slog.Logger) (net.Listener, string, error) {
	var cfg *tls.Config
	if o.tlsCert != "" || o.tlsKey != "" {
		if o.tlsCert == "" || o.tlsKey == "" {
			return nil, "", usageError{fmt.Errorf("--tls-cert and --tls-key go together: give both")}
		}
		cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			return nil, "", usageError{fmt.Errorf("--tls-cert %s / --tls-key %s: %w", o.tlsCert, o.tlsKey, err)}
		}
		cfg = &tls.Config{
			Certificates: []tls.Certificate{cert},
			MinVersion:   tls.VersionTLS12, // as DynamoDB's endpoints since 2024
			NextProtos:   []string{"h2", "http/1.1"},
		}
	}
	if o.maxConns < 1 {
		return nil, "", usageError{fmt.Errorf("--max-connections must be at least 1")}
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return nil, "", fmt.Errorf("listen on %s: %w", o.addr, err)
	}
	ln = &limitListener{Listener: ln, max: int64(o.maxConns), tls: cfg, log: logger}
	if cfg == nil {
		return ln, "http", nil
	}
	return tls.NewListener(ln, cfg), "https", nil
}

// limitListener serves at most max connections at once. A connection past
// the limit is answered at once with 503 Service Unavailable and a text
// naming the limit (over TLS when the server speaks TLS), and closed, so
// that a client learns why instead of waiting in the kernel's backlog.
type limitListener struct {
	net.Listener
	max    int64
	open   atomic.Int64
	tls    *tls.Config
	log    *slog.Logger
	warned atomic.Int64 // unix seconds of the last warning
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &countedConn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		go l.refuse(c)
	}
}

// refuse answers a connection over the limit and closes it.
func (l *limitListener) refuse(c net.Conn) {
	defer c.Close()
	if now := time.Now().Unix(); l.warned.Swap(now) != now {
		l.log.Warn("connection refused: too many connections", "max", l.max, "remote", c.RemoteAddr().String())
	}
	c.SetDeadline(time.Now().Add(refuseWriteTimeout))
	if l.tls != nil {
		c = tls.Server(c, l.tls)
	}
	body := "too many connections: this server serves at most " + strconv.FormatInt(l.max, 10) +
		" at once (dynago serve --max-connections); retry later\n"
	fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// countedConn gives its place back to the listener when closed.
type countedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}
