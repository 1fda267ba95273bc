package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// tagOps are the tagging operations by the names the steps give them.
var tagOps = map[string]answerFunc{
	"tag":   answer((*Engine).TagResource),
	"untag": answer((*Engine).UntagResource),
	"list":  answer((*Engine).ListTagsOfResource),
}

// TestTags walks TagResource, UntagResource and ListTagsOfResource
// through DynamoDB's answers, as probed on live DynamoDB
// (docs/research-tags.md).
func TestTags(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now}, "")
	mustRun(t, e, (*Engine).CreateTable, `{"TableName":"tagged","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","Tags":[{"Key":"team","Value":"core"}]}`)
	const arn = "arn:aws:dynamodb:us-east-1:000000000000:table/tagged"
	var fifty []string
	for i := range 50 {
		fifty = append(fifty, fmt.Sprintf(`{"Key":"k%d","Value":"v"}`, i))
	}
	for i, s := range []struct{ op, body, want string }{
		{"list", `{"ResourceArn":"` + arn + `"}`, `{"Tags":[{"Key":"team","Value":"core"}]}`},
		{"tag", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"env","Value":"dev"},{"Key":"team","Value":"data"}]}`, `{}`},
		{"list", `{"ResourceArn":"` + arn + `","NextToken":"ignored"}`, `{"Tags":[{"Key":"team","Value":"data"},{"Key":"env","Value":"dev"}]}`},
		{"untag", `{"ResourceArn":"` + arn + `","TagKeys":["team","absent"]}`, `{}`},
		{"list", `{"ResourceArn":"` + arn + `"}`, `{"Tags":[{"Key":"env","Value":"dev"}]}`},
		{"tag", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"Name","Value":"Ünïcode 1 + 2 = 3 @ x/y:z_."}]}`, `{}`},
		// Errors, in DynamoDB's words; a refused request changes nothing.
		{"tag", `{"ResourceArn":"` + arn + `","Tags":[]}`, `ValidationException: Atleast one Tag needs to be provided as Input.`},
		{"tag", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"AWS:x","Value":"v"}]}`, `ValidationException: Tag Key cannot be prefixed with aws:, Key: AWS:x`},
		{"tag", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"a*b","Value":"v"}]}`, `ValidationException: The Tag Key provided is invalid, Key: a*b`},
		{"tag", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"a","Value":"v#"}]}`, `ValidationException: The Tag Value provided is invalid, Value: v#`},
		{"tag", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"a","Value":"1"},{"Key":"a","Value":"2"}]}`, `ValidationException: Duplicate Tag Keys provided as input: Duplicate Tag Key found a`},
		{"tag", `{"ResourceArn":"` + arn + `","Tags":[` + strings.Join(fifty, ",") + `]}`, `ValidationException: Number of Tags exceed the current limit for the provided ResourceArn`},
		{"tag", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"big","Value":"` + strings.Repeat("x", 256) + `"},{"Key":"` + strings.Repeat("k", 128) + `","Value":"` + strings.Repeat("y", 256) + `"}` + strings.Repeat(`,{"Key":"`+strings.Repeat("q", 100)+`","Value":"`+strings.Repeat("z", 256)+`"}`, 0) + `]}`, `{}`},
		{"list", `{"ResourceArn":"` + arn + `"}`, ``},
		{"untag", `{"ResourceArn":"` + arn + `","TagKeys":[]}`, `ValidationException: Atleast one Tag Key needs to be provided as Input.`},
		{"untag", `{"ResourceArn":"` + arn + `","TagKeys":["aws:cloudformation:stack-name"]}`, `ValidationException: Tag Key cannot be prefixed with aws:, Key: aws:cloudformation:stack-name`},
		{"list", `{"ResourceArn":"tagged"}`, `ValidationException: One or more parameter values were invalid: ARNs must start with 'arn:': tagged`},
		{"list", `{"ResourceArn":"arn:aws:s3:::bucket"}`, `ValidationException: One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: arn:aws:s3:::bucket`},
		{"tag", `{"ResourceArn":"` + arn + `/index/gsi","Tags":[{"Key":"a","Value":"b"}]}`, `ValidationException: One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource arn: ` + arn + `/index/gsi`},
		{"list", `{"ResourceArn":"arn:aws:dynamodb:eu-west-1:000000000000:table/tagged"}`, `ValidationException: Invalid TableArn: Invalid ResourceArn provided as input arn:aws:dynamodb:eu-west-1:000000000000:table/tagged`},
		{"list", `{"ResourceArn":"arn:aws:dynamodb:us-east-1:999999999999:table/tagged"}`, `AccessDeniedException: Access is denied`},
		{"list", `{"ResourceArn":"arn:aws-cn:dynamodb:us-east-1:000000000000:table/tagged"}`, `ValidationException: Invalid TableArn: Invalid ResourceArn provided as input arn:aws-cn:dynamodb:us-east-1:000000000000:table/tagged`},
		{"tag", `{"ResourceArn":"` + arn + `/","Tags":[{"Key":"a","Value":"b"}]}`, `ResourceNotFoundException: Requested resource not found: ResourceArn: ` + arn + `/ not found`},
		{"list", `{"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/nope"}`, `ResourceNotFoundException: Requested resource not found: ResourceArn: arn:aws:dynamodb:us-east-1:000000000000:table/nope not found`},
		{"tag", `{"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/nope","Tags":[{"Key":"a","Value":"b"}]}`, `ResourceNotFoundException: Requested resource not found: ResourceArn: arn:aws:dynamodb:us-east-1:000000000000:table/nope not found`},
		{"tag", `{"ResourceArn":"` + arn + `"}`, `ValidationException: 1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null`},
		{"tag", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"","Value":"v"}]}`, `ValidationException: 1 validation error detected: Value '' at 'tags.1.member.key' failed to satisfy constraint: Member must have length greater than or equal to 1`},
	} {
		got := tagOps[s.op](e, s.body)
		if s.want == "" { // the size rule: 2 large tags fit
			if !strings.Contains(got, `"Key":"big"`) {
				t.Fatalf("step %d: %s", i, got)
			}
			continue
		}
		if got != s.want {
			t.Fatalf("step %d %s %s:\n got %s\nwant %s", i, s.op, s.body, got, s.want)
		}
	}
	// 10,240 bytes of tags in all.
	var big []string
	for i := range 30 {
		big = append(big, fmt.Sprintf(`{"Key":"s%02d%s","Value":"%s"}`, i, strings.Repeat("k", 100), strings.Repeat("v", 256)))
	}
	if _, err := run(e, (*Engine).TagResource, `{"ResourceArn":"`+arn+`","Tags":[`+strings.Join(big, ",")+`]}`); err == nil || !strings.Contains(err.Error(), "bytes is above max size limit of 10240 bytes") {
		t.Fatalf("tag set over 10,240 bytes: %v", err)
	}
	// A table still CREATING refuses tags; listing works.
	e2, _ := openEngine(t, Options{Now: clock.Now, CreateDelay: time.Minute}, "")
	mustRun(t, e2, (*Engine).CreateTable, `{"TableName":"young","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`)
	young := "arn:aws:dynamodb:us-east-1:000000000000:table/young"
	if _, err := run(e2, (*Engine).TagResource, `{"ResourceArn":"`+young+`","Tags":[{"Key":"a","Value":"b"}]}`); err == nil || err.Error() != "ResourceInUseException: Attempt to change a resource which is still in use: Table is being created: young" {
		t.Fatalf("CREATING: %v", err)
	}
	if out := mustRun(t, e2, (*Engine).ListTagsOfResource, `{"ResourceArn":"`+young+`"}`); string(out.AppendJSON(nil)) != `{"Tags":[]}` {
		t.Fatalf("list while CREATING: %s", out.AppendJSON(nil))
	}
	// CreateTable's tags are not visible while CREATING; Untag then changes
	// nothing, and they show once the table is ACTIVE.
	mustRun(t, e2, (*Engine).CreateTable, `{"TableName":"young2","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","Tags":[{"Key":"t","Value":"1"}]}`)
	young2 := "arn:aws:dynamodb:us-east-1:000000000000:table/young2"
	if out := mustRun(t, e2, (*Engine).ListTagsOfResource, `{"ResourceArn":"`+young2+`"}`); string(out.AppendJSON(nil)) != `{"Tags":[]}` {
		t.Fatalf("CreateTable tags while CREATING: %s", out.AppendJSON(nil))
	}
	mustRun(t, e2, (*Engine).UntagResource, `{"ResourceArn":"`+young2+`","TagKeys":["t"]}`)
	clock.Advance(2 * time.Minute)
	if out := mustRun(t, e2, (*Engine).ListTagsOfResource, `{"ResourceArn":"`+young2+`"}`); string(out.AppendJSON(nil)) != `{"Tags":[{"Key":"t","Value":"1"}]}` {
		t.Fatalf("tags once ACTIVE: %s", out.AppendJSON(nil))
	}
}

