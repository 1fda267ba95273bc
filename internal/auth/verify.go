package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/textproto"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dynago/dynago/internal/ddberr"
)

// Verifier checks requests' SigV4 signatures against a set of keys, as
// DynamoDB does. A Verifier is safe for concurrent use; its fields must not
// change while it is in use.
type Verifier struct {
	// Keys are the accepted access keys; nil accepts none.
	Keys *Keys
	// Now returns the server's time for the clock-skew check; nil means
	// time.Now.
	Now func() time.Time

	// service is the credential scope's required service name; "" means
	// Service. Only the AWS SigV4 test suite's vectors (service "service")
	// set it.
	service string
}

// Identity is who signed a verified request.
type Identity struct {
	// AccessKey is the access key id of the Credential.
	AccessKey string
	// Region is the credential scope's region, the region the client
	// believes it is talking to.
	Region string
	// Profile is the credentials-file profile the key came from.
	Profile string
	// Time is the request's signing time (X-Amz-Date), UTC.
	Time time.Time
}

// Verify authenticates r as DynamoDB does and returns who signed it. payload
// is the request body exactly as received: the compressed bytes when the
// request has a Content-Encoding. r's body is not read.
//
// The checks, in DynamoDB's order, and their errors (*ddberr.Error):
//
//  1. Parse's presence and syntax checks up to the date's format (see
//     Parse).
//  2. The clock: the signing time must be within MaxSkew (15 minutes) of
//     Now, else InvalidSignatureException "Signature expired: <signed> is
//     now earlier than <now-15m> (<now> - 15 min.)" or "Signature not yet
//     current: <signed> is still later than <now+15m> (<now> + 15 min.)",
//     times in ISO 8601 basic format, UTC, whole seconds (the comparison
//     keeps the fractions).
//  3. Parse's remaining checks: Host signed, the algorithm, five Credential
//     elements.
//  4. The credential scope: a region (any), service "dynamodb", terminator
//     "aws4_request", and the date of the signing time; every failing
//     element in one InvalidSignatureException, e.g. "Credential should be
//     scoped to correct service: 'dynamodb'. ".
//  5. The access key: unknown is UnrecognizedClientException "The security
//     token included in the request is invalid."
//  6. The signature, recomputed over the canonical request (method, URI
//     path normalized and encoded, canonical query string, the signed
//     headers' values trimmed and with runs of spaces folded, multiple
//     values joined by ',', and the SHA-256 of payload) and compared in
//     constant time. A mismatch is InvalidSignatureException "The request
//     signature we calculated does not match the signature you provided.
//     Check your AWS Secret Access Key and signing method. Consult the
//     service documentation for details.\n\nThe Canonical String for this
//     request should have been\n'<canonical request>'\n\nThe
//     String-to-Sign should have been\n'<string to sign>'\n".
//  7. The session token: X-Amz-Security-Token must equal the key's
//     aws_session_token, and be absent for a key without one, else
//     UnrecognizedClientException "The security token included in the
//     request is invalid" (no final period: DynamoDB's own inconsistency).
//
// The payload hash is always SHA-256(payload): DynamoDB, like every AWS
// service but S3, does not honour X-Amz-Content-Sha256 (neither a hash nor
// UNSIGNED-PAYLOAD); the header is an ordinary header, signed or not.
//
// Sources for every message and rule: SOURCES.md.
func (v *Verifier) Verify(r *http.Request, payload []byte) (Identity, error) {
	var sig Signature
	if err := parseRequest(r, &sig); err != nil {
		return Identity{}, err
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	if err := checkClock(sig.Time, now()); err != nil {
		return Identity{}, err
	}
	if err := sig.checkShape(); err != nil {
		return Identity{}, err
	}
	service := v.service
	if service == "" {
		service = Service
	}
	if err := sig.checkScope(service); err != nil {
		return Identity{}, err
	}
	key := v.Keys.entry(sig.AccessKey)
	if key == nil {
		return Identity{}, ddberr.New(ddberr.UnrecognizedClientException, msgUnknownKey)
	}
	if err := verifySignature(r, &sig, key, service, payload); err != nil {
		return Identity{}, err
	}
	if !constantTimeEqual(sig.SecurityToken, key.SessionToken) {
		return Identity{}, ddberr.New(ddberr.UnrecognizedClientException, msgBadToken)
	}
	return Identity{AccessKey: sig.AccessKey, Region: sig.Region, Profile: key.Profile, Time: sig.Time}, nil
}

// checkClock is DynamoDB's 15-minute window. The comparison uses now with
// its fractions: DynamoDB answers "Signature expired: 20141104T062952Z is now
// earlier than 20141104T062952Z (...)" (aws/aws-sdk-js#401), which only a
// comparison finer than the printed seconds gives.
func checkClock(signed, now time.Time) error {
	now = now.UTC()
	if early := now.Add(-MaxSkew); signed.Before(early) {
		return ddberr.New(ddberr.InvalidSignatureException, "Signature expired: "+signed.Format(amzDateLayout)+
			" is now earlier than "+early.Format(amzDateLayout)+" ("+now.Format(amzDateLayout)+" - 15 min.)")
	}
	if late := now.Add(MaxSkew); signed.After(late) {
		return ddberr.New(ddberr.InvalidSignatureException, "Signature not yet current: "+signed.Format(amzDateLayout)+
			" is still later than "+late.Format(amzDateLayout)+" ("+now.Format(amzDateLayout)+" + 15 min.)")
	}
	return nil
}

// constantTimeEqual compares a and b in time that depends only on their
// lengths.
func constantTimeEqual[A, B ~string | ~[]byte](a A, b B) bool {
	if len(a) != len(b) {
		return false
	}
	var x byte
	for i := 0; i < len(a); i++ {
		x |= a[i] ^ b[i]
	}
	return x == 0
}

// derivedKey is a signing key, HMAC(HMAC(HMAC(HMAC("AWS4"+secret, date),
// region), service), "aws4_request"), kept as the inner and outer HMAC
// pads so that signing a string to sign is two SHA-256 sums.
type derivedKey struct {
	date, region, service string
	ipad, opad            [sha256.BlockSize]byte
}

// signingKey returns k's signing key for the scope, deriving it (4 HMACs)
// only when the scope differs from the last one used with k.
func (k *keyEntry) signingKey(date, region, service string) *derivedKey {
	if d := k.derived.Load(); d != nil && d.date == date && d.region == region && d.service == service {
		return d
	}
	mac := func(key []byte, data string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(data))
		return h.Sum(nil)
	}
	key := mac(mac(mac(mac([]byte("AWS4"+k.SecretAccessKey), date), region), service), Terminator)
	d := &derivedKey{date: strings.Clone(date), region: strings.Clone(region), service: service}
	for i := range d.ipad {
		d.ipad[i], d.opad[i] = 0x36, 0x5c
	}
	for i, b := range key { // 32 bytes: shorter than a block, so used as is
		d.ipad[i] ^= b
		d.opad[i] ^= b
	}
	k.derived.Store(d)
	return d
}

