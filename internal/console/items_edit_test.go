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

// The item editor: view, edit, create, duplicate, delete. PutItem
// replaces the whole item of its key and DeleteItem removes it:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteItem.html

var (
	textarea   = regexp.MustCompile(`(?s)<textarea name="text"[^>]*>(.*?)</textarea>`)
	hiddenMode = regexp.MustCompile(`name="mode" value="([^"]*)"`)
	hiddenKey  = regexp.MustCompile(`name="key" value="([^"]*)"`)
)

// editorText is the editor's text on a page.
func editorText(t *testing.T, body string) string {
	t.Helper()
	m := textarea.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no editor on the page:\n%s", body)
	}
	return html.UnescapeString(m[1])
}

// getRaw is GetItem's Item, each attribute's DynamoDB JSON as text.
func getRaw(t *testing.T, e *env, key string) map[string]string {
	t.Helper()
	status, out := e.srv.Invoke(t.Context(), "DynamoDB_20120810.GetItem", []byte(`{"TableName":"Shelf","Key":`+key+`}`))
	if status != http.StatusOK {
		t.Fatalf("GetItem: %d %s", status, out)
	}
	var resp struct{ Item map[string]json.RawMessage }
	json.Unmarshal(out, &resp)
	if resp.Item == nil {
		return nil
	}
	m := map[string]string{}
	for k, v := range resp.Item {
		m[k] = string(v)
	}
	return m
}

func shelfEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, console.Options{}, engine.Options{})
	e.api("CreateTable", `{"TableName":"Shelf","BillingMode":"PAY_PER_REQUEST",
		"AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"},{"AttributeName":"n","AttributeType":"N"}],
		"KeySchema":[{"AttributeName":"id","KeyType":"HASH"},{"AttributeName":"n","KeyType":"RANGE"}]}`)
	e.api("PutItem", `{"TableName":"Shelf","Item":{"id":{"S":"book"},"n":{"N":"1"},
		"price":{"N":"12345678901234567890.123456789"},"tags":{"SS":["a","b"]},"info":{"M":{"rating":{"N":"7.5"}}}}}`)
	e.api("PutItem", `{"TableName":"Shelf","Item":{"id":{"S":"pen"},"n":{"N":"2"},"price":{"N":"0.000000000000000000000000000000000001"},"color":{"S":"<blue> & \"red\""}}}`)
	return e
}

const bookKey = `{"id":{"S":"book"},"n":{"N":"1"}}`

func editorPath(key string, extra string) string {
	return "/console/tables/Shelf/item?key=" + url.QueryEscape(key) + extra
}

func TestItemEditor_View(t *testing.T) {
	e := shelfEnv(t)
	tests := []struct {
		name, extra string
		want        []string
	}{
		// An item with a set opens in DynamoDB JSON, the exact view.
		{"sets open as DynamoDB JSON", "", []string{`"SS": [`, `"N": "12345678901234567890.123456789"`}},
		{"plain asked for", "&view=plain", []string{`"price": 12345678901234567890.123456789`, `"tags": [`, `"rating": 7.5`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, body := e.get(editorPath(bookKey, tc.extra))
			if code != http.StatusOK {
				t.Fatalf("%d\n%s", code, body)
			}
			text := editorText(t, body)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("the text lacks %q:\n%s", w, text)
				}
			}
			if !strings.Contains(body, "Plain JSON has no set types") && !strings.Contains(body, "DynamoDB JSON: every value") {
				t.Errorf("the page does not say what each view keeps")
			}
		})
	}
	// <, > and & are shown as they are (not \u003c).
	_, body := e.get(editorPath(`{"id":{"S":"pen"},"n":{"N":"2"}}`, ""))
	if text := editorText(t, body); !strings.Contains(text, `"<blue> & \"red\""`) || !strings.Contains(text, `1e-36`) && !strings.Contains(text, "0.000000000000000000000000000000000001") {
		t.Errorf("pen's text:\n%s", text)
	}
}

