package console_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/console"
	"github.com/dynago/dynago/internal/engine"
)

// The table page (/console/tables/NAME): paging, the query builder's
// requests, index switch and consumed capacity. Query and Scan semantics
// asserted here are DynamoDB's:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html

// filmsEnv is a server with table Films (year N, title S; 120 items,
// year 2000 + i%4, title T000..T119, rank N i, status S even/odd) and a
// GSI byStatus (status S, rank N).
func filmsEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, console.Options{}, engine.Options{})
	e.api("CreateTable", `{"TableName":"Films","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"year","AttributeType":"N"},{"AttributeName":"title","AttributeType":"S"},
			{"AttributeName":"status","AttributeType":"S"},{"AttributeName":"rank","AttributeType":"N"}],
		"KeySchema":[{"AttributeName":"year","KeyType":"HASH"},{"AttributeName":"title","KeyType":"RANGE"}],
		"GlobalSecondaryIndexes":[{"IndexName":"byStatus","KeySchema":[{"AttributeName":"status","KeyType":"HASH"},{"AttributeName":"rank","KeyType":"RANGE"}],
			"Projection":{"ProjectionType":"ALL"}}]}`)
	for i := range 120 {
		status := "even"
		if i%2 == 1 {
			status = "odd"
		}
		e.api("PutItem", fmt.Sprintf(`{"TableName":"Films","Item":{"year":{"N":"%d"},"title":{"S":"T%03d"},"rank":{"N":"%d"},
			"status":{"S":"%s"},"info":{"M":{"rating":{"N":"%d.5"},"genres":{"L":[{"S":"Drama"}]}}}}}`, 2000+i%4, i, i, status, i%10))
	}
	return e
}

var (
	requestPre = regexp.MustCompile(`(?s)<pre class="json" id="r-request">(.*?)</pre>`)
	openLink   = regexp.MustCompile(`href="/console/tables/[^/"]+/item\?key=([^"]+)"`)
	nextLink   = regexp.MustCompile(`id="r-next" href="([^"]+)"`)
	backLink   = regexp.MustCompile(`id="r-back" href="([^"]+)"`)
	capacity   = regexp.MustCompile(`id="r-capacity">Consumed <strong>([^<]*)</strong> RCU([^<]*)</span>`)
	countStat  = regexp.MustCompile(`id="r-count"><strong>(\d+)</strong>`)
	scanStat   = regexp.MustCompile(`id="r-scanned">ScannedCount <strong>(\d+)</strong>`)
)

// shownRequest is the request the page says it sent.
func shownRequest(t *testing.T, body string) map[string]any {
	t.Helper()
	m := requestPre.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no request shown:\n%s", body)
	}
	var req map[string]any
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &req); err != nil {
		t.Fatalf("the request shown is not JSON: %v\n%s", err, m[1])
	}
	return req
}

