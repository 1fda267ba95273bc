package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
)

// emptyPayloadHash is the SHA-256 of an empty body.
var emptyPayloadHash = func() string { h := sha256.Sum256(nil); return hex.EncodeToString(h[:]) }()

// signRequest signs req (a GET to one of the server's own endpoints:
// /insights, /design/traffic) with the AWS credentials of the environment
// or shared files, as an SDK would sign a DynamoDB call, so that a server
// started with --credentials answers it; without credentials it is sent
// unsigned, which any other server accepts. It returns the HTTP client to
// send it with: the SDK's, so that AWS_CA_BUNDLE is honoured for https
// endpoints. EC2 instance metadata is never consulted (it is not on
// loopback).
func signRequest(ctx context.Context, req *http.Request) (aws.HTTPClient, error) {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	if err != nil {
		return http.DefaultClient, nil // no usable configuration: unsigned
	}
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	if cfg.Credentials == nil {
		return client, nil
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil || !creds.HasKeys() {
		return client, nil
	}
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	err = v4.NewSigner().SignHTTP(ctx, creds, req, emptyPayloadHash, "dynamodb", region, time.Now())
	return client, err
}
