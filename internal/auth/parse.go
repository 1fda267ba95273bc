package auth

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dynago/dynago/internal/ddberr"
)

// The constants of DynamoDB's Signature Version 4.
const (
	// Algorithm is the only signing algorithm DynamoDB accepts.
	Algorithm = "AWS4-HMAC-SHA256"
	// Service is the service name a DynamoDB credential scope must name.
	// DynamoDB Streams clients sign with it too (the Streams API's SigV4
	// signing name is "dynamodb", not "streams.dynamodb").
	Service = "dynamodb"
	// Terminator ends every credential scope.
	Terminator = "aws4_request"
	// MaxSkew is how far a request's signing time may be from the server's
	// clock, either way: 15 minutes for DynamoDB, presigned requests
	// included (X-Amz-Expires is signed but not honoured outside S3:
	// aws/aws-sdk-go#2224).
	MaxSkew = 15 * time.Minute
)

// amzDateLayout is ISO 8601 "basic format", the layout of X-Amz-Date and of
// every time in DynamoDB's signature messages.
const amzDateLayout = "20060102T150405Z"

// Signature is the SigV4 authentication information of one request, as the
// client sent it: from the Authorization header, or from the query string of
// a presigned request. Parse fills it. The string fields are substrings of
// the request's header values (no copies), except in a presigned request,
// whose values are URL-decoded from the query string, and AmzDate when it
// comes from a Date header.
type Signature struct {
	// Presigned is true when the credentials came in the query string
	// (X-Amz-Algorithm, X-Amz-Credential, ...) rather than the
	// Authorization header.
	Presigned bool
	// Algorithm is the algorithm the client named: the Authorization
	// header's first word, or X-Amz-Algorithm. Verify accepts only
	// Algorithm ("AWS4-HMAC-SHA256").
	Algorithm string
	// Credential is the Credential (X-Amz-Credential) value as sent:
	// "<access key>/<YYYYMMDD>/<region>/<service>/aws4_request".
	Credential string
	// AccessKey, ScopeDate (YYYYMMDD), Region, ScopeService and
	// ScopeTerminator are the credential scope's five elements. They are
	// empty when the Credential does not have exactly five (Parse then
	// fails).
	AccessKey, ScopeDate, Region, ScopeService, ScopeTerminator string
	// SignedHeaders is the SignedHeaders (X-Amz-SignedHeaders) value as
	// sent: header names separated by ';', lower case and sorted when the
	// client follows the specification. See Headers.
	SignedHeaders string
	// Signature is the hex signature the client computed.
	Signature string
	// AmzDate is the signing time in ISO 8601 basic format
	// (YYYYMMDD'T'HHMMSS'Z'), as used in the string to sign: the
	// X-Amz-Date value as sent, or the Date header reformatted when there is
	// no X-Amz-Date.
	AmzDate string
	// Time is AmzDate parsed, in UTC.
	Time time.Time
	// SecurityToken is the X-Amz-Security-Token header (query parameter in a
	// presigned request), empty when absent.
	SecurityToken string
	// Expires is X-Amz-Expires of a presigned request, in whole seconds as
	// a Duration; 0 when absent or not a non-negative integer. It is part
	// of the signed query string, but DynamoDB, like every AWS service but
	// S3, does not use it: presigned requests get the same MaxSkew window
	// (aws/aws-sdk-go#2224).
	Expires time.Duration

	// credentialParts is the number of '/'-separated elements of the
	// Credential, trailing slashes ignored.
	credentialParts int
}

// Headers returns the signed header names, split at ';'. It allocates; the
// verifier iterates SignedHeaders instead.
func (s *Signature) Headers() []string {
	if s.SignedHeaders == "" {
		return nil
	}
	return strings.Split(s.SignedHeaders, ";")
}

// The messages DynamoDB answers malformed credentials with. See
// SOURCES.md for where each one was recorded.
const (
	msgMissingToken   = "Request is missing Authentication Token"
	msgFoundBoth      = "Found both 'X-Amz-Algorithm' as a query-string param and 'Authorization' as HTTP header."
	msgHostNotSigned  = "'Host' must be a 'SignedHeader' in the AWS Authorization."
	msgUnknownKey     = "The security token included in the request is invalid."
	msgBadToken       = "The security token included in the request is invalid"
	msgSignatureFirst = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
)

