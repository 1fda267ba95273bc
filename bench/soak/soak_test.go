package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// TestClassify: a refused connection was never sent, an answer from the
// server is definite unless it is a 5xx, and a connection lost
// mid-request is unknown.
func TestClassify(t *testing.T) {
	apiErr := func(status int) error {
		return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "PutItem", Err: &awshttp.ResponseError{
			ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
				Err: &smithy.GenericAPIError{Code: "SomeError"}},
		}}
	}
	cases := []struct {
		err  error
		want class
	}{
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, notSent},
		{apiErr(400), definite},
		{apiErr(500), unknown},
		{fmt.Errorf("send: %w", io.EOF), unknown},
		{&net.OpError{Op: "read", Err: syscall.ECONNRESET}, unknown},
		{errors.New("something else"), unknown},
	}
	for _, c := range cases {
		if got, kind := classify(c.err); got != c.want {
			t.Errorf("classify(%v) = %v (%s), want %v", c.err, got, kind, c.want)
		}
	}
}

// TestCanon: the canonical form does not depend on map or set order,
// and the DynamoDB and Streams encodings agree.
func TestCanon(t *testing.T) {
	a := item{"PK": sv("k"), "s": &types.AttributeValueMemberSS{Value: []string{"b", "a"}}, "n": nv(3),
		"m": &types.AttributeValueMemberM{Value: item{"y": nv(1), "x": sv("z")}}}
	b := item{"n": nv(3), "m": &types.AttributeValueMemberM{Value: item{"x": sv("z"), "y": nv(1)}},
		"s": &types.AttributeValueMemberSS{Value: []string{"a", "b"}}, "PK": sv("k")}
	if canonItem(a) != canonItem(b) {
		t.Errorf("%s != %s", canonItem(a), canonItem(b))
	}
	s := map[string]stypes.AttributeValue{"PK": &stypes.AttributeValueMemberS{Value: "k"},
		"s": &stypes.AttributeValueMemberSS{Value: []string{"a", "b"}}, "n": &stypes.AttributeValueMemberN{Value: "3"},
		"m": &stypes.AttributeValueMemberM{Value: map[string]stypes.AttributeValue{"x": &stypes.AttributeValueMemberS{Value: "z"}, "y": &stypes.AttributeValueMemberN{Value: "1"}}}}
	if canonStreamItem(s) != canonItem(a) {
		t.Errorf("stream %s != %s", canonStreamItem(s), canonItem(a))
	}
	if canonItem(nil) != "" || matches(nil, []item{a}) || !matches(nil, []item{a, nil}) {
		t.Error("no item must match only the no-item state")
	}
}

// TestProject: sparse indexes and the three projection types.
func TestProject(t *testing.T) {
	m := item{"PK": sv("p"), "SK": sv("s"), "g": sv("g1"), "gs": nv(5), "v": nv(2), "c": nv(9), "d": sv("x")}
	if got := indexes[0].project(m); canonItem(got) != canonItem(m) {
		t.Errorf("ALL: %v", got)
	}
	if got := indexes[1].project(m); got != nil {
		t.Errorf("no cat: want no entry, got %v", got)
	}
	want := item{"PK": sv("p"), "SK": sv("s"), "v": nv(2), "c": nv(9)}
	if got := indexes[2].project(m); canonItem(got) != canonItem(want) {
		t.Errorf("INCLUDE: %s, want %s", canonItem(got), canonItem(want))
	}
	delete(m, "gs")
	if got := indexes[0].project(m); got != nil {
		t.Errorf("no range key: want no entry, got %v", got)
	}
}

// TestStreamApply: the replay follows INSERT, MODIFY and REMOVE, and
// flags an OldImage that is not the replay's item, a TTL removal by
// someone else than the service or of an item that had not expired.
func TestStreamApply(t *testing.T) {
	viol := newViolations()
	r := newStreamReader(nil, "", nil, viol)
	sh := &shard{id: "s1"}
	img := func(w string, exp int64) map[string]stypes.AttributeValue {
		m := map[string]stypes.AttributeValue{"PK": &stypes.AttributeValueMemberS{Value: "p"}, "SK": &stypes.AttributeValueMemberS{Value: "s"},
			"w": &stypes.AttributeValueMemberS{Value: w}}
		if exp != 0 {
			m[ttlAttr] = &stypes.AttributeValueMemberN{Value: fmt.Sprint(exp)}
		}
		return m
	}
	keys := img("", 0)
	delete(keys, "w")
	seq := 0
	rec := func(ev stypes.OperationType, old, new map[string]stypes.AttributeValue, who *stypes.Identity) {
		seq++
		now := time.Unix(1000, 0)
		r.apply(sh, &stypes.Record{EventName: ev, UserIdentity: who, Dynamodb: &stypes.StreamRecord{
			Keys: keys, OldImage: old, NewImage: new, SequenceNumber: strPtr(fmt.Sprint(100 + seq)), ApproximateCreationDateTime: &now}})
	}
	ttl := &stypes.Identity{Type: strPtr("Service"), PrincipalId: strPtr("dynamodb.amazonaws.com")}
	rec(stypes.OperationTypeInsert, nil, img("1", 0), nil)
	rec(stypes.OperationTypeModify, img("1", 0), img("2", 900), nil)
	rec(stypes.OperationTypeRemove, img("2", 900), nil, ttl)
	if n, first := viol.get(3); n != 0 {
		t.Fatalf("a consistent history flagged: %v", first)
	}
	if len(r.replay) != 0 || r.events["REMOVE by TTL"] != 1 {
		t.Fatalf("replay %v, events %v", r.replay, r.events)
	}
	rec(stypes.OperationTypeInsert, nil, img("3", 2000), nil)
	rec(stypes.OperationTypeModify, img("9", 0), img("4", 2000), nil)                                                      // wrong OldImage
	rec(stypes.OperationTypeRemove, img("4", 2000), nil, ttl)                                                              // not expired at 1000
	rec(stypes.OperationTypeInsert, nil, img("5", 0), &stypes.Identity{Type: strPtr("Service"), PrincipalId: strPtr("x")}) // identity on an INSERT
	if n, first := viol.get(3); n != 3 {
		t.Errorf("%d violations, want 3: %v", n, first)
	}
}

func strPtr(s string) *string { return &s }

// TestCheckRSS: the limit is the first steady sample (the second of
// three or more) plus the tolerances.
func TestCheckRSS(t *testing.T) {
	cfg := &config{rssTolerance: 64, rssGrowth: 0.25}
	s := func(mibs ...int64) []rssSample {
		var out []rssSample
		for i, m := range mibs {
			out = append(out, rssSample{gen: i + 1, age: time.Second, bytes: m << 20})
		}
		return out
	}
	if r := checkRSS(cfg, s(300, 100, 188)); !r.pass {
		t.Errorf("188 MiB against 100 + 25%% + 64: %v", r.detail)
	}
	if r := checkRSS(cfg, s(90, 100, 120, 190)); r.pass {
		t.Errorf("190 MiB against 100 + 25%% + 64 passed: %v", r.detail)
	}
	if r := checkRSS(cfg, s(100)); !r.pass {
		t.Errorf("one sample: %v", r.detail)
	}
}
