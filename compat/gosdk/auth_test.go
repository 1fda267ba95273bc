package gosdk

// "dynago serve --credentials FILE --tls-cert C --tls-key K" through
// aws-sdk-go-v2 (issue 20): right keys work over HTTPS for DynamoDB and
// DynamoDB Streams, wrong ones get DynamoDB's errors, the server's own GET
// endpoints want a signature too, and plain HTTP is refused. Messages:
// internal/auth/SOURCES.md (dynalite's recorded answers; DynamoDB errors
// quoted in aws/aws-sdk-js#2565, sebdah/dynamic-dynamodb#118,
// yegor256/s3auth#237).

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go"

	"github.com/dynago/dynago/internal/testcert"
)

const credentialsFile = `# two profiles, two keys
[default]
aws_access_key_id = AKIDDYNAGOTEST1
aws_secret_access_key = secret/one+ONE

[ci]
aws_access_key_id=AKIDDYNAGOTEST2
aws_secret_access_key=secret-two
`

// startStrict starts dynago with --credentials and TLS and returns its
// endpoint and an HTTP client trusting its certificate.
func startStrict(t *testing.T) (string, *http.Client) {
	t.Helper()
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials")
	if err := os.WriteFile(creds, []byte(credentialsFile), 0o600); err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, pool := testcert.Write(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(dynago(t), "serve", "--addr", addr, "--log-level", "warn", "--in-memory",
		"--credentials", creds, "--tls-cert", certFile, "--tls-key", keyFile)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	endpoint := "https://" + addr
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := client.Get(endpoint + "/") // the health check needs no signature
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return endpoint, client
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("dynago did not become ready: %v", err)
		}
	}
}

// sdkClient is the SDK's own HTTP client trusting pool, as an application
// would configure a private CA.
func sdkClient(pool *x509.CertPool) aws.HTTPClient {
	return awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	})
}

func apiCode(err error) (string, string) {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode(), ae.ErrorMessage()
	}
	return "", ""
}

func TestAuth_StrictSigV4OverTLS(t *testing.T) {
	endpoint, httpClient := startStrict(t)
	pool := httpClient.Transport.(*http.Transport).TLSClientConfig.RootCAs
	db := func(id, secret string) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{BaseEndpoint: aws.String(endpoint), Region: "eu-west-1",
			Credentials: credentials.NewStaticCredentialsProvider(id, secret, ""), HTTPClient: sdkClient(pool),
			RetryMaxAttempts: 1})
	}
	// Both profiles' keys work, over HTTPS.
	for _, k := range [][2]string{{"AKIDDYNAGOTEST1", "secret/one+ONE"}, {"AKIDDYNAGOTEST2", "secret-two"}} {
		if _, err := db(k[0], k[1]).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
			t.Fatalf("ListTables with %s: %v", k[0], err)
		}
	}
	good := db("AKIDDYNAGOTEST1", "secret/one+ONE")
	_, err := good.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("Auth"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
	})
	if err != nil {
		t.Fatal(err)
	}
	// A body large enough to be signed over many bytes.
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"},
		"v": &types.AttributeValueMemberS{Value: strings.Repeat("x", 100_000)}}
	if _, err := good.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Auth"), Item: item}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, id, secret, code, message string
	}{
		{"unknown access key", "AKIDUNKNOWN", "secret-two", "UnrecognizedClientException", "The security token included in the request is invalid."},
		{"wrong secret", "AKIDDYNAGOTEST2", "not-the-secret", "InvalidSignatureException",
			"The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."},
	} {
		_, err := db(tc.id, tc.secret).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Auth"),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
		code, msg := apiCode(err)
		if code != tc.code || !strings.HasPrefix(msg, tc.message) {
			t.Errorf("%s: %q %q, want %s %q", tc.name, code, msg, tc.code, tc.message)
		}
	}
	// DynamoDB Streams clients sign with the service name dynamodb too.
	streams := func(id, secret string) *dynamodbstreams.Client {
		return dynamodbstreams.New(dynamodbstreams.Options{BaseEndpoint: aws.String(endpoint), Region: "eu-west-1",
			Credentials: credentials.NewStaticCredentialsProvider(id, secret, ""), HTTPClient: sdkClient(pool),
			RetryMaxAttempts: 1})
	}
	if out, err := streams("AKIDDYNAGOTEST2", "secret-two").ListStreams(ctx, &dynamodbstreams.ListStreamsInput{}); err != nil || len(out.Streams) != 1 {
		t.Fatalf("ListStreams with a right key: %v %v", out, err)
	}
	if _, err := streams("AKIDDYNAGOTEST2", "wrong").ListStreams(ctx, &dynamodbstreams.ListStreamsInput{}); func() bool {
		code, _ := apiCode(err)
		return code != "InvalidSignatureException"
	}() {
		t.Errorf("ListStreams with a wrong secret: %v", err)
	}

	// The server's GET endpoints want a signature: unsigned is
	// MissingAuthenticationToken, signed with a right key works.
	resp, err := httpClient.Get(endpoint + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(body), "MissingAuthenticationTokenException") {
		t.Errorf("unsigned GET /metrics: %d %s", resp.StatusCode, body)
	}
	signedGet := func(path string, signingTime time.Time) (int, string) {
		req, _ := http.NewRequest("GET", endpoint+path, nil)
		h := sha256.Sum256(nil)
		err := v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: "AKIDDYNAGOTEST1", SecretAccessKey: "secret/one+ONE"},
			req, hex.EncodeToString(h[:]), "dynamodb", "us-east-1", signingTime)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := signedGet("/metrics", time.Now()); status != 200 || !strings.Contains(body, "dynago_") {
		t.Errorf("signed GET /metrics: %d %.200s", status, body)
	}
	if status, body := signedGet("/insights?table=Auth", time.Now()); status != 200 {
		t.Errorf("signed GET /insights: %d %.200s", status, body)
	}
	// A signature 20 minutes old has expired (DynamoDB allows 15).
	if status, body := signedGet("/metrics", time.Now().Add(-20*time.Minute)); status != 400 ||
		!strings.Contains(body, "InvalidSignatureException") || !strings.Contains(body, "Signature expired: ") || !strings.Contains(body, " - 15 min.)") {
		t.Errorf("GET /metrics signed 20 minutes ago: %d %s", status, body)
	}
	if status, body := signedGet("/metrics", time.Now().Add(20*time.Minute)); status != 400 ||
		!strings.Contains(body, "Signature not yet current: ") || !strings.Contains(body, " + 15 min.)") {
		t.Errorf("GET /metrics signed 20 minutes ahead: %d %s", status, body)
	}

	// Plain HTTP on the HTTPS port is refused.
	resp, err = http.Get("http://" + strings.TrimPrefix(endpoint, "https://") + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("plain HTTP to the TLS port: %s", resp.Status)
	}
}
