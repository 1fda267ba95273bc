package console_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// A filtered page reads on until it is full (items_fill.go). DynamoDB
// applies a FilterExpression after the read and Limit counts the items
// read (developer guide, Scan.html#Scan.FilterExpression, #Scan.Limit;
// Query.FilterExpression.html), so one request of a rare filter finds
// next to nothing; the page sends the same request with ExclusiveStartKey
// the LastEvaluatedKey of the one before, and sums Count, ScannedCount
// and the consumed capacity.

var (
	requestsStat = regexp.MustCompile(`id="r-requests"[^>]*><strong>(\d+)</strong> requests`)
	capacityUnit = regexp.MustCompile(`id="r-capacity">Consumed <strong>([^<]*)</strong>`)
)

func TestTablePage_FilterFillsThePage(t *testing.T) {
	e := filmsEnv(t)
	tests := []struct {
		name, query string
		limit       int
		// matches are the items the filter selects in all.
		matches int
		// one: one request a page (one=1), as DynamoDB's Limit alone.
		one bool
	}{
		// rank 110..119 of 120 items: 10 matches.
		{"scan, a rare filter", "op=scan&fa=rank&fo=%3E%3D&ft=N&fv=110", 10, 10, false},
		{"scan, every other item", "op=scan&fa=status&fo=%3D&ft=S&fv=odd", 25, 60, false},
		// Year 2001 is ranks 1, 5, ... 117: 101..117 are 5.
		{"query, a rare filter", "op=query&pk=2001&fa=rank&fo=%3E%3D&ft=N&fv=100", 2, 5, false},
		{"one request a page", "op=scan&fa=rank&fo=%3E%3D&ft=N&fv=110&one=1", 10, 10, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := fmt.Sprintf("/console/tables/Films?%s&limit=%d", tc.query, tc.limit)
			seen := map[string]bool{}
			var pages [][]string
			var urls []string
			for u != "" {
				code, body := e.get(u)
				if code != http.StatusOK {
					t.Fatalf("GET %s: %d\n%s", u, code, body)
				}
				keys := shownKeys(t, body)
				for _, k := range keys {
					if seen[k] {
						t.Errorf("%s shown twice", k)
					}
					seen[k] = true
				}
				next := link(t, nextLink, body)
				if !tc.one && next != "" && len(keys) < tc.limit {
					t.Errorf("page %d holds %d items, less than the page size %d, and is not the last", len(pages)+1, len(keys), tc.limit)
				}
				if n := checkSums(t, e, body, tc.one, len(keys)); len(pages) == 0 && !tc.one && n < 2 {
					t.Errorf("page 1 took %d request: the case does not test reading on", n)
				}
				pages, urls = append(pages, keys), append(urls, u)
				u = next
			}
			if len(seen) != tc.matches {
				t.Errorf("%d items in all, want %d", len(seen), tc.matches)
			}
			if tc.one && len(pages) <= 1 {
				t.Errorf("one request a page: %d pages", len(pages))
			}
			// Back from each page shows the page before.
			for i := len(pages) - 1; i >= 1; i-- {
				_, body := e.get(urls[i])
				_, body = e.get(link(t, backLink, body))
				if got := shownKeys(t, body); !reflect.DeepEqual(got, pages[i-1]) {
					t.Errorf("Back from page %d: %v, want %v", i+1, got, pages[i-1])
				}
			}
		})
	}
}

// checkSums sends the requests the page says it sent (its first, then
// with each LastEvaluatedKey, as long as the page would) and checks that
// the page shows their sums, and its items are theirs; it returns how
// many requests those are.
func checkSums(t *testing.T, e *env, body string, one bool, items int) int {
	t.Helper()
	req := shownRequest(t, body)
	op := "Scan"
	if req["KeyConditionExpression"] != nil {
		op = "Query"
	}
	limit := int(req["Limit"].(float64))
	count, scanned, requests, units := 0, 0, 0, 0.0
	for {
		raw, _ := json.Marshal(req)
		out := e.api(op, string(raw))
		requests++
		count += int(out["Count"].(float64))
		scanned += int(out["ScannedCount"].(float64))
		units += out["ConsumedCapacity"].(map[string]any)["CapacityUnits"].(float64)
		lek, _ := out["LastEvaluatedKey"].(map[string]any)
		if one || lek == nil || count >= limit {
			break
		}
		req["ExclusiveStartKey"] = lek
	}
	if count != items {
		t.Errorf("the page shows %d items, its requests return %d", items, count)
	}
	if c := countStat.FindStringSubmatch(body); c == nil || c[1] != fmt.Sprint(count) {
		t.Errorf("Count shown %v, want %d", c, count)
	}
	if s := scanStat.FindStringSubmatch(body); s == nil || s[1] != fmt.Sprint(scanned) {
		t.Errorf("ScannedCount shown %v, want %d", s, scanned)
	}
	if c := capacityUnit.FindStringSubmatch(body); c == nil || c[1] != strings.TrimSuffix(fmt.Sprintf("%.1f", units), ".0") {
		t.Errorf("capacity shown %v, want %.1f", c, units)
	}
	r := requestsStat.FindStringSubmatch(body)
	switch {
	case requests == 1 && r != nil:
		t.Errorf("one request, the page says %s", r[0])
	case requests > 1 && (r == nil || r[1] != fmt.Sprint(requests)):
		t.Errorf("%d requests, the page says %v", requests, r)
	case requests > 1 && strings.Count(body, "<tr><td>") < requests-1:
		t.Errorf("the page does not list the following requests' ExclusiveStartKey")
	}
	return requests
}

// A filter nothing matches reads at most 100 requests a page, says so,
// and Next reads on from where it stopped.
func TestTablePage_FilterFillBound(t *testing.T) {
	e := filmsEnv(t)
	code, body := e.get("/console/tables/Films?fa=rank&fo=%3E&ft=N&fv=1000&limit=1")
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	if s := scanStat.FindStringSubmatch(body); s == nil || s[1] != "100" {
		t.Errorf("ScannedCount %v, want 100 (100 requests of Limit 1)", s)
	}
	if !strings.Contains(body, `id="r-stopped"`) || !strings.Contains(text(body), "stopped reading after 100 requests") {
		t.Errorf("the page does not say it stopped:\n%s", text(body))
	}
	if !strings.Contains(text(body), "0 items (Count)") {
		t.Errorf("the count: %s", text(body))
	}
	next := link(t, nextLink, body)
	if next == "" {
		t.Fatal("no Next after the bound")
	}
	_, body = e.get(next)
	if s := scanStat.FindStringSubmatch(body); s == nil || s[1] != "20" {
		t.Errorf("page 2's ScannedCount %v, want the 20 items left", s)
	}
	if strings.Contains(body, `id="r-stopped"`) || link(t, nextLink, body) != "" {
		t.Error("page 2 reached the table's end: no bound, no Next")
	}
	if !strings.Contains(body, "No items on this page match.") {
		t.Error("the empty page says nothing")
	}
	// 1 item, not "1 items".
	_, body = e.get("/console/tables/Films?fa=rank&fo=%3D&ft=N&fv=7&limit=200")
	if !strings.Contains(text(body), "1 item (Count)") {
		t.Errorf("one item: %s", text(body))
	}
}
