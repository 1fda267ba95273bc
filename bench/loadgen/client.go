package main

import (
	"context"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynago/dynago/internal/sdkhttp"
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
		o.HTTPClient = sdkhttp.NoWriteTo{Doer: httpClient}
		if !retry {
			o.Retryer = aws.NopRetryer{}
		}
	}), nil
}
