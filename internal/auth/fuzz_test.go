package auth

import (
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/ddberr"
)

// FuzzParse feeds arbitrary Authorization headers, query strings and dates
// to Parse and Verify: no panics, and every error is a *ddberr.Error of the
// codes DynamoDB answers authentication with, with a message.
func FuzzParse(f *testing.F) {
	for _, s := range [][4]string{
		{goodAuth, "", "20260314T150926Z", ""},
		{"AWS4-", "", "", ""},
		{"AWS4-HMAC-SHA256 Credential=a/b/c/d/e SignedHeaders=host Signature=1", "", "", "Sat, 14 Mar 2026 15:09:26 GMT"},
		{"AWS4-HMAC-SHA256,Signature=b,,Credential,SignedHeaders", "", "x", ""},
		{"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260314/us-east-1/dynamodb/aws4_request/, SignedHeaders=HOST;x-amz-date, Signature=00", "a=1&a=2&b", "20260314T150926Z", ""},
		{"", "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20260314%2Fus-east-1%2Fdynamodb%2Faws4_request&X-Amz-Date=20260314T150926Z&X-Amz-SignedHeaders=host&X-Amz-Signature=00&X-Amz-Expires=900", "", ""},
		{"", "X-Amz-Algorithm", "", ""},
		{goodAuth, "X-Amz-Algorithm=x", "20260314T150926Z", ""},
		{"AWS4-HMAC-SHA256 Credential=%zz/20260314/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0", "%zz=%&=&&", "20260229T000000Z", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	v := &Verifier{Keys: testKeys, Now: func() time.Time { return signTime }}
	codes := map[ddberr.Code]bool{
		ddberr.MissingAuthenticationTokenException: true, ddberr.IncompleteSignatureException: true,
		ddberr.InvalidSignatureException: true, ddberr.UnrecognizedClientException: true,
	}
	check := func(t *testing.T, err error) {
		e, ok := ddberr.As(err)
		if !ok || !codes[e.Code] || e.Message == "" {
			t.Fatalf("error %#v (%T)", err, err)
		}
	}
	f.Fuzz(func(t *testing.T, auth, query, amzDate, date string) {
		req := &http.Request{Method: "POST", URL: &url.URL{Path: "/", RawQuery: query}, Host: "localhost:8000",
			Header: http.Header{}, Body: http.NoBody}
		for k, v := range map[string]string{"Authorization": auth, "X-Amz-Date": amzDate, "Date": date} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		sig, err := Parse(req)
		if err != nil {
			check(t, err)
			if sig != nil {
				t.Fatal("a Signature with an error")
			}
		} else {
			if sig.Algorithm != Algorithm || sig.credentialParts != 5 || !sig.signs("host") || sig.Signature == "" {
				t.Fatalf("Parse accepted %+v", sig)
			}
			if len(sig.AmzDate) != 16 || sig.Time.Format(amzDateLayout) != sig.AmzDate {
				t.Fatalf("AmzDate %q, Time %v", sig.AmzDate, sig.Time)
			}
			if strings.Join(sig.Headers(), ";") != sig.SignedHeaders {
				t.Fatalf("Headers() %q", sig.Headers())
			}
		}
		id, err := v.Verify(req, []byte(auth))
		if err == nil {
			t.Fatalf("fuzzed request verified: %+v", id) // needs a real signature
		}
		check(t, err)
	})
}

// FuzzLoadKeys feeds arbitrary files to ReadKeys: no panics; errors are
// *LoadError with a line inside the file; and every key it accepts is the
// one the AWS SDK for Go v2 reads for that profile.
func FuzzLoadKeys(f *testing.F) {
	for _, s := range []string{
		"[default]\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY\n",
		"[a]\r\nAWS_ACCESS_KEY_ID: 'A'\r\naws_secret_access_key=\"S\" ; c\r\naws_session_token = T #x\r\n[ b  c ]\naws_access_key_id = A\naws_secret_access_key = S\naws_session_token = T\n",
		"# c\n; c\n[a] # c\nregion = x\n  nested = 1\ns3 =\n  max = 2\n[a]\naws_access_key_id = B\naws_secret_access_key = S2\n",
		"[profile a]\naws_access_key_id = A\n",
		"aws_access_key_id = A\n",
		"[a]\naws_secret_access_key = \"\n",
		"[a\n[]\n[a#]\n",
		"[a]\naws_access_key_id = A\naws_secret_access_key = S\n  more\n",
		"\v[x]\n\faws_access_key_id = K\n aws_secret_access_key = S\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "credentials")
	f.Fuzz(func(t *testing.T, data []byte) {
		ks, err := ReadKeys(bytes.NewReader(data), "creds")
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || le.Path != "creds" || le.Msg == "" {
				t.Fatalf("error %#v", err)
			}
			if lines := bytes.Count(data, []byte("\n")) + 1; le.Line < 0 || le.Line > lines {
				t.Fatalf("line %d of %d", le.Line, lines)
			}
			return
		}
		if ks.Len() == 0 {
			t.Fatal("no keys and no error")
		}
		for _, id := range ks.AccessKeyIDs() {
			k, _ := ks.Lookup(id)
			if checkKeyID(id) != nil || k.SecretAccessKey == "" || k.Line < 1 {
				t.Fatalf("key %+v", k)
			}
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		crossCheck(t, path, ks)
	})
}
