package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// The item editor (/console/tables/NAME/item): one item as plain JSON or
// DynamoDB JSON, saved with PutItem, deleted with DeleteItem.
//
//	GET  item?key=KEY              the item of KEY (DynamoDB JSON of its key attributes)
//	GET  item?key=KEY&duplicate=1  a new item, prefilled from the item of KEY
//	GET  item                      a new item, with the key attributes
//	POST item                      action: save (PutItem), view (show the text in the other view),
//	                               delete (asks), delete-confirm (DeleteItem)
//
// A save, create, duplicate or delete that DynamoDB takes redirects (303:
// POST, redirect, GET) to the item's page (?key=, the table's page after
// a delete) with a flash (tables_flash.go) saying what happened, shown
// once, so that reloading the page reads the item again rather than
// sending the PutItem again; a refusal is shown in place, the text kept.
//
// A new item (new, duplicate) is put with ConditionExpression
// attribute_not_exists(PK), so that it cannot overwrite an item by
// mistake; an edited item is put as it is, and if its key was changed
// the PutItem writes another item (the old one stays), which the page
// says: with the same condition, so that the edit cannot overwrite the
// item that has the new key.

// itemPageData is the editor's data.
type itemPageData struct {
	Header itemsHeader
	// Mode is edit, new or duplicate.
	Mode string
	// Key is the edited item's key (DynamoDB JSON); "" for a new item.
	Key string
	// KeyLabel is the key for reading: year = 1985, title = Brazil.
	KeyLabel string
	// View is plain or ddb; Text the item in that view.
	View, Text string
	// Lossy says the item has a set or a binary value, which the plain
	// view loses.
	Lossy bool
	// Notice is what happened (saved, deleted, the key changed).
	Notice string
	// Err is DynamoDB's answer; InputErr the console's complaint about
	// the text (JSON that does not parse).
	Err      *APIError
	InputErr string
	Call     *Call
	// ConfirmDelete asks before deleting.
	ConfirmDelete bool
	NotFound      *APIError
}

func (c *Console) itemEditorPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	t, err := c.describe(r, name)
	if err != nil {
		c.itemsTableError(w, r, name, err)
		return
	}
	q := r.URL.Query()
	d := itemPageData{Header: newItemsHeader(t, "item"), Mode: "new", View: "plain"}
	if q.Get("view") == "ddb" {
		d.View = "ddb"
	}
	keyText := q.Get("key")
	if keyText == "" {
		// A new item: its key attributes, empty.
		item := Item{}
		for _, n := range []string{d.Header.Keys.PK, d.Header.Keys.SK} {
			if n != "" {
				item[n] = itemEmptyValue(d.Header.Keys.Types[n])
			}
		}
		d.setItem(item, q.Has("view"))
		c.render(w, r, http.StatusOK, "item", c.page(r, "New item in "+name, "tables", d))
		return
	}
	key, err := itemParseDynamoDB(keyText)
	if err != nil {
		d.InputErr = "The key parameter is not an item key in DynamoDB JSON: " + err.Error()
		c.render(w, r, http.StatusBadRequest, "item", c.page(r, name, "tables", d))
		return
	}
	item, err := c.itemGet(r, name, key)
	if err != nil {
		d.Err = itemsAPIError(err)
		c.render(w, r, itemsStatusOf(d.Err), "item", c.page(r, name, "tables", d))
		return
	}
	if item == nil {
		d.NotFound = &APIError{Type: "No item", Message: "GetItem found no item with the key " + itemsCompactJSON(key) + " (it may have been deleted)."}
		c.render(w, r, http.StatusNotFound, "item", c.page(r, name, "tables", d))
		return
	}
	d.Mode, d.Key = "edit", itemsCompactJSON(key)
	if fl := c.takeFlash(r); fl != nil {
		d.Notice = fl.OK
		if len(fl.Calls) > 0 {
			d.Call = &fl.Calls[0]
		}
	}
	if q.Get("duplicate") == "1" {
		d.Mode, d.Key = "duplicate", ""
	}
	d.setItem(item, q.Has("view"))
	d.KeyLabel = itemKeyLabel(itemsCompactJSON(key), d.Header.Keys)
	c.render(w, r, http.StatusOK, "item", c.page(r, name+": item", "tables", d))
}

