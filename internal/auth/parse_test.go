package auth

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/ddberr"
)

const goodAuth = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260314/eu-west-2/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc"

// TestParse_Errors: Parse's answers to incomplete or malformed credentials,
// each in DynamoDB's words, with where they were recorded.
func TestParse_Errors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		query  string
		header map[string]string
		code   ddberr.Code
		msg    string
	}{
		// dynalite test/connection.js ("should return
		// MissingAuthenticationTokenException if no Authorization header"),
		// recorded from DynamoDB; ScyllaDB Alternator
		// test_authorization.py::test_no_authorization_header.
		{name: "no Authorization", header: map[string]string{"X-Amz-Date": "20260314T150926Z"},
			code: ddberr.MissingAuthenticationTokenException, msg: "Request is missing Authentication Token"},
		// dynalite test/connection.js ("... if incomplete Authorization
		// header": "AWS4").
		{name: "Authorization AWS4", header: map[string]string{"Authorization": "AWS4"},
			code: ddberr.MissingAuthenticationTokenException, msg: "Request is missing Authentication Token"},
		{name: "Authorization Basic", header: map[string]string{"Authorization": "Basic dXNlcjpwYXNz"},
			code: ddberr.MissingAuthenticationTokenException, msg: "Request is missing Authentication Token"},
		// X-Amz-Credential without X-Amz-Algorithm is not a presigned
		// request (kinesalite index.js: 'X-Amz-Algorithm' in query).
		{name: "query credential only", query: "X-Amz-Credential=AKIDEXAMPLE%2F20260314%2Fus-east-1%2Fdynamodb%2Faws4_request",
			code: ddberr.MissingAuthenticationTokenException, msg: "Request is missing Authentication Token"},
		// dynalite test/connection.js ("... if Authorization header is
		// \"AWS4-\"").
		{name: "AWS4- and no date", header: map[string]string{"Authorization": "AWS4-"},
			code: ddberr.IncompleteSignatureException,
			msg: "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter. " +
				"Authorization header requires 'SignedHeaders' parameter. Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. " +
				"Authorization=AWS4-"},
		// internal/server's test of the same (the date is sent there).
		{name: "AWS4- with a date", header: map[string]string{"Authorization": "AWS4-", "X-Amz-Date": "20260102T030405Z"},
			code: ddberr.IncompleteSignatureException,
			msg: "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter. " +
				"Authorization header requires 'SignedHeaders' parameter. Authorization=AWS4-"},
		{name: "only the signature missing", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature="},
			code: ddberr.IncompleteSignatureException,
			msg:  "Authorization header requires 'Signature' parameter. Authorization=AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=host, Signature="},
		{name: "date missing", header: map[string]string{"Authorization": goodAuth},
			code: ddberr.IncompleteSignatureException,
			msg:  "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=" + goodAuth},
		// dynalite index.js, recorded: "'Credential' not a valid key=value
		// pair (missing equal-sign) in Authorization header:
		// 'AWS4-HMAC-SHA256 Signature=b,    Credential,    SignedHeaders'."
		{name: "missing equal sign", header: map[string]string{"Authorization": "AWS4-HMAC-SHA256 Signature=b,    Credential,    SignedHeaders"},
			code: ddberr.IncompleteSignatureException,
			msg:  "'Credential' not a valid key=value pair (missing equal-sign) in Authorization header: 'AWS4-HMAC-SHA256 Signature=b,    Credential,    SignedHeaders'."},
		// dynalite index.js, recorded: "Date must be in ISO-8601 'basic
		// format'. Got '201'. See http://en.wikipedia.org/wiki/ISO_8601".
		{name: "X-Amz-Date malformed", header: map[string]string{"Authorization": goodAuth, "X-Amz-Date": "201"},
			code: ddberr.IncompleteSignatureException, msg: "Date must be in ISO-8601 'basic format'. Got '201'. See http://en.wikipedia.org/wiki/ISO_8601"},
		{name: "X-Amz-Date extended format", header: map[string]string{"Authorization": goodAuth, "X-Amz-Date": "2026-03-14T15:09:26Z"},
			code: ddberr.IncompleteSignatureException, msg: "Date must be in ISO-8601 'basic format'. Got '2026-03-14T15:09:26Z'. See http://en.wikipedia.org/wiki/ISO_8601"},
		{name: "X-Amz-Date 31 April", header: map[string]string{"Authorization": goodAuth, "X-Amz-Date": "20260431T000000Z"},
			code: ddberr.IncompleteSignatureException, msg: "Date must be in ISO-8601 'basic format'. Got '20260431T000000Z'. See http://en.wikipedia.org/wiki/ISO_8601"},
		// Not recorded for a Date header: the same message is assumed.
		{name: "Date malformed", header: map[string]string{"Authorization": goodAuth, "Date": "yesterday"},
			code: ddberr.IncompleteSignatureException, msg: "Date must be in ISO-8601 'basic format'. Got 'yesterday'. See http://en.wikipedia.org/wiki/ISO_8601"},
		// dynalite index.js, recorded: "'Host' must be a 'SignedHeader' in
		// the AWS Authorization." (checked ignoring case).
		{name: "host not signed", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=x-amz-date, Signature=abc"},
			code: ddberr.InvalidSignatureException, msg: "'Host' must be a 'SignedHeader' in the AWS Authorization."},
		// "SignedHeaders *is* allowed to be an empty string at this point"
		// (dynalite index.js): the Host check rejects it.
		{name: "SignedHeaders empty", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, SignedHeaders=, Signature=abc"},
			code: ddberr.InvalidSignatureException, msg: "'Host' must be a 'SignedHeader' in the AWS Authorization."},
		// dynalite index.js, recorded: "Unsupported AWS 'algorithm':
		// 'AWS4-HMAC-SHA25' (only AWS4-HMAC-SHA256 for now). "
		{name: "algorithm", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "AWS4-HMAC-SHA25 Credential=a/b/c/d/e, SignedHeaders=host, Signature=abc"},
			code: ddberr.IncompleteSignatureException, msg: "Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA25' (only AWS4-HMAC-SHA256 for now). "},
		// dynalite index.js, recorded: "Credential must have exactly 5
		// slash-delimited elements, e.g. keyid/date/region/service/term,
		// got 'a/b/c/d'"; trailing slashes are ignored.
		{name: "credential of 4", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "AWS4-HMAC-SHA256 Credential=a/b/c/d, SignedHeaders=host, Signature=abc"},
			code: ddberr.IncompleteSignatureException, msg: "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got 'a/b/c/d'"},
		{name: "credential of 4 and a slash", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "AWS4-HMAC-SHA256 Credential=a/b/c/d//, SignedHeaders=host, Signature=abc"},
			code: ddberr.IncompleteSignatureException, msg: "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got 'a/b/c/d//'"},
		{name: "credential of 6", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "AWS4-HMAC-SHA256 Credential=a/b/c/d/e/f, SignedHeaders=host, Signature=abc"},
			code: ddberr.IncompleteSignatureException, msg: "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got 'a/b/c/d/e/f'"},
		// The order: the date's format before Host, Host before the
		// algorithm, the algorithm before the Credential (dynalite
		// index.js's "THEN" sequence).
		{name: "order: date first", header: map[string]string{"X-Amz-Date": "x",
			"Authorization": "AWS4-X Credential=a, SignedHeaders=x, Signature=abc"},
			code: ddberr.IncompleteSignatureException, msg: "Date must be in ISO-8601 'basic format'. Got 'x'. See http://en.wikipedia.org/wiki/ISO_8601"},
		{name: "order: host second", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "AWS4-X Credential=a, SignedHeaders=x, Signature=abc"},
			code: ddberr.InvalidSignatureException, msg: "'Host' must be a 'SignedHeader' in the AWS Authorization."},
		{name: "order: algorithm third", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "AWS4-X Credential=a, SignedHeaders=host, Signature=abc"},
			code: ddberr.IncompleteSignatureException, msg: "Unsupported AWS 'algorithm': 'AWS4-X' (only AWS4-HMAC-SHA256 for now). "},
		// kinesalite test/connection.js, recorded from the AWS front end
		// DynamoDB shares (Kinesis): not recorded for DynamoDB itself.
		{name: "both header and query", query: "X-Amz-Algorithm", header: map[string]string{"Authorization": goodAuth},
			code: ddberr.InvalidSignatureException, msg: "Found both 'X-Amz-Algorithm' as a query-string param and 'Authorization' as HTTP header."},
		{name: "query incomplete", query: "X-Amz-Algorithm",
			code: ddberr.IncompleteSignatureException,
			msg: "AWS query-string parameters must include 'X-Amz-Algorithm'. AWS query-string parameters must include 'X-Amz-Credential'. " +
				"AWS query-string parameters must include 'X-Amz-Signature'. AWS query-string parameters must include 'X-Amz-SignedHeaders'. " +
				"AWS query-string parameters must include 'X-Amz-Date'. Re-examine the query-string parameters."},
		{name: "query without date", query: "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=a%2Fb%2Fc%2Fd%2Fe&X-Amz-Signature=abc&X-Amz-SignedHeaders=host",
			code: ddberr.IncompleteSignatureException,
			msg:  "AWS query-string parameters must include 'X-Amz-Date'. Re-examine the query-string parameters."},
		{name: "query date malformed", query: "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=a%2Fb%2Fc%2Fd%2Fe&X-Amz-Signature=abc&X-Amz-SignedHeaders=host&X-Amz-Date=2026",
			code: ddberr.IncompleteSignatureException, msg: "Date must be in ISO-8601 'basic format'. Got '2026'. See http://en.wikipedia.org/wiki/ISO_8601"},
		{name: "query host not signed", query: "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=a%2Fb%2Fc%2Fd%2Fe&X-Amz-Signature=abc&X-Amz-SignedHeaders=x-amz-date&X-Amz-Date=20260314T150926Z",
			code: ddberr.InvalidSignatureException, msg: "'Host' must be a 'SignedHeader' in the AWS Authorization."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", "http://localhost:8000/?"+tc.query, nil)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			sig, err := Parse(req)
			if sig != nil {
				t.Errorf("Parse returned %+v with an error", sig)
			}
			wantErr(t, err, tc.code, tc.msg)
		})
	}
}

