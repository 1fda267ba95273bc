package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go"

	"github.com/dynago/dynago/internal/sdkhttp"
)

// newClients builds a DynamoDB and a DynamoDB Streams client for endpoint
// with static dummy credentials and region us-east-1. The SDK does not
// retry: every attempt is the soak's own, so that it knows which request
// may have applied (an SDK retry of a request whose answer was lost would
// hide the unknown outcome).
func newClients(ctx context.Context, endpoint string, conns int) (*dynamodb.Client, *dynamodbstreams.Client, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx,
		awsconfig.WithRegion("us-east-1"),
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("soak", "soak", "")),
	)
	if err != nil {
		return nil, nil, err
	}
	httpClient := awshttp.NewBuildableClient().
		WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConns = conns + 8
			t.MaxIdleConnsPerHost = conns + 8
		}).
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = 2 * time.Second })
	doer := sdkhttp.NoWriteTo{Doer: httpClient}
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.HTTPClient = doer
		o.Retryer = aws.NopRetryer{}
	})
	st := dynamodbstreams.NewFromConfig(cfg, func(o *dynamodbstreams.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.HTTPClient = doer
		o.Retryer = aws.NopRetryer{}
	})
	return db, st, nil
}

// class is what a failed call tells about its request.
type class int

const (
	// definite: the server answered with an error; nothing was applied.
	definite class = iota
	// notSent: the connection could not be made (the server is down);
	// the request never reached it.
	notSent
	// unknown: the request was sent but no answer came back (the server
	// died mid-request, a 5xx, a timeout): it may or may not have applied.
	unknown
)

// classify tells what a failed call means for its request, and names the
// kind of error for the figures.
func classify(err error) (class, string) {
	var api smithy.APIError
	if errors.As(err, &api) {
		var re *awshttp.ResponseError
		if errors.As(err, &re) && re.HTTPStatusCode() >= 500 {
			return unknown, fmt.Sprintf("HTTP %d %s", re.HTTPStatusCode(), api.ErrorCode())
		}
		return definite, api.ErrorCode()
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return notSent, "connection refused (server down)"
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return unknown, "request timeout"
	case errors.Is(err, syscall.ECONNRESET):
		return unknown, "connection reset mid-request"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return unknown, "connection closed mid-request"
	case errors.Is(err, syscall.EPIPE):
		return unknown, "broken pipe mid-request"
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && len(msg)-i < 80 {
		msg = msg[i+2:]
	}
	if len(msg) > 80 {
		msg = msg[:80]
	}
	return unknown, "transport: " + msg
}
