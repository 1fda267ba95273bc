package console_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/console"
	"github.com/dynago/dynago/internal/engine"
)

// stTable creates table Orders (id S) with a stream of view type view
// ("" : none).
func stTable(e *env, view string) {
	e.t.Helper()
	spec := ""
	if view != "" {
		spec = `,"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"` + view + `"}`
	}
	e.api("CreateTable", `{"TableName":"Orders","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],
		"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}]`+spec+`}`)
}

// stWrites puts, updates and deletes order id.
func stWrites(e *env, id string) {
	e.t.Helper()
	e.api("PutItem", `{"TableName":"Orders","Item":{"id":{"S":"`+id+`"},"status":{"S":"new"},"total":{"N":"12"}}}`)
	e.api("UpdateItem", `{"TableName":"Orders","Key":{"id":{"S":"`+id+`"}},"UpdateExpression":"SET #s = :s, note = :n",
		"ExpressionAttributeNames":{"#s":"status"},"ExpressionAttributeValues":{":s":{"S":"paid"},":n":{"S":"card"}}}`)
	e.api("DeleteItem", `{"TableName":"Orders","Key":{"id":{"S":"`+id+`"}}}`)
}

var (
	pollURL  = regexp.MustCompile(`hx-post="([^"]*/stream/records)" hx-vals="([^"]*)"`)
	recordRe = regexp.MustCompile(`(?s)<article class="st-rec st-(\w+)[^"]*"[^>]*>.*?</article>`)
)

// poll is the page's next poll: its path and its form values (hx-vals).
type poll struct {
	path string
	vals url.Values
}

// pollOf returns the poll of a page or a poll's answer.
func pollOf(body string) (poll, bool) {
	m := pollURL.FindStringSubmatch(body)
	if m == nil {
		return poll{}, false
	}
	var vals map[string]string
	if err := json.Unmarshal([]byte(html.UnescapeString(m[2])), &vals); err != nil {
		return poll{}, false
	}
	p := poll{path: html.UnescapeString(m[1]), vals: url.Values{}}
	for k, v := range vals {
		p.vals.Set(k, v)
	}
	return p, true
}

// stRecords returns the event names of the records a page shows, in
// its order.
func stRecords(body string) []string {
	var names []string
	for _, m := range recordRe.FindAllStringSubmatch(body, -1) {
		names = append(names, m[1])
	}
	return names
}

// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_StreamRecord.html
// (eventName INSERT, MODIFY, REMOVE; OldImage and NewImage by StreamViewType).
func TestStream_Records(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{StreamShards: 1})
	stTable(e, "NEW_AND_OLD_IMAGES")
	stWrites(e, "o1")
	code, body := e.get("/console/tables/Orders/stream")
	if code != http.StatusOK {
		t.Fatalf("%d\n%s", code, body)
	}
	if got := strings.Join(stRecords(body), " "); got != "REMOVE MODIFY INSERT" {
		t.Errorf("records %q, want newest first: REMOVE MODIFY INSERT", got)
	}
	recs := recordRe.FindAllString(body, -1)
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	tests := []struct {
		name, rec string
		want      []string
		notWant   []string
	}{
		{"REMOVE: the old image only", recs[0], []string{"Old image", ">paid<", "No new image: the item was deleted (NEW_AND_OLD_IMAGES)."}, []string{"changed</span>", "New image"}},
		{"MODIFY: both, changes marked", recs[1], []string{"Old image", "New image",
			`<tr class="st-changed"><th scope="row">status <span class="st-mark">changed</span></th><td class="t-S">new</td><td class="t-S">paid</td></tr>`,
			`<tr class="st-added"><th scope="row">note <span class="st-mark">added</span></th><td class="t-"><span class="muted" title="not in this image">—</span></td><td class="t-S">card</td></tr>`,
			`<tr><th scope="row">total</th><td class="t-N">12</td><td class="t-N">12</td></tr>`,
			"2 attributes changed"}, nil},
		{"INSERT: the new image", recs[2], []string{"New image", ">new<", "No old image: the item is new", `<span class="st-key">id</span> = <code>o1</code>`}, []string{"st-mark", "Old image"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range tc.want {
				if !strings.Contains(tc.rec, w) {
					t.Errorf("no %s in\n%s", w, tc.rec)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(tc.rec, w) {
					t.Errorf("%s in\n%s", w, tc.rec)
				}
			}
		})
	}
	for _, w := range []string{"3 records", "NEW_AND_OLD_IMAGES", "ENABLED", "arn:aws:dynamodb:", `hx-trigger="every 2s"`} {
		if !strings.Contains(body, w) {
			t.Errorf("the page has no %s", w)
		}
	}
	// Times as on the capacity page: 24-hour HH:MM:SS, the zone said once.
	if n := strings.Count(text(body), "UTC"); n != 1 || !strings.Contains(body, "Times are UTC.") {
		t.Errorf("the page names the zone %d times, want once (Times are UTC.)", n)
	}
	for _, re := range []string{`<dd>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d</dd>`, `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d · seq`, `last at \d\d:\d\d:\d\d\)`} {
		if !regexp.MustCompile(re).MatchString(body) {
			t.Errorf("no time %s in the page", re)
		}
	}
}

