// Package server is dynago's HTTP edge: DynamoDB's JSON 1.0 protocol on
// POST /, the X-Amz-Target routing table, request bodies and their limits,
// authentication headers, request ids, x-amz-crc32, and rendering every
// error exactly once as {"__type": ..., "message": ...}. It holds no
// DynamoDB semantics: those are in package engine.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.LowLevelAPI.html
package server

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/auth"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/wire"
)

// MaxRequestBytes is the largest request body DynamoDB accepts (16 MB),
// as sent and, for a compressed body, decompressed; larger bodies get
// HTTP 413.
const MaxRequestBytes = 16 << 20

// MaxHeaderBytes is the most request line and headers DynamoDB serves:
// 16 KB. Past it the request is refused with 400 Bad Request before
// anything else (scylladb/scylladb#23438, 2025-03-25: "DyanamoDB's server
// limits the total header size to just 16 KB. Above that, the request is
// failed with a "400 Bad Request" error"; a 17,000-byte URL gets 400 too,
// scylladb/scylladb#23442). DynamoDB's body for that 400 is not known;
// dynago's is plain text. (net/http itself refuses headers past its own
// http.Server.MaxHeaderBytes, 1 MB by default, with 431.)
const MaxHeaderBytes = 16 << 10

// Options configure a Server.
type Options struct {
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Metrics, when set, are kept and served at GET /metrics.
	Metrics *Metrics
	// AcceptStringIntegers takes "5" for 5 in Integer and Long members
	// (Limit, ReadCapacityUnits...), as DynamoDB Local does, for GUIs such
	// as dynamodb-admin whose forms send strings. DynamoDB, and dynago by
	// default, answer SerializationException "STRING_VALUE cannot be
	// converted to Long".
	AcceptStringIntegers bool
	// Intercept, when set, sees every valid API request before and after
	// the engine runs it, and may refuse it (see Interceptor): serve
	// --design classifies traffic against designs with one.
	Intercept Interceptor
	// Endpoints are GET endpoints served besides the server's own, by
	// exact URL path ("/design/traffic"; the query is the handler's):
	// behind the same signature check as /metrics and /insights. The
	// server's own paths (/, /insights, and /metrics when Metrics is set)
	// take precedence; any other GET is 404 as before.
	Endpoints map[string]http.Handler
	// Verifier, when set (serve --credentials FILE), verifies every
	// request's Signature Version 4 against its keys as DynamoDB does:
	// API calls, Streams calls and the GET endpoints (/metrics,
	// /insights, the Endpoints) alike; only the health check GET / is
	// open, as DynamoDB's. Nil accepts any well-formed credentials, as
	// DynamoDB Local does.
	Verifier *auth.Verifier
}

// Server is an http.Handler speaking DynamoDB's protocol.
type Server struct {
	engine    *engine.Engine
	log       *slog.Logger
	metrics   *Metrics
	decode    api.DecodeOptions
	intercept Interceptor
	endpoints map[string]http.Handler
	verify    *auth.Verifier
	console   http.Handler
	ready     atomic.Bool

	ids requestIDs
}

// New returns a Server for e. It answers GET / with 200 once MarkReady has
// been called (503 before).
func New(e *engine.Engine, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Server{engine: e, log: opts.Logger, metrics: opts.Metrics,
		decode:    api.DecodeOptions{StringIntegers: opts.AcceptStringIntegers},
		intercept: opts.Intercept, endpoints: opts.Endpoints, verify: opts.Verifier}
	s.ids.init()
	return s
}

