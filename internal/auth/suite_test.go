package auth

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// suiteCase is a request of the AWS SigV4 test suite, as published with
// awslabs/aws-c-auth (tests/aws-signing-test-suite/v4/<name>/
// header-signed-request.txt and query-signed-request.txt; context.json:
// key AKIDEXAMPLE, secret wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY, region
// us-east-1, service "service", time 2015-08-30T12:36:00Z, "normalize":
// true). The signatures are the suite's; the requests are transcribed
// (request target as on the wire, headers in order, body).
type suiteCase struct {
	name   string
	target string      // request target, raw
	header [][2]string // as in the file; Host goes to Request.Host
	body   string
}

const suiteSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"

func suiteAuth(signed, sig string) [2]string {
	return [2]string{"Authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=" + signed + ", Signature=" + sig}
}

var (
	suiteHost = [2]string{"Host", "example.amazonaws.com"}
	suiteDate = [2]string{"X-Amz-Date", "20150830T123600Z"}
)

func vanilla(name, target, sig string) suiteCase {
	return suiteCase{name: name, target: target, header: [][2]string{suiteHost, suiteAuth("host;x-amz-date", sig), suiteDate}}
}

func presignedVector(name, method, target string) suiteCase {
	return suiteCase{name: name, target: method + " " + target, header: [][2]string{suiteHost, suiteDate}}
}