// TestStream_ModifyShowsTheChange: a MODIFY whose change is inside a map
// (the new user's SET info.rating = 8 on a movie, whose info cells are
// cut to the same first 60 characters) lists the changed path with both
// values; a changed long string is shown opened; an unchanged map
// lists nothing.
func TestStream_ModifyShowsTheChange(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{StreamShards: 1})
	stTable(e, "NEW_AND_OLD_IMAGES")
	plot := strings.Repeat("A bureaucrat in a retro-future world ", 3)
	e.api("PutItem", `{"TableName":"Orders","Item":{"id":{"S":"m1"},"note":{"S":"`+plot+`old"},"same":{"M":{"a":{"S":"`+plot+`"}}},
		"info":{"M":{"actors":{"L":[{"S":"Jonathan Pryce"},{"S":"Kim Greist"},{"S":"Robert De Niro"}]},"plot":{"S":"`+plot+`"},"rating":{"N":"8.8"}}}}}`)
	e.api("UpdateItem", `{"TableName":"Orders","Key":{"id":{"S":"m1"}},"UpdateExpression":"SET info.rating = :r, note = :n",
		"ExpressionAttributeValues":{":r":{"N":"8"},":n":{"S":"`+plot+`new"}}}`)
	_, body := e.get("/console/tables/Orders/stream")
	recs := recordRe.FindAllString(body, -1)
	if len(recs) != 2 || !strings.Contains(recs[0], "st-MODIFY") {
		t.Fatalf("records %q", stRecords(body))
	}
	mod := recs[0]
	for _, tc := range []struct {
		name string
		want string
		in   bool
	}{
		{"the changed path", `<li><code>info.rating</code>: <code class="st-was">8.8</code> → <code class="st-now">8</code></li>`, true},
		{"only that path", `<code>info.plot</code>`, false},
		{"the changed long string opened", `<details class="cut" open><summary>` + plot[:console.CellMax] + `…</summary><pre>&#34;` + plot + `new&#34;</pre>`, true},
		{"the unchanged map listed nothing", `What changed in same`, false},
		{"the count", "2 attributes changed", true},
	} {
		if strings.Contains(mod, tc.want) != tc.in {
			t.Errorf("%s: %q in the record is %v, want %v:\n%s", tc.name, tc.want, !tc.in, tc.in, mod)
		}
	}
}