// MarkReady makes the health check answer 200.
func (s *Server) MarkReady() { s.ready.Store(true) }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// DynamoDB's responses say "Server: Server", on success and error
	// alike (ScyllaDB Alternator's test_http_headers.py::test_server_header;
	// real boto3 header dumps).
	h.Set("Server", "Server")
	if headerBytes(r) > MaxHeaderBytes {
		h.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, "Bad Request: the request line and headers exceed 16 KB\n")
		return
	}
	if s.console != nil && (r.URL.Path == "/console" || strings.HasPrefix(r.URL.Path, "/console/")) {
		s.console.ServeHTTP(w, r)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "x-amzn-RequestId,x-amz-crc32")
		if r.Method == http.MethodOptions {
			if v := r.Header.Get("Access-Control-Request-Headers"); v != "" {
				h.Set("Access-Control-Allow-Headers", v)
			}
			if v := r.Header.Get("Access-Control-Request-Method"); v != "" {
				h.Set("Access-Control-Allow-Methods", v)
			}
			h.Set("Access-Control-Max-Age", "172800")
			w.WriteHeader(http.StatusOK)
			return
		}
	}
	if r.Method == http.MethodGet && r.URL.Path == "/" {
		s.health(w, r)
		return
	}
	if r.Method == http.MethodGet {
		var serve http.Handler
		switch {
		case r.URL.Path == "/insights":
			serve = http.HandlerFunc(s.insights)
		case r.URL.Path == "/metrics" && s.metrics != nil:
			serve = s.metrics.handler // Prometheus' text format
		default:
			serve = s.endpoints[r.URL.Path]
		}
		if serve != nil {
			if s.verify != nil {
				if _, err := s.verify.Verify(r, nil); err != nil {
					s.refuse(w, r, err)
					return
				}
			}
			serve.ServeHTTP(w, r)
			return
		}
	}
	if r.Method != http.MethodPost || !apiContentType(r) {
		h.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<UnknownOperationException/>\n")
		return
	}
	s.serveAPI(w, r)
}

// apiContentType reports whether r may be an API call: DynamoDB answers a
// request that has a body of any media type other than
// application/x-amz-json-1.0 or application/json with a 404
// <UnknownOperationException/> (docs/dynamodb-behaviour.md §1).
func apiContentType(r *http.Request) bool {
	if r.ContentLength == 0 {
		return true
	}
	mt := mediaType(r)
	return strings.EqualFold(mt, "application/x-amz-json-1.0") || strings.EqualFold(mt, "application/json")
}

// mediaType is r's Content-Type without parameters (compare it with
// strings.EqualFold: media types are case-insensitive).
func mediaType(r *http.Request) string {
	mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.TrimSpace(mt)
}

// health answers GET / as DynamoDB does once ready: 200 and
// "healthy: <host> ", the host the request named (DynamoDB answers
// "healthy: dynamodb.us-east-1.amazonaws.com ", trailing space included:
// dynalite's connection tests, recorded from DynamoDB; ScyllaDB
// Alternator's test_health.py), with a request id and x-amz-crc32. Before
// the store is open it answers 503 "starting: <host> ", and while the
// store refuses writes after a storage fault 503 "unhealthy: <host>
// <reason>" (dynago's own: DynamoDB's endpoint is never unhealthy to its
// clients).
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("x-amzn-RequestId", s.ids.next())
	status, body := http.StatusOK, "healthy: "+r.Host+" "
	if !s.ready.Load() {
		status, body = http.StatusServiceUnavailable, "starting: "+r.Host+" "
	} else if err := s.engine.Health(); err != nil {
		status, body = http.StatusServiceUnavailable, "unhealthy: "+r.Host+" "+err.Error()+"\n"
	}
	h.Set("x-amz-crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(body))), 10))
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// headerBytes is the size of r's request line and headers as sent.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	n += len("Host: ") + len(r.Host) + 2
	for _, te := range r.TransferEncoding { // net/http moves it out of Header
		n += len("Transfer-Encoding: ") + len(te) + 2
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
	}
	return n
}

