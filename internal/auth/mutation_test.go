package auth

import (
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/ddberr"
)

// flip returns b with byte i changed to another letter.
func flip(s string, i int) string {
	c := byte('a')
	if s[i] == 'a' {
		c = 'b'
	}
	return s[:i] + string(c) + s[i+1:]
}

// TestVerify_Mutations: every single-byte change of what is signed fails,
// with the error DynamoDB gives for it.
func TestVerify_Mutations(t *testing.T) {
	rec := newRecorder(t)
	now := signTime.Add(time.Second)
	v := verifierAt(now)
	c := sdkCase{name: "PutItem", method: "POST", path: "/", key: "AKIAIOSFODNN7EXAMPLE", region: "eu-west-2",
		body:   []byte(`{"TableName":"Music","Item":{"Artist":{"S":"x"}}}`),
		header: [][2]string{{"Content-Type", "application/x-amz-json-1.0"}, {"X-Amz-Target", "DynamoDB_20120810.PutItem"}}}
	orig, _ := c.signed(t, rec)
	if _, err := v.Verify(orig.request(t), orig.Body); err != nil {
		t.Fatal(err)
	}
	mismatch := func(t *testing.T, m *captured) {
		t.Helper()
		_, err := v.Verify(m.request(t), m.Body)
		wantErrPrefix(t, err, ddberr.InvalidSignatureException, msgSignatureFirst)
	}
	auth := orig.Header.Get("Authorization")
	sigAt := strings.Index(auth, "Signature=") + len("Signature=")
	signedAt := strings.Index(auth, "SignedHeaders=") + len("SignedHeaders=")
	signed := auth[signedAt : strings.Index(auth[signedAt:], ",")+signedAt]
	credAt := strings.Index(auth, "Credential=") + len("Credential=")

	t.Run("signature", func(t *testing.T) {
		for i := sigAt; i < len(auth); i++ {
			m := orig.clone()
			r := byte('0')
			if auth[i] == '0' {
				r = '1'
			}
			m.Header.Set("Authorization", auth[:i]+string(r)+auth[i+1:])
			mismatch(t, m)
		}
		m := orig.clone()
		m.Header.Set("Authorization", strings.ToUpper(auth[:sigAt])+strings.ToUpper(auth[sigAt:]))
		_, err := v.Verify(m.request(t), m.Body) // upper-case hex, and everything else: not accepted
		if err == nil {
			t.Error("upper-cased Authorization verified")
		}
	})
	t.Run("signed header values", func(t *testing.T) {
		for _, name := range strings.Split(signed, ";") {
			switch name {
			case "host":
				for i := range orig.Host {
					m := orig.clone()
					m.Host = flip(orig.Host, i)
					mismatch(t, m)
				}
			case "x-amz-date":
				continue // TestVerify_MutatedDate
			default:
				val := orig.Header.Get(name)
				if val == "" {
					t.Fatalf("signed header %s not sent", name)
				}
				for i := range val {
					m := orig.clone()
					m.Header.Set(name, flip(val, i))
					mismatch(t, m)
				}
				m := orig.clone()
				m.Header.Add(name, val) // a second value
				mismatch(t, m)
				m = orig.clone()
				m.Header.Del(name)
				m.ContentLength = -1 // as a server sees a chunked body
				mismatch(t, m)
			}
		}
		m := orig.clone()
		m.Header.Set("X-Unsigned", "anything") // unsigned headers do not matter
		m.Header.Set("User-Agent", "changed")
		if _, err := v.Verify(m.request(t), m.Body); err != nil {
			t.Errorf("unsigned header changed: %v", err)
		}
	})
	t.Run("body", func(t *testing.T) {
		for i := range orig.Body {
			m := orig.clone()
			m.Body[i] ^= 0x01
			mismatch(t, m)
		}
		m := orig.clone()
		m.Body = append(m.Body, ' ')
		mismatch(t, m)
		m = orig.clone()
		m.Body = m.Body[:len(m.Body)-1]
		mismatch(t, m)
	})
	t.Run("method and path", func(t *testing.T) {
		for _, method := range []string{"PUT", "GET", "post", "POSTS"} {
			m := orig.clone()
			m.Method = method
			mismatch(t, m)
		}
		for _, p := range []struct {
			uri string
			ok  bool
		}{
			{"/x", false}, {"/%2F", false}, {"/%20", false}, {"/?", true}, {"/?a", false}, {"/?a=b", false},
			// AWS normalizes paths before signing them (every service but
			// S3): these are "/" again.
			{"//", true}, {"/.", true}, {"/./", true}, {"/a/..", true}, {"/a/../", true},
		} {
			m := orig.clone()
			m.RequestURI = p.uri
			_, err := v.Verify(m.request(t), m.Body)
			if p.ok && err != nil {
				t.Errorf("path %q: %v", p.uri, err)
			}
			if !p.ok {
				wantErrPrefix(t, err, ddberr.InvalidSignatureException, msgSignatureFirst)
			}
		}
	})
	t.Run("SignedHeaders", func(t *testing.T) {
		for i := signedAt; i < signedAt+len(signed); i++ {
			m := orig.clone()
			mut := flip(auth, i)
			m.Header.Set("Authorization", mut)
			_, err := v.Verify(m.request(t), m.Body)
			names := strings.Split(mut[signedAt:signedAt+len(signed)], ";")
			hostSigned := false
			for _, n := range names {
				hostSigned = hostSigned || strings.EqualFold(n, "host")
			}
			if !hostSigned {
				wantErr(t, err, ddberr.InvalidSignatureException, msgHostNotSigned)
			} else {
				wantErrPrefix(t, err, ddberr.InvalidSignatureException, msgSignatureFirst)
			}
		}
	})
	t.Run("Credential", func(t *testing.T) {
		cred := auth[credAt : credAt+strings.IndexByte(auth[credAt:], ',')]
		parts := strings.Split(cred, "/")
		for i := 0; i < len(cred); i++ {
			if cred[i] == '/' {
				continue
			}
			m := orig.clone()
			mut := flip(cred, i)
			m.Header.Set("Authorization", strings.Replace(auth, cred, mut, 1))
			_, err := v.Verify(m.request(t), m.Body)
			mp := strings.Split(mut, "/")
			switch {
			case mp[0] != parts[0]:
				wantErr(t, err, ddberr.UnrecognizedClientException, "The security token included in the request is invalid.")
			case mp[1] != parts[1]:
				wantErrPrefix(t, err, ddberr.InvalidSignatureException, "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '"+mp[1]+"' != '"+parts[1]+"'")
			case mp[2] != parts[2]: // any region is accepted, but it is signed
				wantErrPrefix(t, err, ddberr.InvalidSignatureException, msgSignatureFirst)
			case mp[3] != parts[3]:
				wantErr(t, err, ddberr.InvalidSignatureException, "Credential should be scoped to correct service: 'dynamodb'. ")
			default:
				wantErr(t, err, ddberr.InvalidSignatureException, "Credential should be scoped with a valid terminator: 'aws4_request', not '"+mp[4]+"'. ")
			}
		}
	})
}

