// Package inproc runs a dynago server inside the calling process, in
// memory, on a loopback port: for dynago design run without --endpoint,
// and for tests that drive dynago through aws-sdk-go-v2 (the generated
// design packages in examples/gen).
package inproc

import (
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/sdkhttp"
	"github.com/dynago/dynago/internal/server"
	"github.com/dynago/dynago/internal/storage/pebble"
)

// Start starts an in-memory dynago on 127.0.0.1 and returns its endpoint
// (http://127.0.0.1:PORT) and a function that stops it and frees its
// store.
func Start() (endpoint string, stop func(), err error) {
	store, err := pebble.Open(pebble.Options{InMemory: true, ReadCached: catalog.IsKey})
	if err != nil {
		return "", nil, err
	}
	eng := engine.New(store, engine.Options{Logger: slog.New(slog.DiscardHandler)})
	srv := server.New(eng, server.Options{Logger: slog.New(slog.DiscardHandler)})
	srv.MarkReady()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		eng.Close()
		store.Close()
		return "", nil, err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String(), func() {
		hs.Close()
		eng.Close()
		store.Close()
	}, nil
}

// Client is an aws-sdk-go-v2 DynamoDB client for endpoint with static
// dummy credentials, region us-east-1, requests that fail within 10 s,
// and one retry; its HTTP client hides request bodies' WriteTo
// (sdkhttp.NoWriteTo).
func Client(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:           "us-east-1",
		Credentials:      credentials.NewStaticCredentialsProvider("dynago", "dynago", ""),
		BaseEndpoint:     aws.String(endpoint),
		HTTPClient:       sdkhttp.NoWriteTo{Doer: &http.Client{Timeout: 10 * time.Second}},
		RetryMaxAttempts: 2,
	})
}