// serveAPI handles one DynamoDB API call.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := s.ids.next()
	// The canonical form of x-amzn-RequestId, assigned directly: Set
	// would canonicalize (and allocate) the name on every request.
	w.Header()["X-Amzn-Requestid"] = []string{id}
	contentType := "application/x-amz-json-1.0"
	if strings.EqualFold(mediaType(r), "application/json") {
		contentType = "application/json"
	}

	bp := responseBuffers.Get().(*[]byte)
	out := (*bp)[:0]
	defer func() {
		if cap(out) <= maxPooledResponse {
			*bp = out[:0]
			responseBuffers.Put(bp)
		}
	}()

	target := r.Header.Get("X-Amz-Target")
	opName, status, err := s.call(w, r, target, &out)
	if err != nil {
		out, status = renderError(out[:0], err, s.log, id, opName)
	}
	if s.metrics != nil {
		s.metrics.request(opName, status, err, time.Since(start))
	}
	writeJSON(w, r, status, contentType, out)
	if s.log.Enabled(r.Context(), slog.LevelDebug) {
		s.log.Debug("request", "op", opName, "status", status, "id", id, "ms", float64(time.Since(start).Microseconds())/1000)
	}
}

// responseBuffers holds response bodies' buffers between requests (a
// *[]byte each), so that a response is not built up by reallocating from
// nothing; buffers over maxPooledResponse are left to the collector.
var responseBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// maxPooledResponse is the largest buffer responseBuffers keeps.
const maxPooledResponse = 64 << 10

// call routes and runs the operation, appending its response to *out.
func (s *Server) call(w http.ResponseWriter, r *http.Request, target string, out *[]byte) (opName string, status int, err error) {
	opName, run, ok, feature := route(target)
	raw, err := readBody(w, r)
	var body []byte
	if err == nil {
		body, err = decodeBody(r.Header, raw)
	}
	if err != nil {
		return opName, 0, err
	}
	// DynamoDB parses the body before it looks at the target or the
	// credentials: a body that is not JSON is a SerializationException
	// whatever else is wrong (docs/dynamodb-behaviour.md §1). A valid
	// request pays for no extra pass: the decoder finds the same fault.
	notJSON := func(err error) error {
		if len(body) > 0 && !(json.Valid(body) && utf8.Valid(body)) {
			return ddberr.Serialization("")
		}
		return err
	}
	if !ok && feature == "" {
		return opName, 0, notJSON(ddberr.New(ddberr.UnknownOperationException, ""))
	}
	region, err := s.authenticate(r, raw)
	if err != nil {
		return opName, 0, notJSON(err)
	}
	if !ok {
		return opName, 0, notJSON(unsupportedError(opName, feature))
	}
	ctx := engine.WithHost(engine.WithRegion(r.Context(), region), r.Host)
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic serving request", "op", opName, "panic", p)
			status, err = 0, ddberr.Internal(errors.New("panic"))
		}
	}()
	res, err := s.run(ctx, opName, run, body)
	if e, ok := ddberr.As(err); ok && e.Code == ddberr.SerializationException {
		err = notJSON(err) // the decoder stops at the first fault; DynamoDB parses first
	}
	if err != nil {
		return opName, 0, err
	}
	*out = res.AppendJSON(*out)
	return opName, http.StatusOK, nil
}

// route finds the operation an X-Amz-Target names: its name (the
// target without the service prefix), its opFunc and whether dynago has
// it, or, for a DynamoDB operation dynago does not have, the feature
// unsupportedError names.
func route(target string) (opName string, run opFunc, ok bool, feature string) {
	const prefix, streamsPrefix = "DynamoDB_20120810.", "DynamoDBStreams_20120810."
	switch {
	case strings.HasPrefix(target, prefix):
		opName = target[len(prefix):]
		run, ok = ops[opName]
		feature = unsupported[opName]
	case strings.HasPrefix(target, streamsPrefix):
		opName = target[len(streamsPrefix):]
		run, ok = streamOps[opName]
	}
	return opName, run, ok, feature
}

// run decodes and runs one operation, between the Interceptor's Before
// and After when there is one.
func (s *Server) run(ctx context.Context, opName string, op opFunc, body []byte) (output, error) {
	in, err := op.decode(body, s.decode)
	if err != nil {
		return nil, err
	}
	if s.intercept == nil {
		return op.run(ctx, s.engine, in)
	}
	if err := s.intercept.Before(ctx, opName, in); err != nil {
		return nil, err
	}
	res, err := op.run(ctx, s.engine, in)
	if err != nil {
		s.intercept.After(ctx, opName, in, nil, err)
	} else {
		s.intercept.After(ctx, opName, in, res, nil)
	}
	return res, err
}

