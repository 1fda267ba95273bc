package gosdk

// Seed 004's access patterns again, written as PartiQL (issue 23): each
// Query becomes SELECT * FROM "table"."index" WHERE <its key condition>
// with ? parameters (ORDER BY the sort key DESC for a backward query), each
// GetItem a SELECT of the full key, run through ExecuteStatement with the
// same Limit and followed by NextToken. The answers are compared with the
// ones seed004_test.go computes from the generated data, not with the
// Query's answers. A SELECT whose WHERE fixes the partition key is a Query
// of that partition (developer guide, "PartiQL select statements":
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html).

import (
	"regexp"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

var s4Placeholder = regexp.MustCompile(`[#:][A-Za-z0-9_]+`)

// s4Statement renders a seed 004 case as a PartiQL statement and its
// parameters.
func s4Statement(tc s4Case) (string, []s4AV) {
	if tc.get != nil {
		return `SELECT * FROM "` + s4Table + `" WHERE PK = ? AND SK = ?`, []s4AV{tc.get.Key["PK"], tc.get.Key["SK"]}
	}
	q := tc.query
	var params []s4AV
	where := s4Placeholder.ReplaceAllStringFunc(aws.ToString(q.KeyConditionExpression), func(p string) string {
		if p[0] == '#' {
			return `"` + q.ExpressionAttributeNames[p] + `"`
		}
		params = append(params, q.ExpressionAttributeValues[p])
		return "?"
	})
	from := `"` + s4Table + `"`
	sortKey := "SK"
	if q.IndexName != nil {
		from += `."` + aws.ToString(q.IndexName) + `"`
		if aws.ToString(q.IndexName) == "GSI1" {
			sortKey = "GSI1SK"
		}
	}
	st := "SELECT * FROM " + from + " WHERE " + where
	if q.ScanIndexForward != nil && !*q.ScanIndexForward {
		st += ` ORDER BY "` + sortKey + `" DESC`
	}
	return st, params
}

// s4RunPartiQL runs a case as PartiQL and compares its answer with the
// case's expected items.
func s4RunPartiQL(t *testing.T, c *dynamodb.Client, tc s4Case) {
	t.Helper()
	st, params := s4Statement(tc)
	in := &dynamodb.ExecuteStatementInput{Statement: aws.String(st), Parameters: params}
	if tc.query != nil {
		in.Limit, in.ConsistentRead = tc.query.Limit, tc.query.ConsistentRead
	}
	var got []map[string]s4AV
	for pages := 1; ; pages++ {
		if pages > len(tc.want)+3 {
			t.Fatalf("%s: more than %d pages for %d items", st, pages-1, len(tc.want))
		}
		out, err := c.ExecuteStatement(ctx, in)
		if err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		got = append(got, out.Items...)
		if out.NextToken == nil {
			break
		}
		in.NextToken = out.NextToken
	}
	if tc.get != nil {
		if len(got) != len(tc.want) || len(got) == 1 && s4Render(got[0]) != s4Render(tc.want[0]) {
			t.Errorf("%s: got %d items, want %v", st, len(got), tc.want)
		}
		return
	}
	s4Compare(t, got, tc.want, tc.sortAttr)
}
