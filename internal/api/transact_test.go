package api

import "testing"

// TestFingerprint_IgnoresLayout: a retry of the same TransactWriteItems
// request matches whatever the order of its object members and its
// whitespace (DynamoDB ignores member order; aws-sdk-go-v2 writes maps
// in random order), and any change of content does not.
func TestFingerprint_IgnoresLayout(t *testing.T) {
	fp := func(body string) [32]byte {
		var in TransactWriteItemsInput
		if err := DecodeInput([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		return in.Fingerprint
	}
	base := fp(`{"ClientRequestToken":"t","TransactItems":[{"Put":{"TableName":"tab","Item":{"PK":{"S":"a"},"n":{"N":"1"}}}}]}`)
	for _, same := range []string{
		`{"ClientRequestToken":"t", "TransactItems":[ {"Put":{"TableName":"tab","Item":{"PK":{"S":"a"},"n":{"N":"1"}}}}]}`,
		`{"TransactItems":[{"Put":{"Item":{"n":{"N":"1"},"PK":{"S":"a"}},"TableName":"tab"}}],"ClientRequestToken":"t"}`,
	} {
		if fp(same) != base {
			t.Errorf("same request, different layout, different fingerprint: %s", same)
		}
	}
	for _, other := range []string{
		`{"ClientRequestToken":"t","TransactItems":[{"Put":{"TableName":"tab","Item":{"PK":{"S":"a"},"n":{"N":"2"}}}}]}`,
		`{"ClientRequestToken":"t","TransactItems":[{"Put":{"TableName":"tab","Item":{"PK":{"S":"a"},"n":{"N":"1.0"}}}}]}`,
	} {
		if fp(other) == base {
			t.Errorf("different request, same fingerprint: %s", other)
		}
	}
}

// TestCharLen: DynamoDB's length constraints count UTF-16 code units.
func TestCharLen(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{{"", 0}, {"abc", 3}, {"é", 1}, {"１", 1}, {"😀", 2}, {"a😀é", 4}} {
		if got := charLen(tc.s); got != tc.want {
			t.Errorf("charLen(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}