// Parse reads r's SigV4 credentials, from its Authorization header or, for
// a presigned request, its query string, and checks that they are
// complete and well formed, as DynamoDB does before it looks at the access
// key: the Authorization header's key=value pairs, the presence of
// Credential, Signature and SignedHeaders (or the five X-Amz-* query
// parameters) and of a date, the date's format, that Host is signed, the
// algorithm, and the Credential's five elements. It neither checks the
// signature, the credential scope nor the clock: Verify does.
//
// The errors are *ddberr.Error values, in DynamoDB's words:
//
//   - MissingAuthenticationTokenException "Request is missing Authentication
//     Token": no Authorization header starting "AWS4-" (after trimming
//     spaces) and no X-Amz-Algorithm query parameter.
//   - InvalidSignatureException "Found both 'X-Amz-Algorithm' as a
//     query-string param and 'Authorization' as HTTP header."
//   - IncompleteSignatureException "'X' not a valid key=value pair (missing
//     equal-sign) in Authorization header: '<header>'."
//   - IncompleteSignatureException "Authorization header requires
//     'Credential' parameter. ... Authorization=<header>" listing every
//     missing parameter and "Authorization header requires existence of
//     either a 'X-Amz-Date' or a 'Date' header. " when both are missing; for
//     a presigned request "AWS query-string parameters must include
//     'X-Amz-Algorithm'. ... Re-examine the query-string parameters."
//   - IncompleteSignatureException "Date must be in ISO-8601 'basic
//     format'. Got '<date>'. See http://en.wikipedia.org/wiki/ISO_8601"
//   - InvalidSignatureException "'Host' must be a 'SignedHeader' in the AWS
//     Authorization."
//   - IncompleteSignatureException "Unsupported AWS 'algorithm':
//     '<algorithm>' (only AWS4-HMAC-SHA256 for now). "
//   - IncompleteSignatureException "Credential must have exactly 5
//     slash-delimited elements, e.g. keyid/date/region/service/term, got
//     '<credential>'"
//
// Sources: dynalite's index.js and test/connection.js (recorded from
// DynamoDB), kinesalite's (recorded from Kinesis, the same AWS front end),
// ScyllaDB Alternator's test_authorization.py; see SOURCES.md.
func Parse(r *http.Request) (*Signature, error) {
	sig := new(Signature)
	if err := parseRequest(r, sig); err != nil {
		return nil, err
	}
	if err := sig.checkShape(); err != nil {
		return nil, err
	}
	return sig, nil
}

// parseRequest fills sig from r and checks what DynamoDB checks before the
// clock: that credentials are present and complete and the date well
// formed. The rest of Parse's checks are checkShape's, which Verify runs
// after the clock check, in DynamoDB's order.
func parseRequest(r *http.Request, sig *Signature) error {
	auth := strings.TrimSpace(r.Header.Get("Authorization"))
	header := strings.HasPrefix(auth, "AWS4-")
	query := r.URL != nil && rawQueryHasKey(r.URL.RawQuery, "X-Amz-Algorithm")
	switch {
	case header && query:
		return ddberr.New(ddberr.InvalidSignatureException, msgFoundBoth)
	case header:
		return parseAuthorization(r, auth, sig)
	case query:
		return parsePresigned(r, sig)
	}
	return ddberr.New(ddberr.MissingAuthenticationTokenException, msgMissingToken)
}

// authSeparator reports whether c separates the parts of an Authorization
// header: DynamoDB accepts commas, spaces or both (ScyllaDB Alternator
// test_authorization.py sends spaces only and commas only, both accepted by
// DynamoDB; scylladb#9568).
func authSeparator(c byte) bool { return authSeparators[c] }

var authSeparators = [256]bool{' ': true, ',': true, '\t': true}