// sign returns HMAC-SHA256(d's key, msg), where buf holds the inner pad
// followed by msg: SHA256(opad || SHA256(ipad || msg)).
func (d *derivedKey) sign(buf []byte) [sha256.Size]byte {
	inner := sha256.Sum256(buf)
	var outer [sha256.BlockSize + sha256.Size]byte
	copy(outer[:], d.opad[:])
	copy(outer[sha256.BlockSize:], inner[:])
	return sha256.Sum256(outer[:])
}

// bufPool holds the scratch buffers of Verify: the canonical request and
// the string to sign. A Verify allocates nothing once the pool is warm.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if cap(*b) <= 64<<10 {
		*b = (*b)[:0]
		bufPool.Put(b)
	}
}

func verifySignature(r *http.Request, sig *Signature, key *keyEntry, service string, payload []byte) error {
	creqBuf, stsBuf := getBuf(), getBuf()
	defer putBuf(creqBuf)
	defer putBuf(stsBuf)

	payloadHash := sha256.Sum256(payload)
	creq := appendCanonicalRequest((*creqBuf)[:0], r, sig, payloadHash[:])
	*creqBuf = creq
	creqHash := sha256.Sum256(creq)

	d := key.signingKey(sig.ScopeDate, sig.Region, service)
	sts := append((*stsBuf)[:0], d.ipad[:]...)
	sts = append(sts, Algorithm+"\n"...)
	sts = append(sts, sig.AmzDate...)
	sts = append(sts, '\n')
	sts = append(sts, sig.ScopeDate...)
	sts = append(sts, '/')
	sts = append(sts, sig.Region...)
	sts = append(sts, '/')
	sts = append(sts, service...)
	sts = append(sts, "/"+Terminator+"\n"...)
	sts = hex.AppendEncode(sts, creqHash[:])
	*stsBuf = sts

	mac := d.sign(sts)
	var want [2 * sha256.Size]byte
	hex.Encode(want[:], mac[:])
	if constantTimeEqual(want[:], sig.Signature) {
		return nil
	}
	return ddberr.New(ddberr.InvalidSignatureException, msgSignatureFirst+
		"\n\nThe Canonical String for this request should have been\n'"+string(creq)+
		"'\n\nThe String-to-Sign should have been\n'"+string(sts[sha256.BlockSize:])+"'\n")
}

