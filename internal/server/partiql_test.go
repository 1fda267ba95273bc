package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestExecuteStatement_Paging: a SELECT reads page by page, Limit items
// evaluated a page (API reference, ExecuteStatement: "Limit: The maximum
// number of items to evaluate"), NextToken resuming where the page ended,
// across the partitions an IN list names and through a Scan, until every
// matching item is read once; pages of a Query come in sort key order.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html
func TestExecuteStatement_Paging(t *testing.T) {
	ts := newServer(t)
	status, _, body := call(t, ts, "CreateTable", `{"TableName":"pages","BillingMode":"PAY_PER_REQUEST",
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}]}`)
	if status != 200 {
		t.Fatalf("CreateTable: %d %s", status, body)
	}
	for _, pk := range []string{"a", "b", "c"} {
		for sk := 1; sk <= 4; sk++ {
			st := fmt.Sprintf(`{"Statement":"INSERT INTO pages VALUE {'pk': '%s', 'sk': %d, 'odd': %v}"}`, pk, sk, sk%2 == 1)
			if status, _, body := call(t, ts, "ExecuteStatement", st); status != 200 {
				t.Fatalf("INSERT: %d %s", status, body)
			}
		}
	}
	for _, tc := range []struct {
		statement string
		limit     int
		want      string // pk/sk of every item read, in order
	}{
		{`SELECT * FROM pages WHERE pk IN ['c', 'a']`, 3, "c1 c2 c3 c4 a1 a2 a3 a4"},
		{`SELECT * FROM pages WHERE pk IN ['c', 'a'] AND odd = true`, 1, "c1 c3 a1 a3"},
		{`SELECT * FROM pages WHERE pk = 'b' ORDER BY sk DESC`, 2, "b4 b3 b2 b1"},
		{`SELECT * FROM pages WHERE pk = 'b' AND sk > 2`, 1, "b3 b4"},
		{`SELECT * FROM pages WHERE pk = 'a' OR pk = 'b' AND sk = 4`, 5, "a1 a2 a3 a4 b4"},
	} {
		var got []string
		token := ""
		for page := 0; ; page++ {
			if page > 20 {
				t.Fatalf("%s: does not end", tc.statement)
			}
			req := map[string]any{"Statement": tc.statement, "Limit": tc.limit}
			if token != "" {
				req["NextToken"] = token
			}
			js, _ := json.Marshal(req)
			status, _, body := call(t, ts, "ExecuteStatement", string(js))
			if status != 200 {
				t.Fatalf("%s: %d %s", tc.statement, status, body)
			}
			var out struct {
				Items []struct {
					Pk struct{ S string }
					Sk struct{ N string }
				}
				NextToken string
			}
			if err := json.Unmarshal(body, &out); err != nil {
				t.Fatal(err)
			}
			if len(out.Items) > tc.limit {
				t.Errorf("%s: %d items in a page of Limit %d", tc.statement, len(out.Items), tc.limit)
			}
			for _, it := range out.Items {
				got = append(got, it.Pk.S+it.Sk.N)
			}
			if token = out.NextToken; token == "" {
				break
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s, Limit %d: %s, want %s", tc.statement, tc.limit, strings.Join(got, " "), tc.want)
		}
	}
	// An IN list is read ten partitions a page (developer guide, "PartiQL
	// operators": "Results are returned in pages of up to 10 items").
	var list []string
	for i := range 12 {
		list = append(list, fmt.Sprintf("'x%02d'", i))
	}
	list = append(list, "'a'")
	st, _ := json.Marshal(map[string]string{"Statement": "SELECT sk FROM pages WHERE pk IN [" + strings.Join(list, ", ") + "]"})
	_, _, body = call(t, ts, "ExecuteStatement", string(st))
	var page struct {
		Items     []any
		NextToken string
	}
	if err := json.Unmarshal(body, &page); err != nil || len(page.Items) != 0 || page.NextToken == "" {
		t.Fatalf("first ten partitions of an IN list: %s", body)
	}
	js, _ := json.Marshal(map[string]string{"Statement": "SELECT sk FROM pages WHERE pk IN [" + strings.Join(list, ", ") + "]", "NextToken": page.NextToken})
	_, _, body = call(t, ts, "ExecuteStatement", string(js))
	var rest struct {
		Items     []any
		NextToken string
	}
	if err := json.Unmarshal(body, &rest); err != nil || len(rest.Items) != 4 || rest.NextToken != "" {
		t.Errorf("the rest of an IN list: %s", body)
	}
	// A Scan reads every partition; compare as a set.
	status, _, body = call(t, ts, "ExecuteStatement", `{"Statement":"SELECT sk FROM pages WHERE odd = false"}`)
	if status != 200 || strings.Count(string(body), `"sk"`) != 6 {
		t.Errorf("scan: %d %s", status, body)
	}
	// A NextToken this server did not make, or made for another
	// statement, is refused (DynamoDB Local's words, as a public driver's
	// documentation recorded them).
	status, _, body = call(t, ts, "ExecuteStatement", `{"Statement":"SELECT * FROM pages WHERE pk = 'a'","NextToken":"not a token"}`)
	if status != 400 || !strings.Contains(string(body), `"message":"Invalid NextToken"`) {
		t.Errorf("bad NextToken: %d %s", status, body)
	}
	_, _, body = call(t, ts, "ExecuteStatement", `{"Statement":"SELECT * FROM pages WHERE pk = 'a'","Limit":1}`)
	var first struct{ NextToken string }
	if err := json.Unmarshal(body, &first); err != nil || first.NextToken == "" {
		t.Fatalf("first page: %s", body)
	}
	js, _ = json.Marshal(map[string]any{"Statement": "SELECT * FROM pages WHERE pk = 'b'", "NextToken": first.NextToken})
	status, _, body = call(t, ts, "ExecuteStatement", string(js))
	if status != 400 || !strings.Contains(string(body), `"message":"NextToken does not match request"`) {
		t.Errorf("another statement's NextToken: %d %s", status, body)
	}
	// The same statement with its conditions in another order is another
	// request (aws/aws-sdk-js-v3#4424, real DynamoDB quoted).
	js, _ = json.Marshal(map[string]any{"Statement": "SELECT * FROM pages WHERE pk = 'a' AND sk > 0", "Limit": 1})
	_, _, body = call(t, ts, "ExecuteStatement", string(js))
	if err := json.Unmarshal(body, &first); err != nil || first.NextToken == "" {
		t.Fatalf("first page: %s", body)
	}
	js, _ = json.Marshal(map[string]any{"Statement": "SELECT * FROM pages WHERE sk > 0 AND pk = 'a'", "NextToken": first.NextToken})
	if status, _, body = call(t, ts, "ExecuteStatement", string(js)); status != 400 || !strings.Contains(string(body), `"message":"NextToken does not match request"`) {
		t.Errorf("the NextToken of the conditions in another order: %d %s", status, body)
	}
	// "T"."" names an index the table does not have, not the table
	// (indexReads.test.ts pins the message for an unknown index; the
	// empty name itself is dynago's reading): no read or write runs.
	for _, st := range []string{`SELECT * FROM \"pages\".\"\"`, `SELECT * FROM \"pages\".\"\" WHERE pk = 'a'`} {
		if status, _, body := call(t, ts, "ExecuteStatement", `{"Statement":"`+st+`"}`); status != 400 || !strings.Contains(string(body), "The table does not have the specified index") {
			t.Errorf("%s: %d %s", st, status, body)
		}
	}
	for _, st := range []string{`INSERT INTO \"pages\".\"\" VALUE {'pk': 'e', 'sk': 1}`, `DELETE FROM \"pages\".\"\" WHERE pk = 'a' AND sk = 1`} {
		if status, _, body := call(t, ts, "ExecuteStatement", `{"Statement":"`+st+`"}`); status != 400 || !strings.Contains(string(body), "Writes to an index are not supported") {
			t.Errorf("%s: %d %s", st, status, body)
		}
	}
	// Projected paths come back under their last name and its indexes;
	// two under one name are refused.
	call(t, ts, "ExecuteStatement", `{"Statement":"UPDATE pages SET m = {'k': [1, 2], 'z': 3}, l = [4] WHERE pk = 'a' AND sk = 1"}`)
	_, _, body = call(t, ts, "ExecuteStatement", `{"Statement":"SELECT m.k[1], l[0], m.z FROM pages WHERE pk = 'a' AND sk = 1"}`)
	if want := `{"Items":[{"k[1]":{"N":"2"},"l[0]":{"N":"4"},"z":{"N":"3"}}]}`; string(body) != want {
		t.Errorf("nested projection: %s, want %s", body, want)
	}
	status, _, body = call(t, ts, "ExecuteStatement", `{"Statement":"SELECT m.z, z FROM pages WHERE pk = 'a' AND sk = 1"}`)
	if status != 400 || !strings.Contains(string(body), "Duplicate identifiers in select clause: z") {
		t.Errorf("duplicate names: %d %s", status, body)
	}
}

// TestExecuteStatement_OneMegabyteRead: a SELECT over several partitions
// reads at most 1 MB of items a page in all, before the WHERE clause
// filters them (API reference, ExecuteStatement: "a maximum of 1 MB of
// data (and then apply any filtering to the results using WHERE
// clause)"), so that a page's consumed capacity stays a Query page's:
// 1 MB eventually consistent is 128 units, plus the last item's.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html
func TestExecuteStatement_OneMegabyteRead(t *testing.T) {
	ts := newServer(t)
	call(t, ts, "CreateTable", `{"TableName":"mbt","BillingMode":"PAY_PER_REQUEST",
		"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
		"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}]}`)
	pad := strings.Repeat("x", 10_000)
	var parts []string
	for p := range 5 { // 5 partitions of 50 items of 10 KB: 2.5 MB
		parts = append(parts, fmt.Sprintf("'p%d'", p))
		for i := range 50 {
			st := fmt.Sprintf(`{"Statement":"INSERT INTO mbt VALUE {'pk': 'p%d', 'sk': %d, 'pad': ?}","Parameters":[{"S":"%s"}]}`, p, i, pad)
			if status, _, body := call(t, ts, "ExecuteStatement", st); status != 200 {
				t.Fatalf("INSERT: %d %s", status, body)
			}
		}
	}
	statement := "SELECT sk FROM mbt WHERE pk IN [" + strings.Join(parts, ", ") + "] AND sk < 0"
	token, pages := "", 0
	for {
		pages++
		if pages > 10 {
			t.Fatal("does not end")
		}
		req := map[string]any{"Statement": statement, "ReturnConsumedCapacity": "TOTAL"}
		if token != "" {
			req["NextToken"] = token
		}
		js, _ := json.Marshal(req)
		status, _, body := call(t, ts, "ExecuteStatement", string(js))
		var out struct {
			Items            []any
			NextToken        string
			ConsumedCapacity struct{ CapacityUnits float64 }
		}
		if err := json.Unmarshal(body, &out); status != 200 || err != nil {
			t.Fatalf("%d %s", status, body)
		}
		if len(out.Items) != 0 || out.ConsumedCapacity.CapacityUnits > 131 {
			t.Fatalf("page %d: %d items, %g units (1 MB eventually consistent is 128)", pages, len(out.Items), out.ConsumedCapacity.CapacityUnits)
		}
		if token = out.NextToken; token == "" {
			break
		}
	}
	if pages < 3 {
		t.Errorf("2.5 MB read in %d pages, want at least 3", pages)
	}
}
