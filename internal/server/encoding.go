package server

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/dynago/dynago/internal/ddberr"
)

// Compression of request and response bodies, as DynamoDB does it.
//
// Requests: Content-Encoding gzip (several members may follow one
// another) and deflate (the zlib format of RFC 1950, one stream) are
// undone before the body is read; anything else, and a body that does not
// decode, is answered with HTTP 500 InternalServerError, as DynamoDB
// answers it. The 16 MB limit applies to the bytes received and to the
// decompressed body.
//
// Responses: when Accept-Encoding allows gzip or deflate, a response body
// of 4 KB or more is compressed, and x-amz-crc32 is the CRC-32 of the
// compressed bytes; smaller bodies are sent as they are.
//
// Sources (ScyllaDB Alternator's tests, which run against DynamoDB):
// test/alternator/test_compressed_request.py (gzip, two gzip members,
// deflate accepted; garbage, empty, truncated and uncompressed bodies
// answered 500; two deflate streams refused; a valid gzip followed by junk
// accepted), test_compressed_response.py (the 4 KB threshold and the
// Accept-Encoding rules: see responseEncoding), test_crc.py (the CRC of
// the compressed bytes); PR scylladb/scylladb#28820 (2026-02-26: DynamoDB
// now refuses a compressed body whose decompressed size is past the
// limit). Research notes: docs/dynamodb-behaviour.md §1.2.

// compressThreshold is the smallest response body DynamoDB compresses:
// a 4,094-byte body is sent as it is and a 4,117-byte one compressed
// (test_compressed_response.py); 4096 is the round number between.
const compressThreshold = 4096

// errBadEncoding marks a request body that its Content-Encoding does not
// describe. DynamoDB answers such requests with HTTP 500.
var errBadEncoding = ddberr.New(ddberr.InternalServerError, "Internal server error")

// decodeBody undoes the request's Content-Encoding (several codings, in
// one header or several, are undone last first, as RFC 9110 §8.4 orders
// them). identity and empty list members change nothing; x-gzip is gzip
// (RFC 9110 §8.4.1.3). The decompressed body is bounded by
// MaxRequestBytes (errTooLarge past it).
func decodeBody(h http.Header, body []byte) ([]byte, error) {
	values := h.Values("Content-Encoding")
	if len(values) == 0 {
		return body, nil
	}
	var codings []string
	for _, v := range values {
		for _, c := range strings.Split(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		switch codings[i] {
		case "gzip", "x-gzip":
			body, err = gunzip(body)
		case "deflate":
			body, err = inflate(body)
		default:
			err = errBadEncoding
		}
		if err != nil {
			return nil, err
		}
	}
	return body, nil
}

// gunzip decodes one or more gzip members. Bytes after a member that do
// not start another readable one are ignored, as DynamoDB ignores them
// (test_gzip_request_with_extra_junk, marked dynamodb_bug there; Java's
// GZIPInputStream, which DynamoDB's stack most likely uses, ignores any
// trailing garbage the same way).
func gunzip(body []byte) ([]byte, error) {
	src := bytes.NewReader(body)
	zr, err := gzip.NewReader(src)
	if err != nil {
		return nil, errBadEncoding
	}
	out := make([]byte, 0, min(4*len(body)+512, MaxRequestBytes+1))
	for {
		zr.Multistream(false)
		if out, err = decompress(out, zr); err != nil {
			return nil, err
		}
		if src.Len() == 0 {
			return out, nil
		}
		// Bytes after a member that do not start a readable member are
		// ignored, as Java's GZIPInputStream ignores them.
		if zr.Reset(src) != nil {
			return out, nil
		}
	}
}

// inflate decodes exactly one zlib stream (RFC 1950); DynamoDB refuses
// two in a row (test_deflate_request_two_deflates), and so anything after
// the stream.
func inflate(body []byte) ([]byte, error) {
	src := bytes.NewReader(body)
	zr, err := zlib.NewReader(src)
	if err != nil {
		return nil, errBadEncoding
	}
	out, err := decompress(make([]byte, 0, min(4*len(body)+512, MaxRequestBytes+1)), zr)
	if err != nil {
		return nil, err
	}
	if src.Len() > 0 {
		return nil, errBadEncoding
	}
	return out, nil
}

// decompress appends a decompressing reader's output to out, to its end
// (appendLimited: at most MaxRequestBytes in all, and a body over them
// costs no more), as errTooLarge past the limit and errBadEncoding for a
// stream that does not decode.
func decompress(out []byte, r io.Reader) ([]byte, error) {
	out, err := appendLimited(out, r)
	switch {
	case errors.Is(err, errTooLarge):
		return nil, err
	case err != nil:
		return nil, errBadEncoding
	}
	return out, nil
}

// responseEncoding returns the content coding for a response to a request
// with header h: "gzip", "deflate" or "" (none). Only the last
// Accept-Encoding header counts. Its list is read as DynamoDB reads it
// (test_compressed_response.py, test_compressed_response_accept_encodings):
//   - coding names are case-insensitive; unknown names (br, zstd,
//     x-gzip, compress, a quoted or malformed token) and empty members are
//     ignored, and identity never wins over a compression;
//   - q is the first q parameter that parses, clamped to 0..1 (default 1);
//     q=0 refuses a coding;
//   - a coding listed again replaces its earlier entry only if that one
//     had q=0;
//   - "*" stands for gzip and deflate where they are not listed;
//   - the highest q wins; at equal q the one listed first, and a coding
//     listed by name before one that "*" stands for (gzip before deflate).
func responseEncoding(h http.Header) string {
	values := h.Values("Accept-Encoding")
	if len(values) == 0 {
		return ""
	}
	type entry struct {
		q    float64
		rank int
		seen bool
	}
	var gz, df, star entry
	for i, member := range strings.Split(values[len(values)-1], ",") {
		name, params, _ := strings.Cut(member, ";")
		var e *entry
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "gzip":
			e = &gz
		case "deflate":
			e = &df
		case "*":
			e = &star
		default:
			continue
		}
		if e.seen && e.q > 0 {
			continue
		}
		*e = entry{q: quality(params), rank: i, seen: true}
	}
	n := strings.Count(values[len(values)-1], ",") + 1
	if star.seen {
		if !gz.seen {
			gz = entry{q: star.q, rank: n, seen: true}
		}
		if !df.seen {
			df = entry{q: star.q, rank: n + 1, seen: true}
		}
	}
	switch {
	case gz.q > 0 && (gz.q > df.q || gz.q == df.q && gz.rank < df.rank):
		return "gzip"
	case df.q > 0:
		return "deflate"
	}
	return ""
}

// quality reads the q of an Accept-Encoding member's parameters: the
// first q=... that parses as a number, clamped to 0..1; 1 if none does.
func quality(params string) float64 {
	if params == "" {
		return 1
	}
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(p, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			continue
		}
		return min(max(q, 0), 1)
	}
	return 1
}

var (
	gzipWriters = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed); return w }}
	zlibWriters = sync.Pool{New: func() any { w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed); return w }}
)

// compress returns body in content coding enc ("gzip" or "deflate").
func compress(enc string, body []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(body)/4 + 64)
	var w interface {
		io.WriteCloser
		Reset(io.Writer)
	}
	var pool *sync.Pool
	if enc == "gzip" {
		pool = &gzipWriters
		w = pool.Get().(*gzip.Writer)
	} else {
		pool = &zlibWriters
		w = pool.Get().(*zlib.Writer)
	}
	w.Reset(&buf)
	w.Write(body) // a bytes.Buffer does not fail
	w.Close()
	pool.Put(w)
	return buf.Bytes()
}