// TextRows is the editor's height: the text's lines and a few more,
// between 8 and 30.
func (d itemPageData) TextRows() int {
	return min(max(strings.Count(d.Text, "\n")+3, 8), 30)
}

// setItem sets the text of item in d's view (the DynamoDB JSON view when
// the item has sets or binaries, unless the view was asked for).
func (d *itemPageData) setItem(item Item, viewGiven bool) {
	d.Lossy = itemLossy(item)
	if d.Lossy && !viewGiven {
		d.View = "ddb"
	}
	d.Text = itemText(item, d.View)
}

// itemGet returns the item of key (nil: none), read as a client would.
func (c *Console) itemGet(r *http.Request, table string, key Item) (Item, error) {
	var out struct{ Item Item }
	err := c.call(r.Context(), "GetItem", map[string]any{"TableName": table, "Key": key}, &out)
	return out.Item, err
}

func (c *Console) itemEditorPost(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	t, err := c.describe(r, name)
	if err != nil {
		c.itemsTableError(w, r, name, err)
		return
	}
	d := itemPageData{Header: newItemsHeader(t, "item"), Mode: r.PostFormValue("mode"), Key: r.PostFormValue("key"),
		View: r.PostFormValue("view"), Text: r.PostFormValue("text")}
	if d.Mode != "edit" && d.Mode != "duplicate" {
		d.Mode = "new"
	}
	if d.View != "ddb" {
		d.View = "plain"
	}
	if d.Mode != "edit" {
		d.Key = ""
	}
	status := http.StatusOK
	switch r.PostFormValue("action") {
	case "view":
		status = d.switchView(r.PostFormValue("to"))
	case "cancel":
	case "delete":
		d.ConfirmDelete = true
	case "delete-confirm":
		if status = c.itemDelete(r, &d); status == http.StatusOK {
			c.itemRedirect(w, r, "/console/tables/"+url.PathEscape(name), &d)
			return
		}
	default:
		if status = c.itemSave(r, &d); status == http.StatusOK {
			c.itemRedirect(w, r, itemURL(name, d.Key, d.View), &d)
			return
		}
	}
	d.KeyLabel = itemKeyLabel(d.Key, d.Header.Keys)
	c.render(w, r, status, "item", c.page(r, name+": item", "tables", d))
}

// itemURL is the editor's page of the item of key (compact DynamoDB
// JSON) of table, in view.
func itemURL(table, key, view string) string {
	return "/console/tables/" + url.PathEscape(table) + "/item?" + url.Values{"key": {key}, "view": {view}}.Encode()
}

// itemRedirect redirects (303) to next with d's notice and call as a
// flash.
func (c *Console) itemRedirect(w http.ResponseWriter, r *http.Request, next string, d *itemPageData) {
	fl := &flash{OK: d.Notice}
	if d.Call != nil {
		fl.Calls = []Call{*d.Call}
	}
	sep := "?"
	if strings.Contains(next, "?") {
		sep = "&"
	}
	http.Redirect(w, r, next+sep+"flash="+url.QueryEscape(c.putFlash(r, fl)), http.StatusSeeOther)
}

// itemKeyLabel is key (compact DynamoDB JSON) for reading.
func itemKeyLabel(key string, k itemsKeys) string {
	item, err := itemParseDynamoDB(key)
	if key == "" || err != nil {
		return key
	}
	var parts []string
	for _, n := range []string{k.PK, k.SK} {
		if v, ok := item[n]; ok && n != "" {
			parts = append(parts, n+" = "+CellOf(v).Text)
		}
	}
	return strings.Join(parts, ", ")
}

// switchView shows the text in view to.
func (d *itemPageData) switchView(to string) int {
	if to != "ddb" {
		to = "plain"
	}
	item, err := itemParseText(d.Text, d.View)
	if err != nil {
		d.InputErr = itemsSentence(err)
		return http.StatusBadRequest
	}
	d.View = to
	d.Lossy = itemLossy(item)
	d.Text = itemText(item, to)
	return http.StatusOK
}