var suiteCases = []suiteCase{
	vanilla("get-vanilla", "GET /", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
	vanilla("post-vanilla", "POST /", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
	vanilla("get-relative-relative-normalized", "GET /example1/example2/../..", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
	vanilla("get-slash-dot-slash-normalized", "GET /./", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
	vanilla("get-slashes-normalized", "GET //example//", "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"),
	vanilla("get-slash-pointless-dot-normalized", "GET /./example", "ef75d96142cf21edca26f06005da7988e4f8dc83a165a80865db7089db637ec5"),
	vanilla("get-space-normalized", "GET /example space/", "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
	vanilla("get-utf8", "GET /ሴ", "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
	vanilla("get-unreserved", "GET /-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
	vanilla("get-vanilla-empty-query-key", "GET /?Param1=value1", "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"),
	vanilla("get-vanilla-query-order-key-case", "GET /?Param2=value2&Param1=value1", "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
	vanilla("get-vanilla-query-order-encoded", "GET /?Param-3=Value3&Param=Value2&%E1%88%B4=Value1", "371d3713e185cc334048618a97f809c9ffe339c62934c032af5a0e595648fcac"),
	vanilla("get-vanilla-query-unreserved", "GET /?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
	vanilla("get-vanilla-utf8-query", "GET /?ሴ=bar", "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
	{name: "get-header-key-duplicate", target: "GET /", header: [][2]string{suiteHost,
		{"My-Header1", "value2"}, {"My-Header1", "value2"}, {"My-Header1", "value1"},
		suiteAuth("host;my-header1;x-amz-date", "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"), suiteDate}},
	// The file folds "value1\n  value2\n     value3" (obsolete line
	// folding); its canonical request reads them as three values,
	// "my-header1:value1,value2,value3", which is how they are given here.
	// (net/http's own parser would join folded lines with spaces.)
	{name: "get-header-value-multiline", target: "GET /", header: [][2]string{suiteHost,
		{"My-Header1", "value1"}, {"My-Header1", "value2"}, {"My-Header1", "value3"},
		suiteAuth("host;my-header1;x-amz-date", "ba17b383a53190154eb5fa66a1b836cc297cc0a3d70a5d00705980573d8ff790"), suiteDate}},
	{name: "get-header-value-order", target: "GET /", header: [][2]string{suiteHost,
		{"My-Header1", "value4"}, {"My-Header1", "value1"}, {"My-Header1", "value3"}, {"My-Header1", "value2"},
		suiteAuth("host;my-header1;x-amz-date", "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"), suiteDate}},
	{name: "get-header-value-trim", target: "GET /", header: [][2]string{suiteHost,
		{"My-Header1", " value1"}, {"My-Header2", ` "a   b   c"`},
		suiteAuth("host;my-header1;my-header2;x-amz-date", "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"), suiteDate}},
	{name: "get-vanilla-with-session-token", target: "GET /", header: [][2]string{suiteHost,
		suiteAuth("host;x-amz-date;x-amz-security-token", "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8"), suiteDate,
		{"X-Amz-Security-Token", "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"}}},
	{name: "post-x-www-form-urlencoded", target: "POST /", body: "Param1=value1", header: [][2]string{
		{"Content-Type", "application/x-www-form-urlencoded"}, suiteHost, {"Content-Length", "13"},
		{"x-amz-content-sha256", "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e"},
		suiteAuth("content-length;content-type;host;x-amz-content-sha256;x-amz-date", "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b"), suiteDate}},
	// An unsigned X-Amz-Content-Sha256 changes nothing.
	{name: "post-sts-header-after", target: "POST /", header: [][2]string{suiteHost,
		{"x-amz-content-sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		suiteAuth("host;x-amz-date", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"), suiteDate}},

	// query-signed-request.txt: presigned, X-Amz-Expires=3600.
	presignedVector("post-vanilla (presigned)", "POST", "/?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20150830%2Fus-east-1%2Fservice%2Faws4_request&X-Amz-Date=20150830T123600Z&X-Amz-SignedHeaders=host&X-Amz-Expires=3600&X-Amz-Signature=2ce6e6d2e0cf2f9d1b55fafec88cd20574c31dc2e7631979f71ba2310083e95b"),
	presignedVector("get-vanilla-query-order-key-case (presigned)", "GET", "/?Param2=value2&Param1=value1&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20150830%2Fus-east-1%2Fservice%2Faws4_request&X-Amz-Date=20150830T123600Z&X-Amz-SignedHeaders=host&X-Amz-Expires=3600&X-Amz-Signature=86012e2c9ad4d77369f5d81c11f75158aae4f895a085212cc6d3f923d300bed5"),
	presignedVector("get-utf8 (presigned)", "GET", "/ሴ?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20150830%2Fus-east-1%2Fservice%2Faws4_request&X-Amz-Date=20150830T123600Z&X-Amz-SignedHeaders=host&X-Amz-Expires=3600&X-Amz-Signature=10eae3f14a260bd3911cc6d008d3c576d143b05b62f09782a7a4b37f52178e44"),
}

// request builds the server-side request of the case.
func (c suiteCase) request(tb testing.TB) *http.Request {
	tb.Helper()
	method, target, _ := strings.Cut(c.target, " ")
	path, query, _ := strings.Cut(target, "?")
	r := &http.Request{Method: method, RequestURI: target, URL: &url.URL{Path: path, RawQuery: query},
		Header: http.Header{}, Body: http.NoBody, ContentLength: int64(len(c.body))}
	for _, h := range c.header {
		if h[0] == "Host" {
			r.Host = h[1]
			continue
		}
		k := http.CanonicalHeaderKey(h[0])
		r.Header[k] = append(r.Header[k], strings.TrimLeft(h[1], " ")) // as net/http trims
	}
	return r
}

// TestSigV4TestSuite verifies the AWS SigV4 test suite's signed requests
// (the "normalized" cases: AWS's rules for every service but S3), and fails
// them with another secret or a day later.
func TestSigV4TestSuite(t *testing.T) {
	token := "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"
	now := time.Date(2015, 8, 30, 12, 36, 0, 0, time.UTC)
	v := &Verifier{
		Keys:    mustKeys(Key{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: suiteSecret}),
		Now:     func() time.Time { return now },
		service: "service",
	}
	withToken := &Verifier{Keys: mustKeys(Key{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: suiteSecret, SessionToken: token}),
		Now: v.Now, service: "service"}
	wrong := &Verifier{Keys: mustKeys(Key{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: suiteSecret + "x"}), Now: v.Now, service: "service"}
	for _, c := range suiteCases {
		t.Run(c.name, func(t *testing.T) {
			ver := v
			if strings.Contains(c.name, "session-token") {
				ver = withToken
			}
			id, err := ver.Verify(c.request(t), []byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			if id.AccessKey != "AKIDEXAMPLE" || id.Region != "us-east-1" {
				t.Errorf("identity %+v", id)
			}
			if _, err := wrong.Verify(c.request(t), []byte(c.body)); err == nil {
				t.Error("verified with another secret")
			}
			// The suite's requests name service "service", not dynamodb.
			if _, err := (&Verifier{Keys: v.Keys, Now: v.Now}).Verify(c.request(t), []byte(c.body)); err == nil ||
				!strings.Contains(err.Error(), "Credential should be scoped to correct service: 'dynamodb'. ") {
				t.Errorf("service 'service' accepted for DynamoDB: %v", err)
			}
		})
	}
}
