package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/server"
	"github.com/dynago/dynago/internal/storage/teststore"
)

// Invoke answers a call exactly as the wire does: the same body for a
// success and the same {"__type", "message"} and status for an error
// (the web console relies on it to show what a client sees), through the
// Interceptor, without a signature.
func TestInvoke_AsTheWire(t *testing.T) {
	st := teststore.Open(t)
	eng := engine.New(st, engine.Options{})
	defer eng.Close()
	rec := &recorder{}
	srv := server.New(eng, server.Options{Intercept: rec})
	srv.MarkReady()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	create := `{"TableName":"Invoked","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`
	if status, out := srv.Invoke(t.Context(), "DynamoDB_20120810.CreateTable", []byte(create)); status != http.StatusOK || !strings.Contains(string(out), `"TableStatus":"CREATING"`) {
		t.Fatalf("CreateTable: %d %s", status, out)
	}
	tests := []struct {
		name, target, body string
		status             int
	}{
		{"put", "DynamoDB_20120810.PutItem", `{"TableName":"Invoked","Item":{"pk":{"S":"a"},"n":{"N":"1"}}}`, 200},
		{"get", "DynamoDB_20120810.GetItem", `{"TableName":"Invoked","Key":{"pk":{"S":"a"}}}`, 200},
		{"validation", "DynamoDB_20120810.GetItem", `{"TableName":"Invoked","Key":{"pk":{"N":"1"}}}`, 400},
		{"missing table", "DynamoDB_20120810.Query", `{"TableName":"Nope","KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"S":"a"}}}`, 400},
		{"not JSON", "DynamoDB_20120810.GetItem", `{`, 400},
		{"unknown operation", "DynamoDB_20120810.Frobnicate", `{}`, 400},
		// An operation dynago does not have gets the wire's answer for
		// it (unsupportedError), not UnknownOperationException.
		{"unsupported operation", "DynamoDB_20120810.CreateBackup", `{"TableName":"Invoked","BackupName":"b"}`, 400},
		{"streams", "DynamoDBStreams_20120810.ListStreams", `{}`, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, out := srv.Invoke(t.Context(), tc.target, []byte(tc.body))
			wireStatus, _, wireOut := call(t, ts, tc.target, tc.body)
			if status != tc.status || status != wireStatus {
				t.Errorf("status %d, wire %d, want %d", status, wireStatus, tc.status)
			}
			if string(out) != string(wireOut) {
				t.Errorf("Invoke answered\n%s\nthe wire\n%s", out, wireOut)
			}
		})
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.calls) == 0 || !strings.HasPrefix(rec.calls[0], "Before CreateTable") {
		t.Errorf("the Interceptor saw %v", rec.calls)
	}
}