// TestParse: what Parse returns for well-formed credentials.
func TestParse(t *testing.T) {
	at := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	base := Signature{Algorithm: Algorithm, Credential: "AKIDEXAMPLE/20260314/eu-west-2/dynamodb/aws4_request",
		AccessKey: "AKIDEXAMPLE", ScopeDate: "20260314", Region: "eu-west-2", ScopeService: "dynamodb", ScopeTerminator: "aws4_request",
		SignedHeaders: "host;x-amz-date", Signature: "abc", AmzDate: "20260314T150926Z", Time: at, credentialParts: 5}
	with := func(f func(*Signature)) Signature { s := base; f(&s); return s }
	for _, tc := range []struct {
		name   string
		query  string
		header map[string]string
		want   Signature
	}{
		{name: "SDK style", header: map[string]string{"Authorization": goodAuth, "X-Amz-Date": "20260314T150926Z"}, want: base},
		// Components separated by spaces only: ScyllaDB Alternator
		// test_authorization.py::test_expired_signature sends
		// "Credential=alternator/2/3/4/aws4_request SignedHeaders=x-amz-date;host
		// Signature=123" and DynamoDB parses it (it answers "Signature
		// expired").
		{name: "spaces only", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260314/eu-west-2/dynamodb/aws4_request SignedHeaders=host;x-amz-date Signature=abc"},
			want: base},
		// Commas only: test_authorization.py::test_authorization_no_whitespace,
		// scylladb/scylladb#9568.
		{name: "commas only", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260314/eu-west-2/dynamodb/aws4_request,SignedHeaders=host;x-amz-date,Signature=abc"},
			want: base},
		{name: "comma after the algorithm, extra blanks, unknown keys, order", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "  AWS4-HMAC-SHA256,\tSignature=abc ,, Foo=bar,  SignedHeaders=host;x-amz-date,Credential=AKIDEXAMPLE/20260314/eu-west-2/dynamodb/aws4_request  "},
			want: base},
		{name: "trailing slashes", header: map[string]string{"X-Amz-Date": "20260314T150926Z",
			"Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260314/eu-west-2/dynamodb/aws4_request//, SignedHeaders=host;x-amz-date, Signature=abc"},
			want: with(func(s *Signature) { s.Credential += "//" })},
		{name: "Date header", header: map[string]string{"Authorization": goodAuth, "Date": "Sat, 14 Mar 2026 15:09:26 GMT"}, want: base},
		{name: "Date header, basic format", header: map[string]string{"Authorization": goodAuth, "Date": "20260314T150926Z"}, want: base},
		{name: "X-Amz-Date wins over Date", header: map[string]string{"Authorization": goodAuth, "Date": "Mon, 09 Sep 2011 23:36:00 GMT", "X-Amz-Date": "20260314T150926Z"}, want: base},
		{name: "session token", header: map[string]string{"Authorization": goodAuth, "X-Amz-Date": "20260314T150926Z", "X-Amz-Security-Token": "tok"},
			want: with(func(s *Signature) { s.SecurityToken = "tok" })},
		{name: "presigned", query: "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20260314%2Feu-west-2%2Fdynamodb%2Faws4_request" +
			"&X-Amz-Date=20260314T150926Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host%3Bx-amz-date&X-Amz-Signature=abc&X-Amz-Security-Token=a%2Bb",
			want: with(func(s *Signature) { s.Presigned, s.Expires, s.SecurityToken = true, 900*time.Second, "a+b" })},
		{name: "presigned, odd X-Amz-Expires", query: "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE/20260314/eu-west-2/dynamodb/aws4_request" +
			"&X-Amz-Date=20260314T150926Z&X-Amz-Expires=-5&X-Amz-SignedHeaders=host;x-amz-date&X-Amz-Signature=abc",
			want: with(func(s *Signature) { s.Presigned = true })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", "http://localhost:8000/?"+tc.query, nil)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			sig, err := Parse(req)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*sig, tc.want) {
				t.Errorf("Parse\n got %+v\nwant %+v", *sig, tc.want)
			}
		})
	}
	s := base
	if h := s.Headers(); !reflect.DeepEqual(h, []string{"host", "x-amz-date"}) {
		t.Errorf("Headers() = %q", h)
	}
}