// nextAuthPart returns the next part of s after skipping separators, and
// the rest of s.
func nextAuthPart(s string) (part, rest string) {
	i := 0
	for i < len(s) && authSeparator(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !authSeparator(s[j]) {
		j++
	}
	return s[i:j], s[j:]
}

func parseAuthorization(r *http.Request, auth string, sig *Signature) error {
	sig.Algorithm, _ = nextAuthPart(auth)
	rest := auth[len(sig.Algorithm):]
	var haveSigned bool
	for {
		var part string
		part, rest = nextAuthPart(rest)
		if part == "" {
			break
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return ddberr.New(ddberr.IncompleteSignatureException,
				"'"+part+"' not a valid key=value pair (missing equal-sign) in Authorization header: '"+auth+"'.")
		}
		switch k {
		case "Credential":
			sig.Credential = v
		case "Signature":
			sig.Signature = v
		case "SignedHeaders":
			sig.SignedHeaders, haveSigned = v, true
		}
	}
	date := r.Header.Get("X-Amz-Date")
	fromDateHeader := false
	if date == "" {
		date, fromDateHeader = r.Header.Get("Date"), true
	}
	// An empty SignedHeaders passes this check and fails the Host one
	// (dynalite's index.js: "SignedHeaders *is* allowed to be an empty
	// string at this point").
	if sig.Credential == "" || sig.Signature == "" || !haveSigned || date == "" {
		var msg strings.Builder
		if sig.Credential == "" {
			msg.WriteString("Authorization header requires 'Credential' parameter. ")
		}
		if sig.Signature == "" {
			msg.WriteString("Authorization header requires 'Signature' parameter. ")
		}
		if !haveSigned {
			msg.WriteString("Authorization header requires 'SignedHeaders' parameter. ")
		}
		if date == "" {
			msg.WriteString("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ")
		}
		msg.WriteString("Authorization=")
		msg.WriteString(auth)
		return ddberr.New(ddberr.IncompleteSignatureException, msg.String())
	}
	sig.SecurityToken = r.Header.Get("X-Amz-Security-Token")
	sig.splitCredential()
	return sig.setDate(date, fromDateHeader)
}

// The query parameters of a presigned request, in the order DynamoDB's front
// end lists the missing ones (kinesalite's index.js and test/connection.js).
var presignParams = [...]string{"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature", "X-Amz-SignedHeaders", "X-Amz-Date"}

func parsePresigned(r *http.Request, sig *Signature) error {
	sig.Presigned = true
	var vals [len(presignParams)]string
	var expires string
	for rest := r.URL.RawQuery; rest != ""; {
		var seg string
		seg, rest, _ = strings.Cut(rest, "&")
		k, v, _ := strings.Cut(seg, "=")
		switch k {
		case "X-Amz-Expires":
			expires = queryUnescape(v)
		case "X-Amz-Security-Token":
			if sig.SecurityToken == "" {
				sig.SecurityToken = queryUnescape(v)
			}
		default:
			for i, p := range presignParams {
				if k == p && vals[i] == "" {
					vals[i] = queryUnescape(v)
				}
			}
		}
	}
	var msg strings.Builder
	for i, p := range presignParams {
		if vals[i] == "" {
			msg.WriteString("AWS query-string parameters must include '" + p + "'. ")
		}
	}
	if msg.Len() > 0 {
		msg.WriteString("Re-examine the query-string parameters.")
		return ddberr.New(ddberr.IncompleteSignatureException, msg.String())
	}
	sig.Algorithm, sig.Credential, sig.Signature, sig.SignedHeaders = vals[0], vals[1], vals[2], vals[3]
	if n, err := strconv.ParseInt(expires, 10, 64); err == nil && n >= 0 && n <= int64(1<<63-1)/int64(time.Second) {
		sig.Expires = time.Duration(n) * time.Second
	}
	sig.splitCredential()
	return sig.setDate(vals[4], false)
}

// queryUnescape decodes a query-string component; a component that is not
// valid percent-encoding is taken as it is.
func queryUnescape(s string) string {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s
	}
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// rawQueryHasKey reports whether the raw query string has a parameter
// named key (with or without a value), without decoding or allocating.
func rawQueryHasKey(raw, key string) bool {
	for raw != "" {
		var seg string
		seg, raw, _ = strings.Cut(raw, "&")
		if strings.HasPrefix(seg, key) && (len(seg) == len(key) || seg[len(key)] == '=') {
			return true
		}
	}
	return false
}

// splitCredential sets the scope fields from Credential when it has five
// elements; trailing slashes are ignored, as DynamoDB does (dynalite's
// index.js).
func (s *Signature) splitCredential() {
	cred := strings.TrimRight(s.Credential, "/")
	s.credentialParts = strings.Count(cred, "/") + 1
	if s.credentialParts != 5 {
		return
	}
	s.AccessKey, cred, _ = strings.Cut(cred, "/")
	s.ScopeDate, cred, _ = strings.Cut(cred, "/")
	s.Region, cred, _ = strings.Cut(cred, "/")
	s.ScopeService, s.ScopeTerminator, _ = strings.Cut(cred, "/")
}

// setDate parses the signing time: ISO 8601 basic format, or, from a Date
// header, an HTTP date (RFC 7231: IMF-fixdate, RFC 850 or asctime).
func (s *Signature) setDate(date string, fromDateHeader bool) error {
	if t, ok := parseAmzDate(date); ok {
		s.AmzDate, s.Time = date, t
		return nil
	}
	if fromDateHeader {
		if t, err := http.ParseTime(date); err == nil {
			s.Time = t.UTC()
			s.AmzDate = s.Time.Format(amzDateLayout)
			return nil
		}
	}
	return ddberr.New(ddberr.IncompleteSignatureException,
		"Date must be in ISO-8601 'basic format'. Got '"+date+"'. See http://en.wikipedia.org/wiki/ISO_8601")
}

// parseAmzDate parses YYYYMMDD'T'HHMMSS'Z' strictly (each field in range),
// without allocating.
func parseAmzDate(s string) (time.Time, bool) {
	if len(s) != 16 || s[8] != 'T' || s[15] != 'Z' {
		return time.Time{}, false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(4, 2), num(6, 2)
	hour, minute, sec := num(9, 2), num(11, 2), num(13, 2)
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
		minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	if t.Day() != day { // the 31st of a 30-day month, 29 February of a common year
		return time.Time{}, false
	}
	return t, true
}

// checkShape runs the checks DynamoDB makes after the clock and before the
// credential scope, in its order: Host signed, the algorithm, the
// Credential's five elements.
func (s *Signature) checkShape() error {
	if !s.signs("host") {
		return ddberr.New(ddberr.InvalidSignatureException, msgHostNotSigned)
	}
	if s.Algorithm != Algorithm {
		return ddberr.New(ddberr.IncompleteSignatureException,
			"Unsupported AWS 'algorithm': '"+s.Algorithm+"' (only AWS4-HMAC-SHA256 for now). ")
	}
	if s.credentialParts != 5 {
		return ddberr.New(ddberr.IncompleteSignatureException,
			"Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '"+s.Credential+"'")
	}
	return nil
}

// signs reports whether name is among the signed headers, ignoring case
// (DynamoDB's Host check ignores case: dynalite's index.js).
func (s *Signature) signs(name string) bool {
	for rest := s.SignedHeaders; ; {
		var h string
		var more bool
		h, rest, more = strings.Cut(rest, ";")
		if strings.EqualFold(h, name) {
			return true
		}
		if !more {
			return false
		}
	}
}

// checkScope checks the credential scope against the request, as DynamoDB
// does after the clock and shape checks: a region (any non-empty name: dynago
// serves every region), the service, the terminator and the date, all
// compared case-sensitively. DynamoDB reports every failing element in one
// InvalidSignatureException, in this order (dynalite's index.js).
func (s *Signature) checkScope(service string) error {
	if s.Region != "" && s.ScopeService == service && s.ScopeTerminator == Terminator &&
		s.ScopeDate == s.AmzDate[:8] {
		return nil
	}
	var msg strings.Builder
	if s.Region == "" {
		msg.WriteString("Credential should be scoped to a valid region, not ''. ")
	}
	if s.ScopeService != service {
		msg.WriteString("Credential should be scoped to correct service: '" + service + "'. ")
	}
	if s.ScopeTerminator != Terminator {
		msg.WriteString("Credential should be scoped with a valid terminator: 'aws4_request', not '" + s.ScopeTerminator + "'. ")
	}
	if s.ScopeDate != s.AmzDate[:8] {
		msg.WriteString("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '" +
			s.ScopeDate + "' != '" + s.AmzDate[:8] + "', from '" + s.AmzDate + "'.")
	}
	return ddberr.New(ddberr.InvalidSignatureException, msg.String())
}