// TestTags_Stream: a table's live stream is a resource of its own with its
// own tags (live DynamoDB answers ListTagsOfResource on a LatestStreamArn
// with its tags, and tagging it leaves the table's alone:
// docs/research-tags.md §2); a stream that is not the live one is
// ResourceNotFoundException, and a new stream starts untagged.
func TestTags_Stream(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now}, "")
	mustRun(t, e, (*Engine).CreateTable, `{"TableName":"streamed","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"},"Tags":[{"Key":"team","Value":"core"}]}`)
	const table = "arn:aws:dynamodb:us-east-1:000000000000:table/streamed"
	latest := func() string {
		var d struct {
			Table struct{ LatestStreamArn string }
		}
		if err := json.Unmarshal(mustRun(t, e, (*Engine).DescribeTable, `{"TableName":"streamed"}`).AppendJSON(nil), &d); err != nil {
			t.Fatal(err)
		}
		return d.Table.LatestStreamArn
	}
	first := latest()
	call := func(op, arn, rest string) string {
		return tagOps[op](e, `{"ResourceArn":"`+arn+`"`+rest+`}`)
	}
	notFound := func(arn string) string {
		return "ResourceNotFoundException: Requested resource not found: ResourceArn: " + arn + " not found"
	}
	steps := []struct{ op, arn, rest, want string }{
		{"list", first, ``, `{"Tags":[]}`},
		{"tag", first, `,"Tags":[{"Key":"pipeline","Value":"orders"},{"Key":"team","Value":"data"}]`, `{}`},
		{"list", first, ``, `{"Tags":[{"Key":"pipeline","Value":"orders"},{"Key":"team","Value":"data"}]}`},
		{"list", table, ``, `{"Tags":[{"Key":"team","Value":"core"}]}`},
		{"untag", first, `,"TagKeys":["team"]`, `{}`},
		{"list", first, ``, `{"Tags":[{"Key":"pipeline","Value":"orders"}]}`},
		{"list", table + "/stream/2020-01-01T00:00:00.000", ``, notFound(table + "/stream/2020-01-01T00:00:00.000")},
		{"list", table + "/stream/", ``, notFound(table + "/stream/")},
		{"tag", table + "/backup/01", `,"Tags":[{"Key":"a","Value":"b"}]`, notFound(table + "/backup/01")},
	}
	for i, s := range steps {
		if got := call(s.op, s.arn, s.rest); got != s.want {
			t.Fatalf("step %d %s %s%s:\n got %s\nwant %s", i, s.op, s.arn, s.rest, got, s.want)
		}
	}
	// Disabled, the stream is no longer taggable; re-enabled, the new
	// stream starts with no tags and the old ARN stays unknown.
	mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"streamed","StreamSpecification":{"StreamEnabled":false}}`)
	if got := call("list", first, ``); got != notFound(first) {
		t.Fatalf("disabled stream: %s", got)
	}
	if got := call("tag", first, `,"Tags":[{"Key":"a","Value":"b"}]`); got != notFound(first) {
		t.Fatalf("tag a disabled stream: %s", got)
	}
	clock.Advance(time.Second)
	mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"streamed","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_IMAGE"}}`)
	second := latest()
	if second == first {
		t.Fatal("re-enabling kept the stream ARN")
	}
	if got := call("list", second, ``); got != `{"Tags":[]}` {
		t.Fatalf("new stream: %s", got)
	}
	if got := call("list", first, ``); got != notFound(first) {
		t.Fatalf("old stream after re-enable: %s", got)
	}
	if got := call("list", table, ``); got != `{"Tags":[{"Key":"team","Value":"core"}]}` {
		t.Fatalf("table tags: %s", got)
	}
}