// appendCanonicalRequest appends r's SigV4 canonical request:
//
//	method \n canonical URI \n canonical query \n canonical headers \n signed headers \n hex(payload hash)
//
// with one "name:value\n" line per signed header, in SignedHeaders' order.
func appendCanonicalRequest(b []byte, r *http.Request, sig *Signature, payloadHash []byte) []byte {
	b = append(b, r.Method...)
	b = append(b, '\n')
	b = appendCanonicalURI(b, rawPath(r))
	b = append(b, '\n')
	if r.URL != nil {
		b = appendCanonicalQuery(b, r.URL.RawQuery, sig.Presigned)
	}
	b = append(b, '\n')
	for rest := sig.SignedHeaders; ; {
		name, more, ok := strings.Cut(rest, ";")
		b = append(b, name...)
		b = append(b, ':')
		b = appendHeaderValues(b, r, name)
		b = append(b, '\n')
		if !ok {
			break
		}
		rest = more
	}
	b = append(b, '\n')
	b = append(b, sig.SignedHeaders...)
	b = append(b, '\n')
	return hex.AppendEncode(b, payloadHash)
}

// rawPath returns r's path as it came on the wire: from RequestURI on a
// server (so that "/ሴ" sent raw stays raw, not re-escaped), else the URL's
// escaped path, as a client sends it.
func rawPath(r *http.Request) string {
	if u := r.RequestURI; u != "" {
		if i := strings.Index(u, "://"); i >= 0 && !strings.HasPrefix(u, "/") { // absolute-form
			u = u[i+3:]
			if j := strings.IndexByte(u, '/'); j >= 0 {
				u = u[j:]
			} else {
				u = "/"
			}
		}
		if i := strings.IndexByte(u, '?'); i >= 0 {
			u = u[:i]
		}
		return u
	}
	if r.URL == nil {
		return "/"
	}
	return r.URL.EscapedPath()
}

// appendCanonicalURI appends the canonical form of a raw path for every AWS
// service but S3: dot segments removed and runs of '/' merged (RFC 3986
// §5.2.4; the SigV4 test suite's *-normalized cases), then every byte but
// the unreserved ones and '/' percent-encoded, so that the path as sent is
// encoded a second time ('%' becomes "%25").
func appendCanonicalURI(b []byte, path string) []byte {
	if path == "/" || path == "" {
		return append(b, '/')
	}
	var segs []string
	trailing := strings.HasSuffix(path, "/")
	for _, s := range strings.Split(path, "/") {
		switch s {
		case "", ".":
		case "..":
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
		default:
			segs = append(segs, s)
		}
	}
	if last := path[strings.LastIndexByte(path, '/')+1:]; last == "." || last == ".." {
		trailing = true
	}
	b = append(b, '/')
	for i, s := range segs {
		if i > 0 {
			b = append(b, '/')
		}
		b = appendEscaped(b, s)
	}
	if trailing && len(segs) > 0 {
		b = append(b, '/')
	}
	return b
}

const upperhex = "0123456789ABCDEF"

