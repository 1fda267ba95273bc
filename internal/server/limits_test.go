package server_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAttributeNameLengths: non-key attribute names are 1 to 65,535 bytes
// wherever a request names one; key attribute names are at most 255
// (ServiceQuotas.html#limits-attributes; the 65,535 boundary and the key
// limit as measured by ScyllaDB's alternator test_limits.py against
// DynamoDB; messages from AWS's DynamoDB Local error catalog).
func TestAttributeNameLengths(t *testing.T) {
	ts := newServer(t)
	mustOK(t, ts, "CreateTable", `{"TableName":"names","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`)
	longest := strings.Repeat("n", 65535)
	tooLong := longest + "n"
	key255 := strings.Repeat("k", 255)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	const tooLarge = "Attribute name is too large, must be less than 65536 bytes"
	for _, tc := range []struct {
		name, op, body, want string
	}{
		{"Put longest name", "PutItem", `{"TableName":"names","Item":{"pk":{"S":"a"},` + q(longest) + `:{"N":"1"}}}`, ""},
		{"Get projects longest name", "GetItem", `{"TableName":"names","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#n","ExpressionAttributeNames":{"#n":` + q(longest) + `}}`, ""},
		{"Put too long", "PutItem", `{"TableName":"names","Item":{"pk":{"S":"a"},` + q(tooLong) + `:{"N":"1"}}}`, "1 validation error detected: " + tooLarge},
		{"Put empty name", "PutItem", `{"TableName":"names","Item":{"pk":{"S":"a"},"":{"N":"1"}}}`, "1 validation error detected: Empty attribute name"},
		{"BatchWrite empty name", "BatchWriteItem", `{"RequestItems":{"names":[{"PutRequest":{"Item":{"pk":{"S":"a"},"":{"N":"1"}}}}]}}`, "Empty attribute name"},
		{"names value too long", "GetItem", `{"TableName":"names","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#n","ExpressionAttributeNames":{"#n":` + q(tooLong) + `}}`,
			"ExpressionAttributeNames contains invalid value: " + tooLarge + " for key #n"},
		{"names value empty", "GetItem", `{"TableName":"names","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#n","ExpressionAttributeNames":{"#n":""}}`,
			"ExpressionAttributeNames contains invalid value: Empty attribute name for key #n"},
		{"names key too long", "GetItem", `{"TableName":"names","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#n","ExpressionAttributeNames":{"#n":"a",` + q("#"+strings.Repeat("x", 255)) + `:"b"}}`,
			"ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 256"},
		{"values key too long", "UpdateItem", `{"TableName":"names","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET a = :v","ExpressionAttributeValues":{":v":{"N":"1"},` + q(":"+strings.Repeat("x", 255)) + `:{"N":"2"}}}`,
			"1 validation error detected: ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;"},
		{"AttributesToGet too long", "GetItem", `{"TableName":"names","Key":{"pk":{"S":"a"}},"AttributesToGet":[` + q(tooLong) + `]}`, tooLarge},
		{"AttributeUpdates too long", "UpdateItem", `{"TableName":"names","Key":{"pk":{"S":"a"}},"AttributeUpdates":{` + q(tooLong) + `:{"Action":"PUT","Value":{"N":"2"}}}}`, "1 validation error detected: " + tooLarge},
		{"key name 255", "CreateTable", `{"TableName":"names255","AttributeDefinitions":[{"AttributeName":` + q(key255) + `,"AttributeType":"S"}],"KeySchema":[{"AttributeName":` + q(key255) + `,"KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`, ""},
		{"key name 256", "CreateTable", `{"TableName":"names256","AttributeDefinitions":[{"AttributeName":` + q(key255+"k") + `,"AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`,
			"1 validation error detected: Value '" + key255 + "k' at 'attributeDefinitions.1.member.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := call(t, ts, tc.op, tc.body)
			if tc.want == "" {
				if status != 200 {
					t.Fatalf("got %d %.300s", status, body)
				}
				return
			}
			var e struct {
				Type    string `json:"__type"`
				Message string `json:"message"`
			}
			json.Unmarshal(body, &e)
			if status != 400 || e.Type != "com.amazon.coral.validate#ValidationException" || e.Message != tc.want {
				t.Errorf("got %d %.400s\nwant ValidationException %.400q", status, body, tc.want)
			}
		})
	}
}

// TestServe_OtherContentType_Is404: a body of any media type but
// application/x-amz-json-1.0 or application/json is not an API call
// (docs/dynamodb-behaviour.md §1).
func TestServe_OtherContentType_Is404(t *testing.T) {
	ts := newServer(t)
	for _, tc := range []struct {
		contentType string
		status      int
		echo        string
	}{
		{"application/x-amz-json-1.0", 200, "application/x-amz-json-1.0"},
		{"application/json", 200, "application/json"},
		{"application/json; charset=utf-8", 200, "application/json"},
		{"text/plain", 404, ""},
		{"application/x-www-form-urlencoded", 404, ""},
		{"application/x-amz-json-1.1", 404, ""},
	} {
		status, h, body := call(t, ts, "ListTables", `{}`, "Content-Type", tc.contentType)
		if status != tc.status {
			t.Errorf("Content-Type %q: got %d %s, want %d", tc.contentType, status, body, tc.status)
		}
		if tc.status == 404 && string(body) != "<UnknownOperationException/>\n" {
			t.Errorf("Content-Type %q: body %q", tc.contentType, body)
		}
		if tc.status == 200 && h.Get("Content-Type") != tc.echo {
			t.Errorf("Content-Type %q echoed as %q", tc.contentType, h.Get("Content-Type"))
		}
	}
}