// The poll sends back where the page read each shard to and gets only
// the records after it.
func TestStream_Poll(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{StreamShards: 2})
	stTable(e, "NEW_AND_OLD_IMAGES")
	e.api("PutItem", `{"TableName":"Orders","Item":{"id":{"S":"first"}}}`)
	_, body := e.get("/console/tables/Orders/stream")
	next := func(body string) poll {
		t.Helper()
		p, ok := pollOf(body)
		if !ok {
			t.Fatalf("no poll in\n%s", body)
		}
		return p
	}
	u := next(body)
	tests := []struct {
		name    string
		write   []string
		want    []string // ids of the records the poll brings, in order
		summary string
	}{
		{"nothing new", nil, nil, "1 record , newest first"},
		{"one put", []string{"second"}, []string{"second"}, "2 records , newest first"},
		{"two puts, newest first", []string{"third", "fourth"}, []string{"fourth", "third"}, "4 records , newest first"},
		{"nothing new again", nil, nil, "4 records , newest first"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, id := range tc.write {
				e.api("PutItem", `{"TableName":"Orders","Item":{"id":{"S":"`+id+`"}}}`)
			}
			code, body := e.post(u.path, u.vals)
			if code != http.StatusOK || strings.Contains(body, "<html") {
				t.Fatalf("%d, not a fragment:\n%s", code, body)
			}
			var ids []string
			for _, m := range regexp.MustCompile(`<span class="st-key">id</span> = <code>(\w+)</code>`).FindAllStringSubmatch(body, -1) {
				ids = append(ids, m[1])
			}
			if strings.Join(ids, ",") != strings.Join(tc.want, ",") {
				t.Errorf("records %v, want %v", ids, tc.want)
			}
			if got := strings.Contains(body, `hx-swap-oob="afterbegin:#records"`); got != (len(tc.want) > 0) {
				t.Errorf("records swapped in: %v", got)
			}
			if len(tc.want) > 0 && !strings.Contains(body, "st-new") {
				t.Errorf("polled records are not marked new")
			}
			if !strings.Contains(text(body), tc.summary) {
				t.Errorf("summary: want %q in\n%s", tc.summary, text(body))
			}
			u = next(body)
		})
	}
}

// A bad position or stream: the poll answers with DynamoDB's error (200,
// for htmx to show it), never a 500.
func TestStream_PollErrors(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{StreamShards: 1})
	stTable(e, "NEW_IMAGE")
	arn := e.api("DescribeTable", `{"TableName":"Orders"}`)["Table"].(map[string]any)["LatestStreamArn"].(string)
	tests := []struct {
		name, query, want string
		polls             bool
	}{
		{"not an ARN", "arn=nope", "ValidationException", false},
		{"no such stream", "arn=" + url.QueryEscape(strings.Replace(arn, "Orders", "Nope", 1)), "ResourceNotFoundException", false},
		{"garbage positions", "arn=" + url.QueryEscape(arn) + "&pos=" + url.QueryEscape("x,:,a:b:c,,shardId-1:zz") + "&n=-4", "No records yet", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := e.get("/console/tables/Orders/stream/records?" + tc.query)
			if code != http.StatusOK || !strings.Contains(body, tc.want) {
				t.Errorf("%d, want %s in\n%s", code, tc.want, body)
			}
			if got := pollURL.MatchString(body); got != tc.polls {
				t.Errorf("keeps polling: %v, want %v", got, tc.polls)
			}
		})
	}
}

// Shard lineage: several shards at once (StreamShards), and a rollover
// that closes a shard and opens its child.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_Shard.html
// (ParentShardId; SequenceNumberRange.EndingSequenceNumber of a closed shard).
func TestStream_Lineage(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	e := newEnv(t, console.Options{}, engine.Options{Now: clock, StreamShards: 2, StreamRollover: time.Minute, StreamUpkeep: 5 * time.Millisecond})
	stTable(e, "KEYS_ONLY")
	arn := e.api("DescribeTable", `{"TableName":"Orders"}`)["Table"].(map[string]any)["LatestStreamArn"].(string)
	shards := func() []any {
		_, out := e.srv.Invoke(t.Context(), "DynamoDBStreams_20120810.DescribeStream", []byte(`{"StreamArn":"`+arn+`"}`))
		var d struct{ StreamDescription struct{ Shards []any } }
		json.Unmarshal(out, &d)
		return d.StreamDescription.Shards
	}
	_, body := e.get("/console/tables/Orders/stream")
	if n := strings.Count(body, `<li class="st-shard"`); n != 2 || strings.Count(body, `st-open">open<`) != 2 || !strings.Contains(body, "Shards <span class=\"muted\">(2)") {
		t.Fatalf("want 2 open shards, got %d:\n%s", n, body)
	}
	// Write to every shard, move the clock past the rollover and wait for
	// the upkeep to roll the shards over.
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		e.api("PutItem", `{"TableName":"Orders","Item":{"id":{"S":"`+id+`"}}}`)
	}
	now.Add(int64(2 * time.Minute))
	deadline := time.Now().Add(10 * time.Second)
	for len(shards()) < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(shards()) < 4 {
		t.Fatalf("no rollover: %v", shards())
	}
	e.api("PutItem", `{"TableName":"Orders","Item":{"id":{"S":"after"}}}`)
	_, body = e.get("/console/tables/Orders/stream")
	var parent = map[string]string{}
	for _, m := range regexp.MustCompile(`data-shard="([^"]+)" data-parent="([^"]*)"`).FindAllStringSubmatch(body, -1) {
		parent[m[1]] = m[2]
	}
	tests := []struct {
		name string
		ok   func() bool
	}{
		{"every shard listed", func() bool { return len(parent) == len(shards()) }},
		{"two closed roots", func() bool { return strings.Count(body, `st-closed">closed<`) >= 2 }},
		{"children under their parents", func() bool {
			order := regexp.MustCompile(`data-shard="([^"]+)"`).FindAllStringSubmatch(body, -1)
			at := map[string]int{}
			for i, m := range order {
				at[m[1]] = i
			}
			children := 0
			for s, p := range parent {
				if p == "" {
					continue
				}
				if _, ok := at[p]; !ok || at[p] > at[s] {
					return false
				}
				children++
			}
			return children >= 2
		}},
		{"a child drawn indented", func() bool { return strings.Contains(body, `style="--depth: 1"`) && strings.Contains(body, "└") }},
		{"records of parents and children, keys only", func() bool {
			return len(stRecords(body)) == 9 && strings.Contains(body, "KEYS_ONLY: the record carries the keys only.") && !strings.Contains(body, "Old image")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok() {
				t.Errorf("not so:\n%s", body)
			}
		})
	}
}

// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_StreamSpecification.html
// (which images a record carries for each StreamViewType).
func TestStream_ViewTypes(t *testing.T) {
	tests := []struct {
		view          string
		hasOld, hasNw bool
		note          string
	}{
		{"KEYS_ONLY", false, false, "the record carries the keys only"},
		{"NEW_IMAGE", false, true, "NEW_IMAGE: each record carries the item as it is after the change"},
		{"OLD_IMAGE", true, false, "No old image: the item is new (OLD_IMAGE)"},
		{"NEW_AND_OLD_IMAGES", true, true, "No new image: the item was deleted (NEW_AND_OLD_IMAGES)"},
	}
	for _, tc := range tests {
		t.Run(tc.view, func(t *testing.T) {
			e := newEnv(t, console.Options{}, engine.Options{StreamShards: 1})
			stTable(e, tc.view)
			stWrites(e, "o1")
			_, body := e.get("/console/tables/Orders/stream")
			if len(stRecords(body)) != 3 {
				t.Fatalf("records %v", stRecords(body))
			}
			if got := strings.Contains(body, `<th scope="col">Old image</th>`); got != tc.hasOld {
				t.Errorf("old image shown %v, want %v", got, tc.hasOld)
			}
			if got := strings.Contains(body, `<th scope="col">New image</th>`); got != tc.hasNw {
				t.Errorf("new image shown %v, want %v", got, tc.hasNw)
			}
			if !strings.Contains(text(body), tc.note) {
				t.Errorf("no %q in\n%s", tc.note, text(body))
			}
		})
	}
}

// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html
// (StreamSpecification; "Table already has an enabled stream" is DynamoDB's ValidationException).
func TestStream_Enable(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{StreamShards: 1})
	stTable(e, "")
	code, body := e.get("/console/tables/Orders/stream")
	if code != http.StatusOK || !strings.Contains(body, "Streams are off for Orders.") || !strings.Contains(body, `action="/console/tables/Orders/stream/enable"`) {
		t.Fatalf("%d\n%s", code, body)
	}
	if strings.Contains(body, "hx-post=") || strings.Contains(body, "Stream ARN") {
		t.Errorf("a table without a stream shows one:\n%s", body)
	}
	// Without the CSRF token nothing changes.
	if code, _ := e.post("/console/tables/Orders/stream/enable", url.Values{"csrf": {"x"}}); code != http.StatusForbidden {
		t.Errorf("without the token: %d", code)
	}
	// What DynamoDB answers a second enable, to compare.
	again := `{"TableName":"Orders","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}}`
	tests := []struct {
		name     string
		form     url.Values
		wantCode int
		want     string
	}{
		{"enable", url.Values{}, http.StatusOK, "ENABLED"},
		{"again: DynamoDB's error", url.Values{"viewtype": {"KEYS_ONLY"}}, http.StatusBadRequest, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" {
				_, out := e.srv.Invoke(t.Context(), "DynamoDB_20120810.UpdateTable", []byte(again))
				var m struct{ Message string }
				json.Unmarshal(out, &m)
				if m.Message == "" {
					t.Fatalf("UpdateTable did not fail: %s", out)
				}
				want = "ValidationException : " + m.Message
			}
			code, body := e.post("/console/tables/Orders/stream/enable", tc.form)
			if code != tc.wantCode || !strings.Contains(text(body), want) {
				t.Errorf("%d, want %d and %q in\n%s", code, tc.wantCode, want, text(body))
			}
		})
	}
	spec := e.api("DescribeTable", `{"TableName":"Orders"}`)["Table"].(map[string]any)["StreamSpecification"]
	if b, _ := json.Marshal(spec); string(b) != `{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"}` {
		t.Errorf("StreamSpecification %s", b)
	}
	// Disabled again, the last stream stays readable below the button.
	e.api("UpdateTable", `{"TableName":"Orders","StreamSpecification":{"StreamEnabled":false}}`)
	_, body = e.get("/console/tables/Orders/stream")
	for _, w := range []string{"Streams are off for Orders.", "Its last stream is below", "Not watching for new records: the stream is DISABLED"} {
		if !strings.Contains(text(body), w) {
			t.Errorf("no %q in\n%s", w, text(body))
		}
	}
}

// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTable.html
// (ResourceNotFoundException).
func TestStream_UnknownTable(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	_, out := e.srv.Invoke(t.Context(), "DynamoDB_20120810.DescribeTable", []byte(`{"TableName":"Nope"}`))
	var m struct{ Message string }
	json.Unmarshal(out, &m)
	for _, path := range []string{"/console/tables/Nope/stream"} {
		code, body := e.get(path)
		if code != http.StatusNotFound || !strings.Contains(text(body), "ResourceNotFoundException : "+m.Message) || !strings.Contains(body, "There is no table Nope.") {
			t.Errorf("%s: %d\n%s", path, code, text(body))
		}
	}
	if code, body := e.post("/console/tables/Nope/stream/enable", nil); code != http.StatusNotFound || !strings.Contains(body, "ResourceNotFoundException") {
		t.Errorf("enable on no table: %d\n%s", code, text(body))
	}
}

// A stream with hundreds of shards (--stream-shards, or --stream-rollover
// after a while) has shard positions past the 16 KB a request line and
// headers may have: the poll sends them in a POST's body, and keeps
// bringing the records.
func TestStream_PollManyShards(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{StreamShards: 600})
	stTable(e, "KEYS_ONLY")
	put := func(from, to int) {
		for i := from; i < to; i++ {
			e.api("PutItem", `{"TableName":"Orders","Item":{"id":{"S":"order-`+strconv.Itoa(i)+`"}}}`)
		}
	}
	put(0, 1500)
	_, body := e.get("/console/tables/Orders/stream")
	p, ok := pollOf(body)
	if !ok {
		t.Fatalf("no poll in\n%.3000s", body)
	}
	tests := []struct {
		name    string
		writes  int
		summary string
	}{
		{"the second 500", 0, "1000 records"},
		{"the last 500", 0, "1500 records"},
		{"nothing new", 0, "1500 records"},
		{"one more, positions past 16 KB", 1, "1501 records"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			put(1500, 1500+tc.writes)
			if tc.writes > 0 {
				if n := len(p.vals.Get("pos")); n <= 16<<10 {
					t.Fatalf("positions are %d bytes, want past 16 KB", n)
				}
				if code, _ := e.get(p.path + "?" + p.vals.Encode()); code != http.StatusBadRequest {
					t.Errorf("as a GET's query: %d, want the server's 400 for a request line past 16 KB", code)
				}
			}
			code, body := e.post(p.path, p.vals)
			if code != http.StatusOK || !strings.Contains(text(body), tc.summary) {
				t.Fatalf("%d, want %q in\n%.2000s", code, tc.summary, text(body))
			}
			if p, ok = pollOf(body); !ok {
				t.Fatalf("the poll stops:\n%.2000s", body)
			}
		})
	}
}