// unreserved reports whether c is an RFC 3986 unreserved character, the
// only ones SigV4 leaves unencoded.
func unreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// appendEscaped appends s with every byte but the unreserved ones
// percent-encoded in upper-case hex.
func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; unreserved(c) {
			b = append(b, c)
		} else {
			b = append(b, '%', upperhex[c>>4], upperhex[c&15])
		}
	}
	return b
}

// appendCanonicalQuery appends the canonical query string: every parameter
// decoded and re-encoded (a space as %20), sorted by encoded name then
// value, joined by '&'; X-Amz-Signature left out of a presigned request's.
// A '+' decodes to a space, as the AWS SDKs' signers read it; a component
// that is not valid percent-encoding is encoded as it came.
func appendCanonicalQuery(b []byte, raw string, presigned bool) []byte {
	if raw == "" {
		return b
	}
	type param struct{ k, v string }
	var params []param
	for rest := raw; rest != ""; {
		var seg string
		seg, rest, _ = strings.Cut(rest, "&")
		if seg == "" {
			continue
		}
		k, v, _ := strings.Cut(seg, "=")
		k, v = queryUnescape(k), queryUnescape(v)
		if presigned && k == "X-Amz-Signature" {
			continue
		}
		params = append(params, param{string(appendEscaped(nil, k)), string(appendEscaped(nil, v))})
	}
	sort.Slice(params, func(i, j int) bool {
		if params[i].k != params[j].k {
			return params[i].k < params[j].k
		}
		return params[i].v < params[j].v
	})
	for i, p := range params {
		if i > 0 {
			b = append(b, '&')
		}
		b = append(b, p.k...)
		b = append(b, '=')
		b = append(b, p.v...)
	}
	return b
}

// appendHeaderValues appends the canonical value of the signed header name
// (lower case, as in SignedHeaders): each value trimmed, runs of spaces
// folded to one, several values joined by ','. A signed header the request
// lacks has an empty value, as AWS computes it (vibe-aws/vibe-aws#1: AWS's
// canonical string shows "connection:" for a header its front end
// dropped).
func appendHeaderValues(b []byte, r *http.Request, name string) []byte {
	var vals []string
	switch {
	case strings.EqualFold(name, "host"):
		host := r.Host
		if host == "" && r.URL != nil {
			host = r.URL.Host
		}
		return appendFolded(b, host)
	default:
		vals = headerValues(r.Header, name)
		if vals == nil {
			switch {
			case strings.EqualFold(name, "content-length") && r.ContentLength > 0:
				// A client-side request keeps its length out of Header.
				return strconv.AppendInt(b, r.ContentLength, 10)
			case strings.EqualFold(name, "transfer-encoding"):
				// net/http moves it out of Header on a server.
				vals = r.TransferEncoding
			}
		}
	}
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendFolded(b, v)
	}
	return b
}

// headerValues finds the header name (any case) in h without allocating for
// names of up to 64 bytes.
func headerValues(h http.Header, name string) []string {
	var buf [64]byte
	if len(name) <= len(buf) {
		upper := true
		for i := 0; i < len(name); i++ {
			c := name[i]
			switch {
			case upper && 'a' <= c && c <= 'z':
				c -= 'a' - 'A'
			case !upper && 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			}
			buf[i] = c
			upper = c == '-'
		}
		if vs, ok := h[string(buf[:len(name)])]; ok {
			return vs
		}
	} else if vs, ok := h[textproto.CanonicalMIMEHeaderKey(name)]; ok {
		return vs
	}
	for k, vs := range h { // a key set without canonicalization
		if strings.EqualFold(k, name) {
			return vs
		}
	}
	return nil
}

// appendFolded appends v trimmed of leading and trailing white space, with
// every run of spaces inside folded to one space, as the AWS signers do
// ("  a   b  " is "a b"). Tabs inside are kept (the AWS SDK for Go v2 and
// the SigV4 documentation fold spaces only; botocore folds every kind of
// white space).
func appendFolded(b []byte, v string) []byte {
	v = strings.TrimSpace(v)
	for i := 0; i < len(v); i++ {
		if v[i] == ' ' && i > 0 && v[i-1] == ' ' {
			continue
		}
		b = append(b, v[i])
	}
	return b
}
