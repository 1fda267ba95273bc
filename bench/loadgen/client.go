package main

import (
	"context"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// newClient builds a DynamoDB client for endpoint with static credentials
// and region us-east-1. The HTTP transport keeps one idle connection per
// worker so that no run pays for reconnecting. Measurement clients do not
// retry (a retried error would hide in the latency); the setup client does.
func newClient(ctx context.Context, endpoint string, conc int, retry bool) (*dynamodb.Client, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx,
		awsconfig.WithRegion("us-east-1"),
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("bench", "bench", "")),
	)
	if err != nil {
		return nil, err
	}
	httpClient := awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConns = conc + 16
		t.MaxIdleConnsPerHost = conc + 16
	})
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.HTTPClient = noWriteToClient{httpClient}
		if !retry {
			o.Retryer = aws.NopRetryer{}
		}
	}), nil
}

// noWriteToClient hides the WriteTo method of request bodies from net/http.
//
// smithy-go wraps each request body in a reader whose WriteTo returns io.EOF
// once the SDK has closed it, which the SDK does as soon as the response
// headers are in. net/http's connection write loop may at that moment still
// be checking the body for bytes beyond Content-Length with io.Copy, which
// prefers WriteTo; it then takes that io.EOF for a write error and closes
// the connection while the response body is still being read. The client
// sees "deserialization failed ... use of closed network connection"
// (about 1% of 20-item Query calls at concurrency 1 against a fast server).
// With only Read visible, a closed body reads as a plain EOF.
type noWriteToClient struct{ c *awshttp.BuildableClient }

// Do sends r with its body reduced to an io.ReadCloser.
func (n noWriteToClient) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = struct{ io.ReadCloser }{r.Body}
	}
	return n.c.Do(r)
}