// itemSave puts the item of the editor's text.
func (c *Console) itemSave(r *http.Request, d *itemPageData) int {
	item, err := itemParseText(d.Text, d.View)
	if err != nil {
		d.InputErr = itemsSentence(err)
		return http.StatusBadRequest
	}
	k := d.Header.Keys
	req := map[string]any{"TableName": d.Header.Name, "Item": item, "ReturnConsumedCapacity": "TOTAL"}
	newKey, _ := itemKeyOf(item, k)
	if d.Mode != "edit" || !itemSameKey(d.Key, newKey) {
		req["ConditionExpression"] = "attribute_not_exists(#pk)"
		req["ExpressionAttributeNames"] = map[string]string{"#pk": k.PK}
	}
	call, err := c.callShown(r.Context(), "DynamoDB_20120810.PutItem", itemsBody(req), nil)
	d.Call = &call
	if err != nil {
		d.Err = itemsAPIError(err)
		return itemsStatusOf(d.Err)
	}
	keyText := itemsCompactJSON(newKey)
	switch {
	case d.Mode != "edit":
		d.Notice = "Created the item " + itemKeyLabel(keyText, k) + "."
	case d.Key != "" && !itemSameKey(d.Key, newKey):
		d.Notice = "The key changed, so PutItem wrote a new item (" + itemKeyLabel(keyText, k) + "); the item with the old key (" + itemKeyLabel(d.Key, k) + ") is still there: delete it if you meant to rename the item."
	default:
		d.Notice = "Saved."
	}
	// The item's page (the redirect) shows it as DynamoDB now holds it.
	d.Mode, d.Key = "edit", keyText
	return http.StatusOK
}

// itemDelete deletes the edited item; the table's page (the redirect)
// says so, with DeleteItem's response, which holds the item's last
// version (ReturnValues ALL_OLD).
func (c *Console) itemDelete(r *http.Request, d *itemPageData) int {
	key, err := itemParseDynamoDB(d.Key)
	if d.Key == "" || err != nil {
		d.InputErr = "There is no saved item to delete (the editor holds a new item)."
		return http.StatusBadRequest
	}
	req := map[string]any{"TableName": d.Header.Name, "Key": key, "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "TOTAL"}
	var out struct{ Attributes Item }
	call, err := c.callShown(r.Context(), "DynamoDB_20120810.DeleteItem", itemsBody(req), &out)
	d.Call = &call
	if err != nil {
		d.Err = itemsAPIError(err)
		return itemsStatusOf(d.Err)
	}
	if out.Attributes == nil {
		d.Notice = "DeleteItem found no item with the key " + itemKeyLabel(d.Key, d.Header.Keys) + " (deleted already)."
	} else {
		d.Notice = "Deleted the item " + itemKeyLabel(d.Key, d.Header.Keys) + " from " + d.Header.Name + ". Its last version is in DeleteItem's response below (ReturnValues ALL_OLD)."
	}
	return http.StatusOK
}

func itemsStatusOf(e *APIError) int {
	if e.Status == 0 {
		return http.StatusBadRequest
	}
	return e.Status
}

// itemParseText reads the editor's text in view (plain or ddb) as an
// item; the error says what is wrong, for the user.
func itemParseText(text, view string) (Item, error) {
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("the item is empty: write a JSON object, such as {\"pk\": \"a\"}")
	}
	if name, at := itemsDuplicateName(text); name != "" {
		return nil, fmt.Errorf("the name %q appears twice in %s: JSON would keep the last silently, so keep one", name, at)
	}
	if view == "ddb" {
		item, err := itemParseDynamoDB(text)
		if err != nil {
			return nil, fmt.Errorf("the text is not an item in DynamoDB JSON: %v", err)
		}
		return item, nil
	}
	var v any
	if err := json.NewDecoder(strings.NewReader(text)).Decode(&v); err != nil {
		return nil, fmt.Errorf("the text is not an item in plain JSON: %v", itemsJSONError(text, err))
	}
	item, err := ItemFromPlain([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("the text is not an item in plain JSON: %v", err)
	}
	return item, nil
}

// itemsDuplicateName returns the first member name that a JSON object
// of text has twice, and where ("the item", "attribute a.b[0]"); "" when
// none does, or when text is not JSON (its parser says what is wrong).
func itemsDuplicateName(text string) (name, at string) {
	type level struct {
		names map[string]bool // an object's names; nil for an array
		key   bool            // an object's next token is a name
		path  string
		n     int // an array's elements so far
	}
	dec := json.NewDecoder(strings.NewReader(text))
	var stack []*level
	member := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", ""
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if s, ok := tok.(string); ok && top != nil && top.names != nil && top.key {
			if top.names[s] {
				if top.path == "" {
					return s, "the item"
				}
				return s, "attribute " + top.path
			}
			top.names[s], top.key, member = true, false, s
			continue
		}
		// tok is a value, or the end of an object or array.
		path := ""
		if top != nil && top.names != nil {
			path, top.key = member, true
			if top.path != "" {
				path = top.path + "." + member
			}
		} else if top != nil {
			path = fmt.Sprintf("%s[%d]", top.path, top.n)
			top.n++
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{names: map[string]bool{}, key: true, path: path})
		case json.Delim('['):
			stack = append(stack, &level{path: path})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return "", ""
			}
		}
	}
}

