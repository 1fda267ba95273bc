package auth

import (
	"testing"
	"time"
)

// benchRequest is a typical SDK request: a GetItem with the AWS SDK for Go
// v2's signed headers (content-length, content-type, host, x-amz-date,
// x-amz-target, plus accept-encoding and amz-sdk-* as the SDK sends them).
func benchRequest(b *testing.B, presign bool) (*captured, []byte) {
	rec := newRecorder(b)
	c := sdkCase{name: "GetItem", method: "POST", path: "/", key: "AKIAIOSFODNN7EXAMPLE", region: "us-east-1",
		body: []byte(`{"TableName":"Music","Key":{"Artist":{"S":"No One You Know"},"SongTitle":{"S":"Call Me Today"}},"ConsistentRead":true}`),
		header: [][2]string{{"Content-Type", "application/x-amz-json-1.0"}, {"X-Amz-Target", "DynamoDB_20120810.GetItem"},
			{"Accept-Encoding", "identity"}, {"Amz-Sdk-Invocation-Id", "6f137dc7-3c6e-45e3-99fb-0416dffeeae8"},
			{"Amz-Sdk-Request", "attempt=1; max=3"}}}
	if presign {
		return c.presigned(b, rec), c.body
	}
	got, _ := c.signed(b, rec)
	return got, c.body
}

// BenchmarkVerify: one signed request, verified again and again (the
// signing key stays cached, as it does for a client's requests of a day).
func BenchmarkVerify(b *testing.B) {
	for _, presign := range []bool{false, true} {
		name := "signed=header"
		if presign {
			name = "signed=query"
		}
		b.Run(name, func(b *testing.B) {
			got, body := benchRequest(b, presign)
			r := got.request(b)
			v := &Verifier{Keys: testKeys, Now: func() time.Time { return signTime }}
			if _, err := v.Verify(r, body); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := v.Verify(r, body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParse is Parse alone, the no-credentials-file mode.
func BenchmarkParse(b *testing.B) {
	got, _ := benchRequest(b, false)
	r := got.request(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(r); err != nil {
			b.Fatal(err)
		}
	}
}