// TestVerify_MutatedDate: each single-byte change of X-Amz-Date gets the
// error DynamoDB gives for the date it makes, whichever check it fails
// first: the format, the clock, the credential scope or the signature.
func TestVerify_MutatedDate(t *testing.T) {
	rec := newRecorder(t)
	now := signTime.Add(time.Second)
	v := verifierAt(now)
	c := sdkCases[0]
	orig, _ := c.signed(t, rec)
	date := orig.Header.Get("X-Amz-Date")
	for i := range date {
		for _, r := range []byte{'0', '1', '5', '9', 'T', 'x'} {
			if date[i] == r {
				continue
			}
			mut := date[:i] + string(r) + date[i+1:]
			m := orig.clone()
			m.Header.Set("X-Amz-Date", mut)
			_, err := v.Verify(m.request(t), m.Body)
			// An independent oracle: time.Parse and plain comparisons.
			tm, perr := time.Parse(amzDateLayout, mut)
			switch {
			case perr != nil || tm.Format(amzDateLayout) != mut:
				wantErr(t, err, ddberr.IncompleteSignatureException,
					"Date must be in ISO-8601 'basic format'. Got '"+mut+"'. See http://en.wikipedia.org/wiki/ISO_8601")
			case tm.Before(now.Add(-15 * time.Minute)):
				wantErrPrefix(t, err, ddberr.InvalidSignatureException, "Signature expired: "+mut+" is now earlier than ")
			case tm.After(now.Add(15 * time.Minute)):
				wantErrPrefix(t, err, ddberr.InvalidSignatureException, "Signature not yet current: "+mut+" is still later than ")
			case mut[:8] != date[:8]:
				wantErrPrefix(t, err, ddberr.InvalidSignatureException, "Date in Credential scope does not match")
			default:
				wantErrPrefix(t, err, ddberr.InvalidSignatureException, msgSignatureFirst)
			}
		}
	}
}

// TestVerify_PresignedMutations: a presigned request's query parameters,
// X-Amz-Expires included, are signed.
func TestVerify_PresignedMutations(t *testing.T) {
	rec := newRecorder(t)
	v := verifierAt(signTime.Add(time.Second))
	c := sdkCase{name: "presigned", method: "POST", path: "/?Extra=1", body: []byte(`{}`), key: "ASIAEXAMPLETEMP", region: "us-east-1", expires: "300",
		header: [][2]string{{"X-Amz-Target", "DynamoDB_20120810.ListTables"}}}
	orig := c.presigned(t, rec)
	if _, err := v.Verify(orig.request(t), orig.Body); err != nil {
		t.Fatal(err)
	}
	base, query, _ := strings.Cut(orig.RequestURI, "?")
	for _, seg := range strings.Split(query, "&") {
		k, val, _ := strings.Cut(seg, "=")
		for i := range val {
			if val[i] == '%' || (i > 0 && val[i-1] == '%') || (i > 1 && val[i-2] == '%') {
				continue
			}
			m := orig.clone()
			m.RequestURI = base + "?" + strings.Replace(query, seg, k+"="+flip(val, i), 1)
			_, err := v.Verify(m.request(t), m.Body)
			if err == nil {
				t.Errorf("%s=%s verified", k, flip(val, i))
				continue
			}
			e, _ := ddberr.As(err)
			switch k {
			case "X-Amz-Security-Token":
				if e.Code != ddberr.UnrecognizedClientException && e.Code != ddberr.InvalidSignatureException {
					t.Errorf("%s: %v", k, err)
				}
			case "X-Amz-Algorithm":
				wantErrPrefix(t, err, ddberr.IncompleteSignatureException, "Unsupported AWS 'algorithm'")
			case "X-Amz-Signature", "X-Amz-Expires", "Extra":
				wantErrPrefix(t, err, ddberr.InvalidSignatureException, msgSignatureFirst)
			}
		}
	}
}