// itemParseDynamoDB reads an item in DynamoDB JSON (each attribute one
// {"TYPE": value}), its numbers' text kept.
func itemParseDynamoDB(text string) (Item, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	var item Item
	if err := dec.Decode(&item); err != nil {
		return nil, itemsJSONError(text, err)
	}
	if jsonEnd(dec) != nil {
		return nil, fmt.Errorf("text follows the JSON object")
	}
	if item == nil {
		return nil, fmt.Errorf("want a JSON object (an item)")
	}
	for _, n := range slices.Sorted(maps.Keys(item)) {
		if _, err := PlainValue(item[n]); err != nil {
			return nil, fmt.Errorf("attribute %q: %v (an AttributeValue is {\"S\": \"text\"}, {\"N\": \"1\"}, ...)", n, err)
		}
	}
	return item, nil
}

// itemsJSONError words a JSON syntax error with its line and column.
func itemsJSONError(text string, err error) error {
	var se *json.SyntaxError
	if e, ok := err.(*json.SyntaxError); ok {
		se = e
	}
	if se == nil {
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			return fmt.Errorf("want a JSON object of attributes (an item)")
		}
		return err
	}
	line, col := 1, 1
	for _, ch := range text[:min(int(se.Offset), len(text))] {
		if ch == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("%v (line %d, column %d)", se, line, col)
}

// itemText is item in view: indented DynamoDB JSON (ddb) or plain JSON.
func itemText(item Item, view string) string {
	if view == "ddb" {
		return itemsIndentJSON(item)
	}
	p, err := PlainItem(item)
	if err != nil {
		return itemsIndentJSON(item)
	}
	return itemsIndentJSON(p)
}

// itemLossy says item has a value the plain view cannot tell apart: a set
// (read back as a list) or a binary (read back as a string).
func itemLossy(item Item) bool {
	for _, v := range item {
		if itemLossyValue(v) {
			return true
		}
	}
	return false
}

func itemLossyValue(v json.RawMessage) bool {
	t, val, err := splitAV(v)
	if err != nil {
		return false
	}
	switch t {
	case "SS", "NS", "BS", "B":
		return true
	case "L":
		var l []json.RawMessage
		json.Unmarshal(val, &l)
		for _, e := range l {
			if itemLossyValue(e) {
				return true
			}
		}
	case "M":
		var m Item
		json.Unmarshal(val, &m)
		return itemLossy(m)
	}
	return false
}

// itemEmptyValue is a new item's key value of type t (S, N, B).
func itemEmptyValue(t string) json.RawMessage {
	switch t {
	case "N":
		return json.RawMessage(`{"N":"0"}`)
	case "B":
		return json.RawMessage(`{"B":""}`)
	}
	return json.RawMessage(`{"S":""}`)
}

// itemSameKey says key text a (DynamoDB JSON) is key b: the same
// attributes and values, however their JSON escapes them (an item read
// from the plain view has < as \u003c, its key parameter as <).
func itemSameKey(a string, b Item) bool {
	ka, err := itemParseDynamoDB(a)
	if err != nil {
		return false
	}
	ca, cb := itemsCanonicalJSON(ka), itemsCanonicalJSON(b)
	return ca != "" && ca == cb
}

// itemsCanonicalJSON is item as JSON text of one spelling: names sorted,
// strings escaped alike; "" if it is not JSON.
func itemsCanonicalJSON(item Item) string {
	var v any
	if json.Unmarshal([]byte(itemsCompactJSON(item)), &v) != nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// itemsCompactJSON is v as compact JSON, names sorted, <, > and & as they are.
func itemsCompactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// itemsIndentJSON is v as indented JSON, <, > and & as they are.
func itemsIndentJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// itemsSentence is err's text as a sentence: capitalized, with a full stop.
func itemsSentence(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, ")") {
		s += "."
	}
	return s
}