// errTooLarge marks a body over MaxRequestBytes.
var errTooLarge = errors.New("request entity too large")

// errBrokenBody marks a request body that could not be read as sent (bad
// chunked framing, a body shorter than its Content-Length, a read that
// timed out): the request is not JSON, and is answered as such.
var errBrokenBody = errors.New("request body could not be read")

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > MaxRequestBytes {
		drainTooLarge(w, r.Body)
		return nil, errTooLarge
	}
	buf, err := readLimited(r.Body, r.ContentLength)
	if errors.Is(err, errTooLarge) {
		drainTooLarge(w, r.Body)
	} else if err != nil {
		return nil, fmt.Errorf("%w: %v", errBrokenBody, err)
	}
	return buf, err
}

// maxDrain and drainTime bound how much of a body over the limit is read
// and dropped before the 413 is sent.
const (
	maxDrain  = 32 << 20
	drainTime = 5 * time.Second
)

// drainTooLarge reads and drops what the client is still sending of a
// body over the limit (at most maxDrain bytes for at most drainTime), so
// that the 413 reaches it: a server that answers and closes
// while the client is still writing resets the connection, and the AWS
// CLI and boto3 then report "SSL validation failed" over TLS, curl an
// HTTP/2 framing error, instead of the answer (a fresh-user trial, issue
// 20).
func drainTooLarge(w http.ResponseWriter, body io.Reader) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(drainTime)) // not every ResponseWriter can; then the server's ReadTimeout bounds it
	io.Copy(io.Discard, io.LimitReader(body, maxDrain))
}

// readLimited reads rd to its end, at most MaxRequestBytes (errTooLarge
// past them), starting with room for hint bytes. The buffer doubles as it
// fills but never past MaxRequestBytes+1, so a body over the limit costs
// no more than 16 MB whatever its size.
func readLimited(rd io.Reader, hint int64) ([]byte, error) {
	// One byte past the hint, so that a body of exactly Content-Length
	// bytes reads its EOF without growing the buffer.
	return appendLimited(make([]byte, 0, min(max(hint+1, 512), MaxRequestBytes+1)), rd)
}