// shownKeys are the keys of the items a page lists, as "year/title".
func shownKeys(t *testing.T, body string) []string {
	t.Helper()
	var keys []string
	for _, m := range openLink.FindAllStringSubmatch(body, -1) {
		q, err := url.QueryUnescape(html.UnescapeString(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		var k map[string]map[string]string
		if err := json.Unmarshal([]byte(q), &k); err != nil {
			t.Fatalf("open link key %s: %v", q, err)
		}
		keys = append(keys, k["year"]["N"]+"/"+k["title"]["S"])
	}
	return keys
}

// apiKeys are the keys of items of an API answer, as "year/title".
func apiKeys(out map[string]any) []string {
	var keys []string
	items, _ := out["Items"].([]any)
	for _, it := range items {
		m := it.(map[string]any)
		keys = append(keys, m["year"].(map[string]any)["N"].(string)+"/"+m["title"].(map[string]any)["S"].(string))
	}
	return keys
}

func link(t *testing.T, re *regexp.Regexp, body string) string {
	t.Helper()
	m := re.FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

func TestTablePage_Paging(t *testing.T) {
	e := filmsEnv(t)
	code, body := e.get("/console/tables/Films")
	if code != http.StatusOK {
		t.Fatalf("GET: %d\n%s", code, body)
	}
	for _, want := range []string{"Partition key <code>year</code>", "Sort key <code>title</code>", "PAY_PER_REQUEST", "120 items",
		`href="/console/tables/Films/stream"`, `href="/console/capacity?table=Films"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the header lacks %q", want)
		}
	}
	// Pages of 50 (the default) for the Scan, and a Query's pages of 7:
	// every item once, following LastEvaluatedKey (API reference, Scan
	// and Query: "If LastEvaluatedKey is present ... more data").
	for _, tc := range []struct {
		start string
		sizes []int
	}{
		{"/console/tables/Films", []int{50, 50, 20}},
		{"/console/tables/Films?op=query&pk=2001&limit=7", []int{7, 7, 7, 7, 2}},
		{"/console/tables/Films?op=query&pk=2001&skop=begins_with&sk=T1&order=desc&limit=4", []int{4, 1}},
	} {
		pagingCase(t, e, tc.start, tc.sizes)
	}
	// A page size of 7 pages by 7, and says Limit 7.
	_, body = e.get("/console/tables/Films?limit=7")
	if n := len(shownKeys(t, body)); n != 7 {
		t.Errorf("limit=7: %d items", n)
	}
	if req := shownRequest(t, body); req["Limit"] != 7.0 {
		t.Errorf("limit=7: request %v", req)
	}
	if next := link(t, nextLink, body); !strings.Contains(next, "limit=7") {
		t.Errorf("the next link %q loses the page size", next)
	}
}

// pagingCase pages forward from start, expecting pages of sizes, then
// back from the last page, and reloads each page.
func pagingCase(t *testing.T, e *env, start string, sizes []int) {
	t.Helper()
	var pages [][]string
	var urls []string
	u := start
	seen := map[string]bool{}
	for u != "" {
		code, body := e.get(u)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d", u, code)
		}
		keys := shownKeys(t, body)
		for _, k := range keys {
			if seen[k] {
				t.Errorf("%s: %s shown twice", start, k)
			}
			seen[k] = true
		}
		pages, urls = append(pages, keys), append(urls, u)
		u = link(t, nextLink, body)
	}
	var got []int
	for _, p := range pages {
		got = append(got, len(p))
	}
	// DynamoDB may end with an empty page after a full one; dynago
	// does not, and the sizes here are its.
	if !reflect.DeepEqual(got, sizes) {
		t.Fatalf("%s: pages of %v items, want %v", start, got, sizes)
	}
	// Back from each page is the page before; a page's link reloads it.
	for i := len(pages) - 1; i >= 1; i-- {
		_, body := e.get(urls[i])
		if got := shownKeys(t, body); !reflect.DeepEqual(got, pages[i]) {
			t.Errorf("%s: reloading page %d: other items", start, i+1)
		}
		back := link(t, backLink, body)
		if back == "" {
			t.Fatalf("%s: page %d has no Back link", start, i+1)
		}
		_, body = e.get(back)
		if got := shownKeys(t, body); !reflect.DeepEqual(got, pages[i-1]) {
			t.Errorf("%s: Back from page %d shows other items than page %d", start, i+1, i)
		}
	}
}

func TestTablePage_Query(t *testing.T) {
	e := filmsEnv(t)
	tests := []struct {
		name, query, cond string
		filter            string
	}{
		{"partition only", "pk=2001", "#year = :pk", ""},
		{"=", "pk=2001&skop=%3D&sk=T005", "#year = :pk AND #title = :sk", ""},
		{"<", "pk=2001&skop=%3C&sk=T009", "#year = :pk AND #title < :sk", ""},
		{"<=", "pk=2001&skop=%3C%3D&sk=T009", "#year = :pk AND #title <= :sk", ""},
		{">", "pk=2001&skop=%3E&sk=T113", "#year = :pk AND #title > :sk", ""},
		{">=", "pk=2001&skop=%3E%3D&sk=T113", "#year = :pk AND #title >= :sk", ""},
		{"between", "pk=2001&skop=between&sk=T010&sk2=T021", "#year = :pk AND #title BETWEEN :sk AND :sk2", ""},
		{"begins_with", "pk=2001&skop=begins_with&sk=T01", "#year = :pk AND begins_with(#title, :sk)", ""},
		{"descending", "pk=2001&skop=begins_with&sk=T01&order=desc", "#year = :pk AND begins_with(#title, :sk)", ""},
		// status is a reserved word (developer guide, ReservedWords.html).
		{"filter on a reserved word", "pk=2002&fa=status&fo=%3D&ft=S&fv=even&fa=info.rating&fo=%3E%3D&ft=N&fv=4",
			"#year = :pk", "#status = :f0 AND #info.#rating >= :f1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := e.get("/console/tables/Films?op=query&" + tc.query)
			if code != http.StatusOK {
				t.Fatalf("%d\n%s", code, body)
			}
			req := shownRequest(t, body)
			if req["KeyConditionExpression"] != tc.cond {
				t.Errorf("KeyConditionExpression %q, want %q", req["KeyConditionExpression"], tc.cond)
			}
			if f, _ := req["FilterExpression"].(string); f != tc.filter {
				t.Errorf("FilterExpression %q, want %q", f, tc.filter)
			}
			// Keys are typed by the AttributeDefinitions: year is N.
			vals := req["ExpressionAttributeValues"].(map[string]any)
			if pk := vals[":pk"].(map[string]any); pk["N"] == nil {
				t.Errorf(":pk is %v, want an N", pk)
			}
			names := req["ExpressionAttributeNames"].(map[string]any)
			if names["#year"] != "year" {
				t.Errorf("ExpressionAttributeNames %v", names)
			}
			// The items are those the same request gets from the API.
			raw, _ := json.Marshal(req)
			want := apiKeys(e.api("Query", string(raw)))
			got := shownKeys(t, body)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("items %v, want %v", got, want)
			}
			if len(want) == 0 {
				t.Errorf("the case selects no items")
			}
			if c := countStat.FindStringSubmatch(body); c == nil || c[1] != fmt.Sprint(len(want)) {
				t.Errorf("Count shown %v, want %d", c, len(want))
			}
		})
	}
	// Spot checks of what DynamoDB's operators select.
	for q, want := range map[string][]string{
		"pk=2001&skop=%3C%3D&sk=T009":                 {"2001/T001", "2001/T005", "2001/T009"},
		"pk=2001&skop=between&sk=T010&sk2=T021":       {"2001/T013", "2001/T017", "2001/T021"},
		"pk=2001&skop=begins_with&sk=T01&order=desc":  {"2001/T017", "2001/T013"},
		"pk=2002&fa=status&fo=%3D&ft=S&fv=odd":        nil,
		"pk=2002&skop=%3C&sk=T020&proj=title%2C+year": {"2002/T002", "2002/T006", "2002/T010", "2002/T014", "2002/T018"},
	} {
		_, body := e.get("/console/tables/Films?op=query&" + q)
		if got := shownKeys(t, body); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
}

func TestTablePage_ScanFilterAndIndex(t *testing.T) {
	e := filmsEnv(t)
	// A Scan filtered on year (a reserved word) and on a number.
	_, body := e.get("/console/tables/Films?op=scan&limit=200&fa=year&fo=%3D&ft=N&fv=2003&fv2=&fa=rank&fo=between&ft=N&fv=10&fv2=30")
	req := shownRequest(t, body)
	if req["FilterExpression"] != "#year = :f0 AND #rank BETWEEN :f1 AND :f1b" {
		t.Errorf("FilterExpression %q", req["FilterExpression"])
	}
	got := shownKeys(t, body)
	want := []string{"2003/T011", "2003/T015", "2003/T019", "2003/T023", "2003/T027"}
	if !sameSet(got, want) {
		t.Errorf("items %v, want %v", got, want)
	}
	if s := scanStat.FindStringSubmatch(body); s == nil || s[1] != "120" {
		t.Errorf("ScannedCount %v, want 120 (a filter applies after the read)", s)
	}
	// The index: its keys first; a Query of rank between 10 and 20 is
	// numeric (rank is N), so 100..119 are not in it.
	_, body = e.get("/console/tables/Films?index=byStatus&op=query&pk=even&skop=between&sk=10&sk2=20")
	req = shownRequest(t, body)
	if req["IndexName"] != "byStatus" || req["KeyConditionExpression"] != "#status = :pk AND #rank BETWEEN :sk AND :sk2" {
		t.Errorf("index request %v", req)
	}
	if v := req["ExpressionAttributeValues"].(map[string]any)[":sk"]; !reflect.DeepEqual(v, map[string]any{"N": "10"}) {
		t.Errorf(":sk %v, want an N", v)
	}
	if n := len(shownKeys(t, body)); n != 6 {
		t.Errorf("%d items, want 6 (10, 12, ... 20)", n)
	}
	if i, j := strings.Index(body, `<th scope="col">status</th>`), strings.Index(body, `<th scope="col">year</th>`); i < 0 || j < i {
		t.Errorf("the index's keys do not come first")
	}
	// Choosing another index (for= is the one the key fields were for)
	// starts a Scan of it.
	_, body = e.get("/console/tables/Films?for=&index=byStatus&op=query&pk=2001")
	if req := shownRequest(t, body); req["IndexName"] != "byStatus" || req["KeyConditionExpression"] != nil {
		t.Errorf("after switching: %v", req)
	}
	if n := len(shownKeys(t, body)); n != 50 {
		t.Errorf("the index's first page: %d items", n)
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

// The consumed capacity shown is the operation's (API reference,
// ConsumedCapacity: with ReturnConsumedCapacity INDEXES the total and
// the table's and each index's share).
func TestTablePage_ConsumedCapacity(t *testing.T) {
	e := filmsEnv(t)
	for _, q := range []string{"", "?limit=7", "?op=query&pk=2001", "?index=byStatus&op=query&pk=odd&skop=%3E&sk=40"} {
		_, body := e.get("/console/tables/Films" + q)
		req := shownRequest(t, body)
		op := "Scan"
		if req["KeyConditionExpression"] != nil {
			op = "Query"
		}
		raw, _ := json.Marshal(req)
		out := e.api(op, string(raw))
		cc := out["ConsumedCapacity"].(map[string]any)
		m := capacity.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("%s: no capacity shown", q)
		}
		if want := strings.TrimSuffix(fmt.Sprintf("%.1f", cc["CapacityUnits"]), ".0"); m[1] != want {
			t.Errorf("%s: %s RCU shown, the operation consumed %s", q, m[1], want)
		}
		if gsi, ok := cc["GlobalSecondaryIndexes"].(map[string]any); ok {
			units := gsi["byStatus"].(map[string]any)["CapacityUnits"].(float64)
			if !strings.Contains(m[2], fmt.Sprintf("index byStatus %s", strings.TrimSuffix(fmt.Sprintf("%.1f", units), ".0"))) {
				t.Errorf("%s: the index's share is not shown: %q", q, m[2])
			}
		} else if tb, ok := cc["Table"].(map[string]any); ok {
			if !strings.Contains(m[2], fmt.Sprintf("table Films %s", strings.TrimSuffix(fmt.Sprintf("%.1f", tb["CapacityUnits"]), ".0"))) {
				t.Errorf("%s: the table's share is not shown: %q", q, m[2])
			}
		}
	}
}

func TestTablePage_Errors(t *testing.T) {
	e := filmsEnv(t)
	tests := []struct {
		name, path string
		code       int
		want       []string
	}{
		{"unknown table", "/console/tables/Nope", http.StatusNotFound,
			[]string{"ResourceNotFoundException", "Requested resource not found"}},
		// A Query's filter cannot name a key attribute (API reference,
		// Query, FilterExpression); the form is kept.
		{"filter on a key in a Query", "/console/tables/Films?op=query&pk=2001&fa=title&fo=%3D&ft=S&fv=T001", http.StatusBadRequest,
			[]string{"ValidationException", "Filter Expression can only contain non-primary key attributes", `name="fa" value="title"`, `name="pk" id="q-pk" value="2001"`}},
		{"a number that is not", "/console/tables/Films?op=query&pk=abc", http.StatusBadRequest,
			[]string{"ValidationException", `value="abc"`}},
		// Limit 0 is DynamoDB's to refuse, not a page without a Limit.
		{"page size 0", "/console/tables/Films?limit=0", http.StatusBadRequest,
			[]string{"ValidationException", "Value &#39;0&#39; at &#39;limit&#39; failed to satisfy constraint", `id="q-limit" size="5" inputmode="numeric" value="0"`}},
		{"bad page size", "/console/tables/Films?limit=ten", http.StatusBadRequest, []string{"The page size &#34;ten&#34; is not a whole number."}},
		{"bad paging stack", "/console/tables/Films?p=%25%25", http.StatusBadRequest, []string{"The paging position (p)"}},
		{"bad BOOL", "/console/tables/Films?fa=x&fo=%3D&ft=BOOL&fv=maybe", http.StatusBadRequest, []string{"a BOOL value is true or false"}},
		// base64url of {"a":1} and of [1]: JSON, but no list of keys.
		{"paging stack of an object", "/console/tables/Films?p=eyJhIjoxfQ", http.StatusBadRequest, []string{"The paging position (p) in the address does not decode: it is not a list of keys."}},
		{"paging stack of numbers", "/console/tables/Films?p=WzFd", http.StatusBadRequest, []string{"does not decode: it is not a list of keys."}},
		{"skip not a number", "/console/tables/Films?p=W3t9XQ&skip=x", http.StatusBadRequest, []string{"The paging position (skip=&#34;x&#34;)"}},
		{"skip below 0", "/console/tables/Films?p=W3t9XQ&skip=-1", http.StatusBadRequest, []string{"The paging position (skip=&#34;-1&#34;)"}},
		{"skip without p", "/console/tables/Films?skip=3", http.StatusBadRequest, []string{"The paging position (skip=&#34;3&#34;)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := e.get(tc.path)
			if code != tc.code {
				t.Errorf("status %d, want %d", code, tc.code)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("the page lacks %q:\n%s", w, body)
				}
			}
		})
	}
}

// TestTablePage_LongPaging: paging on through many pages keeps every
// link under the server's 16 KB limit on a request's line and headers
// (server.MaxHeaderBytes), which a paging stack of every page's key
// passed after a few hundred pages (or a few dozen of long keys): the
// oldest keys are dropped, the page number stays right, Back goes back
// as far as the keys kept, and the first page is a link.
func TestTablePage_LongPaging(t *testing.T) {
	tests := []struct {
		name         string
		keyLen       int
		items, limit int
	}{
		{"short keys, a page an item", 60, 300, 1},
		{"long keys", 1000, 60, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, console.Options{}, engine.Options{})
			e.api("CreateTable", `{"TableName":"Pages","BillingMode":"PAY_PER_REQUEST",
				"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
				"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
			for i := range tc.items {
				pk := fmt.Sprintf("%06d#%s", i, strings.Repeat("k", tc.keyLen-7))
				e.api("PutItem", fmt.Sprintf(`{"TableName":"Pages","Item":{"pk":{"S":%q}}}`, pk))
			}
			seen := map[string]bool{}
			var pages []string // each page's URL
			var keys [][]string
			u := fmt.Sprintf("/console/tables/Pages?limit=%d", tc.limit)
			for u != "" {
				if len(u) > 12<<10 {
					t.Fatalf("page %d's link is %d bytes long", len(pages)+1, len(u))
				}
				code, body := e.get(u)
				if code != http.StatusOK {
					t.Fatalf("page %d: %d %s", len(pages)+1, code, body)
				}
				if want := fmt.Sprintf("Page %d<", len(pages)+1); !strings.Contains(body, want) {
					t.Fatalf("page %d does not say %q", len(pages)+1, want)
				}
				var ks []string
				for _, m := range openLink.FindAllStringSubmatch(body, -1) {
					q, _ := url.QueryUnescape(html.UnescapeString(m[1]))
					if seen[q] {
						t.Fatalf("page %d shows %s again", len(pages)+1, q)
					}
					seen[q] = true
					ks = append(ks, q)
				}
				pages, keys = append(pages, u), append(keys, ks)
				u = link(t, nextLink, body)
			}
			if len(seen) != tc.items {
				t.Fatalf("%d items shown, want %d", len(seen), tc.items)
			}
			// Back from the last page, as far as it goes, shows each
			// page before; the first page link leads to page 1.
			last := len(pages) - 1
			_, body := e.get(pages[last])
			if !strings.Contains(body, `id="r-back-far"`) && link(t, backLink, body) == "" {
				t.Fatal("the last page has neither Back nor a word on it")
			}
			back := 0
			for i := last; i >= 1; i-- {
				b := link(t, backLink, body)
				if b == "" {
					break
				}
				back++
				_, body = e.get(b)
				var ks []string
				for _, m := range openLink.FindAllStringSubmatch(body, -1) {
					q, _ := url.QueryUnescape(html.UnescapeString(m[1]))
					ks = append(ks, q)
				}
				if !reflect.DeepEqual(ks, keys[i-1]) || !strings.Contains(body, fmt.Sprintf("Page %d<", i)) {
					t.Fatalf("Back from page %d: other items than page %d's", i+1, i)
				}
			}
			if back < 3 {
				t.Errorf("Back goes back %d pages only", back)
			}
			_, body = e.get(pages[last])
			first := regexp.MustCompile(`id="r-first" href="([^"]+)"|href="([^"]+)" id="r-first"`).FindStringSubmatch(body)
			if first == nil {
				t.Fatal("the last page has no first page link")
			}
			_, body = e.get(html.UnescapeString(first[1] + first[2]))
			if !strings.Contains(body, "Page 1<") {
				t.Error("the first page link leads elsewhere")
			}
		})
	}
}

// TestTablePage_ManyAttributeNames: a page's table is its items times
// their different attribute names, which for items that each have names
// of their own grew as the square of the page size (3,000 items: a
// 180 MB page and 1.5 GB of the server's memory). The columns are
// bounded, the keys kept, and of the other names those most items have;
// the page says how many it left out.
func TestTablePage_ManyAttributeNames(t *testing.T) {
	tests := []struct {
		name        string
		items       int
		common      bool // every item also has attribute "common"
		limit       int
		columns     int // the page's columns, the keys among them
		hiddenWords string
	}{
		{"a name an item, a page of 3000", 3000, false, 3000, 66, "2935 of the 3001 attribute names"},
		{"a name an item and a common one", 500, true, 500, 200, "302 of the 502 attribute names"},
		{"few names", 40, true, 50, 42, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, console.Options{}, engine.Options{})
			e.api("CreateTable", `{"TableName":"Sparse","BillingMode":"PAY_PER_REQUEST",
				"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],
				"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
			for b := 0; b < tc.items; b += 25 {
				var puts []string
				for i := b; i < min(b+25, tc.items); i++ {
					common := ""
					if tc.common {
						common = `,"common":{"S":"c"}`
					}
					puts = append(puts, fmt.Sprintf(`{"PutRequest":{"Item":{"pk":{"S":"k%05d"},"a%05d":{"N":"1"}%s}}}`, i, i, common))
				}
				e.api("BatchWriteItem", `{"RequestItems":{"Sparse":[`+strings.Join(puts, ",")+`]}}`)
			}
			code, body := e.get(fmt.Sprintf("/console/tables/Sparse?limit=%d", tc.limit))
			if code != http.StatusOK {
				t.Fatalf("%d %s", code, body)
			}
			if n := len(shownKeysOf(body)); n != tc.items {
				t.Errorf("%d items shown, want %d", n, tc.items)
			}
			if n := strings.Count(body, `<th scope="col">`); n != tc.columns {
				t.Errorf("%d columns, want %d", n, tc.columns)
			}
			if !strings.Contains(body, `<th scope="col">pk</th>`) {
				t.Error("the key column is left out")
			}
			if tc.common && !strings.Contains(body, `<th scope="col">common</th>`) {
				t.Error("the name every item has is left out")
			}
			note := strings.Contains(body, `id="columns-hidden"`)
			if tc.hiddenWords == "" && note || tc.hiddenWords != "" && !strings.Contains(body, tc.hiddenWords) {
				t.Errorf("the page says %q about hidden columns, want %q", text(regexp.MustCompile(`(?s)<p class="muted" id="columns-hidden">.*?</p>`).FindString(body)), tc.hiddenWords)
			}
			if len(body) > 8<<20 {
				t.Errorf("the page is %d bytes", len(body))
			}
		})
	}
}

// shownKeysOf returns the keys of the open links of a page.
func shownKeysOf(body string) []string {
	var keys []string
	for _, m := range openLink.FindAllStringSubmatch(body, -1) {
		keys = append(keys, m[1])
	}
	return keys
}

// After the index select switched the page (a reload), the select has
// the focus again (autofocus), so that a keyboard user goes on from it;
// a page reached otherwise leaves the focus alone.
func TestTablePage_IndexSwitchKeepsFocus(t *testing.T) {
	e := filmsEnv(t)
	focused := regexp.MustCompile(`<select name="index" id="q-index"[^>]*autofocus`)
	for _, tc := range []struct {
		path  string
		focus bool
	}{
		{"/console/tables/Films", false},
		{"/console/tables/Films?for=&index=byStatus", true},
		{"/console/tables/Films?for=byStatus&index=", true},
		{"/console/tables/Films?for=byStatus&index=byStatus&op=query&pk=odd", false},
	} {
		_, body := e.get(tc.path)
		if got := focused.MatchString(body); got != tc.focus {
			t.Errorf("%s: the select's autofocus %v, want %v", tc.path, got, tc.focus)
		}
	}
}

// The items, stream and settings pages share the table's header
// (table_header): the breadcrumbs, one separator ("/") on every page, and
// the tabs with the page's own marked current.
func TestTableHeader_SharedTabs(t *testing.T) {
	e := filmsEnv(t)
	current := regexp.MustCompile(`<nav class="tabs" aria-label="Table">(?s:.*?)<a href="([^"]*)" aria-current="page">([^<]*)</a>`)
	crumbs := regexp.MustCompile(`<p class="crumbs[^"]*">(.*?)</p>`)
	for _, tc := range []struct {
		path, tab, crumbs string
	}{
		{"/console/tables/Films", "Items", "Tables / Films"},
		{"/console/tables/Films/stream", "Stream", "Tables / Films / stream"},
		{"/console/table-settings/Films", "Settings", "Tables / Films / settings"},
		{"/console/create-table", "", "Tables / create table"},
		{editorPathOf("Films", `{"year":{"N":"2000"},"title":{"S":"T000"}}`), "", "Tables / Films / item"},
	} {
		code, body := e.get(tc.path)
		if code != http.StatusOK {
			t.Fatalf("%s: %d", tc.path, code)
		}
		if m := crumbs.FindStringSubmatch(body); m == nil || text(m[1]) != tc.crumbs {
			t.Errorf("%s: breadcrumbs %v, want %q", tc.path, m, tc.crumbs)
		}
		if tc.tab == "" {
			continue
		}
		m := current.FindStringSubmatch(body)
		if m == nil || m[2] != tc.tab {
			t.Errorf("%s: current tab %v, want %s", tc.path, m, tc.tab)
		}
		for _, href := range []string{`href="/console/tables/Films"`, `href="/console/tables/Films/stream"`, `href="/console/capacity?table=Films"`, `href="/console/partiql?table=Films"`, `href="/console/table-settings/Films"`} {
			if !strings.Contains(body, href) {
				t.Errorf("%s: the tabs lack %s", tc.path, href)
			}
		}
	}
	// A table that does not exist has no tabs.
	for _, p := range []string{"/console/tables/Nope", "/console/tables/Nope/stream", "/console/table-settings/Nope"} {
		if _, body := e.get(p); strings.Contains(body, `<nav class="tabs"`) {
			t.Errorf("%s: tabs of a table that does not exist", p)
		}
	}
}

func editorPathOf(table, key string) string {
	return "/console/tables/" + table + "/item?key=" + url.QueryEscape(key)
}
