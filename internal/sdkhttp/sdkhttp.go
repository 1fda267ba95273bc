// Package sdkhttp owns the one workaround dynago's own AWS SDK clients
// (the load generator, design run, the Go SDK compatibility tests) need
// in their HTTP client.
package sdkhttp

import (
	"io"
	"net/http"
)

// Doer is the HTTP client an AWS SDK client sends requests through.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// NoWriteTo hides the WriteTo method of request bodies from net/http.
//
// smithy-go wraps each request body in a reader whose WriteTo returns
// io.EOF once the SDK has closed it, which the SDK does as soon as the
// response headers are in. net/http's connection write loop may at that
// moment still be checking the body for bytes beyond Content-Length with
// io.Copy, which prefers WriteTo; it then takes that io.EOF for a write
// error and closes the connection while the response body is still being
// read. The client sees "deserialization failed ... use of closed network
// connection" (about 1% of 20-item Query calls at concurrency 1 against a
// fast server; under a loaded machine all four attempts of the default
// retryer can hit it). With only Read visible, a closed body reads as a
// plain EOF. Known upstream as aws/aws-sdk-go-v2#2737.
type NoWriteTo struct{ Doer }

// Do sends r with its body reduced to an io.ReadCloser.
func (n NoWriteTo) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = struct{ io.ReadCloser }{r.Body}
	}
	return n.Doer.Do(r)
}