// appendLimited is readLimited appending to buf; the limit counts buf's
// bytes too.
func appendLimited(buf []byte, rd io.Reader) ([]byte, error) {
	const limit = MaxRequestBytes + 1
	for {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(2*cap(buf), limit))
			copy(grown, buf)
			buf = grown
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > MaxRequestBytes {
			return nil, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// authenticate checks the request's Signature Version 4 as DynamoDB does
// (package auth) and returns the region of its credential scope: with a
// Verifier, the signature itself over payload, the body as received;
// without, only the form of the credentials.
func (s *Server) authenticate(r *http.Request, payload []byte) (string, error) {
	if s.verify != nil {
		id, err := s.verify.Verify(r, payload)
		return id.Region, err
	}
	sig, err := auth.Parse(r)
	if err != nil {
		return "", err
	}
	return sig.Region, nil
}

// refuse answers a request to one of the GET endpoints whose signature
// failed, with the error body API calls get.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, err error) {
	id := s.ids.next()
	out, status := renderError(nil, err, s.log, id, r.URL.Path)
	w.Header().Set("x-amzn-RequestId", id)
	writeJSON(w, r, status, "application/x-amz-json-1.0", out)
}

// writeJSON sends a JSON response body out with status: compressed when
// the client accepts it and the body is large enough, with its length and
// the x-amz-crc32 of the bytes sent (compressed ones when compressed:
// ScyllaDB Alternator's test_crc.py; the Go SDK checks it so).
func writeJSON(w http.ResponseWriter, r *http.Request, status int, contentType string, out []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	if len(out) >= compressThreshold {
		if enc := responseEncoding(r.Header); enc != "" {
			out = compress(enc, out)
			h.Set("Content-Encoding", enc)
		}
	}
	h["X-Amz-Crc32"] = []string{strconv.FormatUint(uint64(crc32.ChecksumIEEE(out)), 10)} // x-amz-crc32, canonical
	h.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(status)
	w.Write(out)
}

// renderError appends err's JSON body and returns the HTTP status.
func renderError(dst []byte, err error, log *slog.Logger, id, op string) ([]byte, int) {
	if errors.Is(err, errTooLarge) {
		return dst, http.StatusRequestEntityTooLarge
	}
	if errors.Is(err, errBrokenBody) {
		log.Debug("request body could not be read", "op", op, "id", id, "err", err)
		err = ddberr.Serialization("")
	}
	e, ok := ddberr.As(err)
	if !ok {
		if errors.Is(err, context.Canceled) {
			e = ddberr.New(ddberr.RequestLimitExceeded, "Request was cancelled")
		} else {
			level := slog.LevelError
			if errors.Is(err, storage.ErrUnavailable) {
				level = slog.LevelDebug // the store has logged the fault once
			}
			log.Log(context.Background(), level, "internal error", "op", op, "id", id, "err", err)
			e = ddberr.Internal(err)
		}
	}
	dst = append(dst, `{"__type":`...)
	dst = wire.AppendString(dst, e.Code.Type())
	if e.Message != "" {
		if e.UpperMessage {
			dst = append(dst, `,"Message":`...)
		} else {
			dst = append(dst, `,"message":`...)
		}
		dst = wire.AppendString(dst, e.Message)
	}
	if e.CancellationReasons != nil {
		dst = appendCancellationReasons(append(dst, `,"CancellationReasons":`...), e.CancellationReasons)
	}
	if e.Item != nil {
		dst = append(append(dst, `,"Item":`...), e.Item...)
	}
	if e.ThrottlingReasons != nil {
		// ThrottlingException spells the member with a lower-case t
		// (docs/research-throttling.md §2).
		member := `,"ThrottlingReasons":[`
		if e.Code == ddberr.ThrottlingException {
			member = `,"throttlingReasons":[`
		}
		dst = append(dst, member...)
		for i, r := range e.ThrottlingReasons {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = wire.AppendString(append(dst, `{"reason":`...), r.Reason)
			dst = wire.AppendString(append(dst, `,"resource":`...), r.Resource)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = append(dst, '}')
	return dst, e.Code.Status()
}

// appendCancellationReasons appends a TransactionCanceledException's
// CancellationReasons array: each reason's Code ("None" when empty),
// then its Message and Item when set.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CancellationReason.html
func appendCancellationReasons(dst []byte, reasons []ddberr.CancellationReason) []byte {
	dst = append(dst, '[')
	for i, r := range reasons {
		if i > 0 {
			dst = append(dst, ',')
		}
		code := r.Code
		if code == "" {
			code = "None"
		}
		dst = wire.AppendString(append(dst, `{"Code":`...), code)
		if r.Message != "" {
			dst = wire.AppendString(append(dst, `,"Message":`...), r.Message)
		}
		if r.Item != nil {
			dst = append(append(dst, `,"Item":`...), r.Item...)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// requestIDs makes DynamoDB-style request ids: 52 characters of [0-9A-Z],
// unique per process (a random prefix and a counter).
type requestIDs struct {
	prefix [20]byte
	n      atomic.Uint64
}

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

func (g *requestIDs) init() {
	var seed [20]byte
	rand.Read(seed[:])
	for i, b := range seed {
		g.prefix[i] = idAlphabet[int(b)%len(idAlphabet)]
	}
}

func (g *requestIDs) next() string {
	var b [52]byte
	copy(b[:], g.prefix[:])
	n := g.n.Add(1)
	for i := len(b) - 1; i >= len(g.prefix); i-- {
		b[i] = idAlphabet[n%uint64(len(idAlphabet))]
		n /= uint64(len(idAlphabet))
	}
	return string(b[:])
}