func TestItemEditor_EditRoundTrip(t *testing.T) {
	tests := []struct {
		name, view string
		edit       func(string) string
		// want are the stored attributes' DynamoDB JSON after the save.
		want map[string]string
	}{
		{"DynamoDB JSON keeps sets and numbers' text", "ddb",
			func(s string) string { return strings.Replace(s, `"7.5"`, `"8.25"`, 1) },
			map[string]string{"price": `{"N":"12345678901234567890.123456789"}`, "tags": `{"SS":["a","b"]}`, "info": `{"M":{"rating":{"N":"8.25"}}}`}},
		// Plain JSON keeps the number's text too, and turns the set into
		// a list (what the page warns of).
		{"plain JSON keeps numbers' text, loses the set", "plain",
			func(s string) string { return strings.Replace(s, `7.5`, `9`, 1) },
			map[string]string{"price": `{"N":"12345678901234567890.123456789"}`, "tags": `{"L":[{"S":"a"},{"S":"b"}]}`, "info": `{"M":{"rating":{"N":"9"}}}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := shelfEnv(t)
			_, body := e.get(editorPath(bookKey, "&view="+tc.view))
			text := editorText(t, body)
			key := html.UnescapeString(hiddenKey.FindStringSubmatch(body)[1])
			code, body := e.post("/console/tables/Shelf/item", url.Values{"mode": {"edit"}, "key": {key}, "view": {tc.view}, "text": {tc.edit(text)}, "action": {"save"}})
			if code != http.StatusOK || !strings.Contains(body, "Saved.") {
				t.Fatalf("save: %d\n%s", code, body)
			}
			if !strings.Contains(body, `PutItem request sent`) {
				t.Errorf("the PutItem request is not shown")
			}
			got := getRaw(t, e, bookKey)
			for k, w := range tc.want {
				if got[k] != w {
					t.Errorf("%s = %s, want %s", k, got[k], w)
				}
			}
		})
	}
}

func TestItemEditor_SwitchView(t *testing.T) {
	e := shelfEnv(t)
	plain := `{"id": "x", "n": 3, "big": 1.000000000000000000000000000000000001, "l": [1, "a"]}`
	code, body := e.post("/console/tables/Shelf/item", url.Values{"mode": {"new"}, "view": {"plain"}, "text": {plain}, "action": {"view"}, "to": {"ddb"}})
	if code != http.StatusOK {
		t.Fatalf("%d\n%s", code, body)
	}
	var item map[string]json.RawMessage
	if err := json.Unmarshal([]byte(editorText(t, body)), &item); err != nil {
		t.Fatal(err)
	}
	if string(item["big"]) != `{"N":"1.000000000000000000000000000000000001"}` && !strings.Contains(string(item["big"]), `"1.000000000000000000000000000000000001"`) {
		t.Errorf("big = %s", item["big"])
	}
	if !strings.Contains(body, `name="view" value="ddb"`) {
		t.Errorf("the view is not ddb now")
	}
}

func TestItemEditor_CreateDuplicateDelete(t *testing.T) {
	e := shelfEnv(t)
	// A new item: the editor holds the key attributes, typed.
	_, body := e.get("/console/tables/Shelf/item")
	if text := editorText(t, body); !strings.Contains(text, `"id": ""`) || !strings.Contains(text, `"n": 0`) {
		t.Errorf("the new item's text:\n%s", text)
	}
	save := func(mode, key, view, text string) (int, string) {
		return e.post("/console/tables/Shelf/item", url.Values{"mode": {mode}, "key": {key}, "view": {view}, "text": {text}, "action": {"save"}})
	}
	code, body := save("new", "", "plain", `{"id": "cup", "n": 7, "size": "L"}`)
	if code != http.StatusOK || !strings.Contains(body, "Created the item") {
		t.Fatalf("create: %d\n%s", code, body)
	}
	if got := getRaw(t, e, `{"id":{"S":"cup"},"n":{"N":"7"}}`); got["size"] != `{"S":"L"}` {
		t.Errorf("the new item: %v", got)
	}
	// Creating it again does not overwrite it: DynamoDB's
	// ConditionalCheckFailedException (API reference, PutItem).
	code, body = save("new", "", "plain", `{"id": "cup", "n": 7, "size": "XL"}`)
	if code != http.StatusBadRequest || !strings.Contains(body, "ConditionalCheckFailedException") {
		t.Errorf("create over an item: %d\n%s", code, body)
	}
	if got := getRaw(t, e, `{"id":{"S":"cup"},"n":{"N":"7"}}`); got["size"] != `{"S":"L"}` {
		t.Errorf("the item was overwritten: %v", got)
	}
	// Duplicate: the editor prefilled, as a new item.
	_, body = e.get(editorPath(bookKey, "&duplicate=1&view=ddb"))
	if m := hiddenMode.FindStringSubmatch(body); m == nil || m[1] != "duplicate" {
		t.Errorf("duplicate's mode %v", m)
	}
	if m := hiddenKey.FindStringSubmatch(body); m == nil || m[1] != "" {
		t.Errorf("duplicate keeps a key %v", m)
	}
	dup := strings.Replace(editorText(t, body), `"N": "1"`, `"N": "11"`, 1)
	if code, body := save("duplicate", "", "ddb", dup); code != http.StatusOK {
		t.Fatalf("duplicate: %d\n%s", code, body)
	}
	orig, copy := getRaw(t, e, bookKey), getRaw(t, e, `{"id":{"S":"book"},"n":{"N":"11"}}`)
	delete(orig, "n")
	delete(copy, "n")
	if orig == nil || !reflect.DeepEqual(orig, copy) {
		t.Errorf("the copy %v is not the original %v", copy, orig)
	}
	// Editing the key makes a new item, and says so.
	code, body = save("edit", bookKey, "plain", `{"id": "book", "n": 12}`)
	if code != http.StatusOK || !strings.Contains(body, "The key changed, so PutItem wrote a new item") {
		t.Errorf("key change: %d\n%s", code, body)
	}
	if getRaw(t, e, bookKey) == nil || getRaw(t, e, `{"id":{"S":"book"},"n":{"N":"12"}}`) == nil {
		t.Errorf("the old or the new item is missing")
	}
	// Delete asks first, then deletes.
	cupKey := `{"id":{"S":"cup"},"n":{"N":"7"}}`
	form := url.Values{"mode": {"edit"}, "key": {cupKey}, "view": {"plain"}, "text": {`{"id":"cup","n":7}`}, "action": {"delete"}}
	code, body = e.post("/console/tables/Shelf/item", form)
	if code != http.StatusOK || !strings.Contains(body, "Yes, delete it") || getRaw(t, e, cupKey) == nil {
		t.Fatalf("delete's question: %d", code)
	}
	// The question is the first thing in the form, its button focused
	// (not the text, below which it used to be out of sight).
	if i, j := strings.Index(body, `id="i-delete-confirm"`), strings.Index(body, `<textarea`); i < 0 || j < i {
		t.Error("the delete question is not above the text")
	}
	if !strings.Contains(body, `id="i-delete-confirm" autofocus`) || regexp.MustCompile(`<textarea[^>]*autofocus`).MatchString(body) {
		t.Error("the delete question's button does not have the focus")
	}
	form.Set("action", "delete-confirm")
	code, body = e.post("/console/tables/Shelf/item", form)
	if code != http.StatusOK || !strings.Contains(body, "Deleted the item id = cup, n = 7 from Shelf.") {
		t.Fatalf("delete: %d\n%s", code, body)
	}
	if got := getRaw(t, e, cupKey); got != nil {
		t.Errorf("the item is still there: %v", got)
	}
	// The table's page says so, with DeleteItem's response: the item's
	// last version (ReturnValues ALL_OLD).
	if !strings.Contains(body, `<h1>Shelf</h1>`) || !strings.Contains(body, "DeleteItem request and response") || !strings.Contains(html.UnescapeString(body), `"size": {`) {
		t.Errorf("after the delete:\n%s", body)
	}
}

// TestItemEditor_PostRedirectGet: a save, create, duplicate or delete
// that DynamoDB takes answers 303 to the item's page (the table's after
// a delete) with its confirmation shown once; reloading that page reads,
// it does not put the item again. A refusal is shown in place.
func TestItemEditor_PostRedirectGet(t *testing.T) {
	e := shelfEnv(t)
	noRedirect := *e.client
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	post := func(form url.Values) *http.Response {
		t.Helper()
		form.Set("csrf", e.csrf())
		res, err := noRedirect.PostForm(e.ts.URL+"/console/tables/Shelf/item", form)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	penKey := `{"id":{"S":"pen"},"n":{"N":"2"}}`
	tests := []struct {
		name   string
		form   url.Values
		to     string // the redirect's path and key
		notice string
	}{
		{"save", url.Values{"mode": {"edit"}, "key": {penKey}, "view": {"plain"}, "text": {`{"id": "pen", "n": 2, "ink": "blue"}`}},
			"/console/tables/Shelf/item?key=" + url.QueryEscape(penKey), "Saved."},
		{"create", url.Values{"mode": {"new"}, "view": {"ddb"}, "text": {`{"id": {"S": "mug"}, "n": {"N": "3"}}`}},
			"/console/tables/Shelf/item?key=" + url.QueryEscape(`{"id":{"S":"mug"},"n":{"N":"3"}}`), "Created the item id = mug, n = 3."},
		{"duplicate", url.Values{"mode": {"duplicate"}, "view": {"plain"}, "text": {`{"id": "mug", "n": 4}`}},
			"/console/tables/Shelf/item?key=" + url.QueryEscape(`{"id":{"S":"mug"},"n":{"N":"4"}}`), "Created the item id = mug, n = 4."},
		{"delete", url.Values{"mode": {"edit"}, "key": {`{"id":{"S":"mug"},"n":{"N":"4"}}`}, "view": {"plain"}, "action": {"delete-confirm"}},
			"/console/tables/Shelf?", "Deleted the item id = mug, n = 4 from Shelf."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := post(tc.form)
			loc := res.Header.Get("Location")
			if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, tc.to) || !strings.Contains(loc, "flash=") {
				t.Fatalf("%d, Location %q, want a 303 to %s with a flash", res.StatusCode, loc, tc.to)
			}
			_, body := e.get(loc)
			if !strings.Contains(text(body), tc.notice) {
				t.Errorf("the page after the redirect lacks %q:\n%s", tc.notice, text(body))
			}
			// Shown once: a reload reads, and says nothing was done.
			e.api("PutItem", `{"TableName":"Shelf","Item":{"id":{"S":"pen"},"n":{"N":"2"},"ink":{"S":"red"}}}`)
			_, body = e.get(loc)
			if strings.Contains(text(body), tc.notice) {
				t.Errorf("the confirmation is shown again on a reload")
			}
			if got := getRaw(t, e, penKey); got["ink"] != `{"S":"red"}` {
				t.Errorf("the reload wrote: %v", got)
			}
		})
	}
	// A refusal stays on the page, the text kept.
	res := post(url.Values{"mode": {"new"}, "view": {"plain"}, "text": {`{"id": "pen", "n": 2}`}})
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("a create over an item: %d, want 400 in place", res.StatusCode)
	}
}

func TestItemEditor_Errors(t *testing.T) {
	e := shelfEnv(t)
	tests := []struct {
		name   string
		method string
		path   string
		form   url.Values
		code   int
		want   []string
	}{
		{"JSON that does not parse", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"plain"}, "text": {"{\"id\": \"a\",\n \"n\": }"}},
			http.StatusBadRequest, []string{"The text is not an item in plain JSON", "line 2", `{&#34;id&#34;: &#34;a&#34;,`}},
		{"DynamoDB JSON that is not", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"ddb"}, "text": {`{"id": "a"}`}},
			http.StatusBadRequest, []string{"The text is not an item in DynamoDB JSON", `attribute &#34;id&#34;`}},
		{"not an object", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"plain"}, "text": {`[1]`}},
			http.StatusBadRequest, []string{"want a JSON object"}},
		{"empty", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"plain"}, "text": {`  `}},
			http.StatusBadRequest, []string{"The item is empty"}},
		// DynamoDB's own validation, as it words it.
		{"no key", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"plain"}, "text": {`{"id": "a"}`}},
			http.StatusBadRequest, []string{"ValidationException"}},
		{"unknown table", "GET", "/console/tables/Nope/item?key=%7B%7D", nil,
			http.StatusNotFound, []string{"ResourceNotFoundException"}},
		{"bad key parameter", "GET", "/console/tables/Shelf/item?key=nope", nil,
			http.StatusBadRequest, []string{"The key parameter is not an item key"}},
		{"no such item", "GET", editorPath(`{"id":{"S":"zzz"},"n":{"N":"1"}}`, ""), nil,
			http.StatusNotFound, []string{"GetItem found no item"}},
		{"delete without a key", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"plain"}, "text": {`{}`}, "action": {"delete-confirm"}},
			http.StatusBadRequest, []string{"There is no saved item to delete"}},
		// What follows the object is not dropped unsaid (json.Decoder.More
		// passes a stray } or ]); none of these items is written.
		{"a stray brace after the item", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"plain"}, "text": {`{"id": "stray", "n": 1}}`}},
			http.StatusBadRequest, []string{"The text is not an item in plain JSON: not one JSON object: text follows it."}},
		{"a stray bracket after the item", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"ddb"}, "text": {`{"id": {"S": "stray"}, "n": {"N": "2"}}]`}},
			http.StatusBadRequest, []string{"The text is not an item in DynamoDB JSON: text follows the JSON object."}},
		{"a stray brace after the key parameter", "GET", editorPath(bookKey+"}", ""), nil,
			http.StatusBadRequest, []string{"The key parameter is not an item key in DynamoDB JSON: text follows the JSON object"}},
		// A name given twice would lose one of its values unsaid.
		{"an attribute twice", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"plain"}, "text": {`{"id": "stray", "n": 3, "size": "L", "size": "XL"}`}},
			http.StatusBadRequest, []string{"The name &#34;size&#34; appears twice in the item: JSON would keep the last silently, so keep one."}},
		{"a map member twice", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"plain"}, "text": {`{"id": "stray", "n": 4, "l": [1, {"a": {"b": 1, "b": 2}}]}`}},
			http.StatusBadRequest, []string{"The name &#34;b&#34; appears twice in attribute l[1].a:"}},
		{"a type twice", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"ddb"}, "text": {`{"id": {"S": "stray"}, "n": {"N": "5", "N": "6"}}`}},
			http.StatusBadRequest, []string{"The name &#34;N&#34; appears twice in attribute n:"}},
		// The words of a value of the wrong JSON type are the console's,
		// not Go's.
		{"an S that is a number", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"ddb"}, "text": {`{"id": {"S": 1}, "n": {"N": "7"}}`}},
			http.StatusBadRequest, []string{"attribute &#34;id&#34;: S wants a string, not a JSON number"}},
		{"an attribute that is no object", "POST", "/console/tables/Shelf/item",
			url.Values{"mode": {"new"}, "view": {"ddb"}, "text": {`{"id": "stray", "n": {"N": "8"}}`}},
			http.StatusBadRequest, []string{"attribute &#34;id&#34;: an AttributeValue is a JSON object, not a JSON string"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var code int
			var body string
			if tc.method == "GET" {
				code, body = e.get(tc.path)
			} else {
				code, body = e.post(tc.path, tc.form)
			}
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
	for n := 1; n <= 8; n++ {
		if item := getRaw(t, e, fmt.Sprintf(`{"id":{"S":"stray"},"n":{"N":"%d"}}`, n)); item != nil {
			t.Errorf("an item was written from a refused text: %v", item)
		}
	}
}

// TestItemEditor_EditKeyOntoAnother: editing an item's key to the key of
// another item wrote over that item, while the page said a new item was
// written. A changed key is put only if it is free, as a new item is;
// the same key is put as it is, however its JSON escapes it.
func TestItemEditor_EditKeyOntoAnother(t *testing.T) {
	const ampKey = `{"id":{"S":"<a & b>"},"n":{"N":"1"}}`
	tests := []struct {
		name, key, view, text string
		code                  int
		want                  string
	}{
		{"onto another item", bookKey, "plain", `{"id": "pen", "n": 2, "color": "book's"}`, http.StatusBadRequest, "ConditionalCheckFailedException"},
		{"onto a free key", bookKey, "plain", `{"id": "pen", "n": 3, "color": "book's"}`, http.StatusOK, "The key changed, so PutItem wrote a new item"},
		{"the same key", bookKey, "plain", `{"id": "book", "n": 1, "color": "green"}`, http.StatusOK, "Saved."},
		// The key parameter has <, > and & as they are, the plain view's
		// item has them as \u003c...: the same key all the same.
		{"the same key with <, > and &", ampKey, "plain", `{"id": "<a & b>", "n": 1, "color": "green"}`, http.StatusOK, "Saved."},
		{"the same key, escaped", ampKey, "ddb", `{"id": {"S": "\u003ca \u0026 b\u003e"}, "n": {"N": "1"}}`, http.StatusOK, "Saved."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := shelfEnv(t)
			e.api("PutItem", `{"TableName":"Shelf","Item":`+ampKey+`}`)
			code, body := e.post("/console/tables/Shelf/item", url.Values{"mode": {"edit"}, "key": {tc.key}, "view": {tc.view}, "text": {tc.text}, "action": {"save"}})
			if code != tc.code || !strings.Contains(body, tc.want) {
				t.Errorf("%d, want %d and %q:\n%s", code, tc.code, tc.want, text(body))
			}
			if got, want := getRaw(t, e, `{"id":{"S":"pen"},"n":{"N":"2"}}`)["color"], `{"S":"<blue> & \"red\""}`; got != want {
				t.Errorf("pen's color is %s, want %s", got, want)
			}
			if getRaw(t, e, tc.key) == nil {
				t.Error("the edited item is gone")
			}
		})
	}
}
