package auth

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go/logging"

	"github.com/dynago/dynago/internal/ddberr"
)

// captured is a request as a server received it, kept so that it can be
// rebuilt, and mutated, any number of times.
type captured struct {
	Method, RequestURI, Host string
	Header                   http.Header
	TransferEncoding         []string
	ContentLength            int64
	Body                     []byte
}

// request rebuilds the server-side *http.Request.
func (c *captured) request(tb testing.TB) *http.Request {
	tb.Helper()
	u, err := url.ParseRequestURI(c.RequestURI)
	if err != nil {
		tb.Fatalf("RequestURI %q: %v", c.RequestURI, err)
	}
	return &http.Request{
		Method: c.Method, RequestURI: c.RequestURI, URL: u, Host: c.Host,
		Header: c.Header.Clone(), TransferEncoding: c.TransferEncoding,
		ContentLength: c.ContentLength, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Body: http.NoBody,
	}
}

func (c *captured) clone() *captured {
	d := *c
	d.Header = c.Header.Clone()
	d.Body = bytes.Clone(c.Body)
	return &d
}

// recorder is a loopback HTTP server that keeps every request it gets.
type recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	last *captured
}

func newRecorder(tb testing.TB) *recorder {
	rec := &recorder{}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		rec.mu.Lock()
		rec.last = &captured{Method: r.Method, RequestURI: r.RequestURI, Host: r.Host, Header: r.Header.Clone(),
			TransferEncoding: r.TransferEncoding, ContentLength: r.ContentLength, Body: body}
		rec.mu.Unlock()
	}))
	tb.Cleanup(rec.srv.Close)
	return rec
}

// send sends req and returns the request as the server saw it.
func (rec *recorder) send(tb testing.TB, req *http.Request) *captured {
	tb.Helper()
	resp, err := rec.srv.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		tb.Fatalf("recorder answered %s", resp.Status)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.last
}

// testKeys are the keys of the tests: the SigV4 test suite's example key,
// a DynamoDB-looking one and one with a session token.
var testKeys = mustKeys(
	Key{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", Profile: "default"},
	Key{AccessKeyID: "AKIAIOSFODNN7EXAMPLE", SecretAccessKey: "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY", Profile: "dev"},
	Key{AccessKeyID: "ASIAEXAMPLETEMP", SecretAccessKey: "tempSecret/With+Chars=", SessionToken: "FwoGZXIvYXdzEXAMPLETOKEN//////////wEaDA==", Profile: "sts"},
)

func mustKeys(keys ...Key) *Keys {
	ks, err := NewKeys(keys...)
	if err != nil {
		panic(err)
	}
	return ks
}

func credsOf(tb testing.TB, id string) aws.Credentials {
	k, ok := testKeys.Lookup(id)
	if !ok {
		tb.Fatalf("no test key %s", id)
	}
	return aws.Credentials{AccessKeyID: k.AccessKeyID, SecretAccessKey: k.SecretAccessKey, SessionToken: k.SessionToken}
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// signTime is the signing time of the SDK-signed requests.
var signTime = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// sdkSign signs req with the AWS SDK for Go v2's signer as a DynamoDB client
// would, and returns the canonical string the SDK computed (from its
// signing log).
func sdkSign(tb testing.TB, req *http.Request, body []byte, creds aws.Credentials, region string, t time.Time) string {
	tb.Helper()
	var log logCapture
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.Logger = &log; o.LogSigning = true })
	if err := signer.SignHTTP(context.Background(), creds, req, sha256Hex(body), Service, region, t); err != nil {
		tb.Fatal(err)
	}
	return log.canonical(tb)
}

// logCapture is a smithy logging.Logger keeping the SDK signer's log.
type logCapture struct{ text string }

func (l *logCapture) Logf(_ logging.Classification, format string, v ...any) {
	l.text += fmt.Sprintf(format, v...)
}

// canonical extracts the canonical string from the signer's log.
func (l *logCapture) canonical(tb testing.TB) string {
	tb.Helper()
	const start = "---[ CANONICAL STRING  ]-----------------------------\n"
	const end = "\n---[ STRING TO SIGN ]"
	i, j := strings.Index(l.text, start), strings.Index(l.text, end)
	if i < 0 || j < i {
		tb.Fatalf("no canonical string in the signer's log %q", l.text)
	}
	return l.text[i+len(start) : j]
}

// wantErr checks that err is a *ddberr.Error with the code and message.
func wantErr(tb testing.TB, err error, code ddberr.Code, msg string) {
	tb.Helper()
	e, ok := ddberr.As(err)
	if !ok {
		tb.Fatalf("error %v (%T), want %s %q", err, err, code, msg)
	}
	if e.Code != code || e.Message != msg {
		tb.Fatalf("error\n  %s %q\nwant\n  %s %q", e.Code, e.Message, code, msg)
	}
}

// wantErrPrefix checks that err is a *ddberr.Error with the code and a
// message starting with prefix.
func wantErrPrefix(tb testing.TB, err error, code ddberr.Code, prefix string) *ddberr.Error {
	tb.Helper()
	e, ok := ddberr.As(err)
	if !ok {
		tb.Fatalf("error %v (%T), want %s %q...", err, err, code, prefix)
	}
	if e.Code != code || !strings.HasPrefix(e.Message, prefix) {
		tb.Fatalf("error\n  %s %q\nwant\n  %s %q...", e.Code, e.Message, code, prefix)
	}
	return e
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }
