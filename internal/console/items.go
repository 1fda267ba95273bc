package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
)

// A table's page (/console/tables/NAME): the table's header, its items a
// page at a time (a Scan or Query of the table or an index, built by the
// query builder of items_query.go), the request sent and the capacity
// it consumed; the item editor (items_edit.go) and the download
// (items_download.go).

func (c *Console) itemsRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /console/tables/{name}", c.itemsTablePage)
	m.HandleFunc("GET /console/tables/{name}/item", c.itemEditorPage)
	m.HandleFunc("POST /console/tables/{name}/item", c.itemEditorPost)
	m.HandleFunc("GET /console/tables/{name}/download", c.itemsDownload)
}

// itemsIndex is one choice of the index select.
type itemsIndex struct {
	Name, Kind string // Kind: GSI or LSI
	Keys       itemsKeys
}

// itemsHeader is what the top of a table's pages shows.
type itemsHeader struct {
	Name        string
	Table       TableDescription
	Keys        itemsKeys
	BillingMode string
	Indexes     []itemsIndex
	// Tab is the page: items, item, stream, settings (table_header's
	// current tab).
	Tab string
	// Title is the page's heading ("" the table's name); Missing says
	// the table does not exist (no tabs).
	Title   string
	Missing bool
}

// tableHeader is the header of a page that has the table's name only
// (the stream page: table_header in templates/shared.html).
func tableHeader(name, tab, title string, missing bool) itemsHeader {
	return itemsHeader{Name: name, Tab: tab, Title: title, Missing: missing}
}

func newItemsHeader(t TableDescription, tab string) itemsHeader {
	h := itemsHeader{Name: t.TableName, Table: t, BillingMode: summarize(t).BillingMode, Tab: tab}
	h.Keys, _ = itemsKeysFor(t, "")
	for _, ix := range t.GlobalSecondaryIndexes {
		k, _ := itemsKeysFor(t, ix.IndexName)
		h.Indexes = append(h.Indexes, itemsIndex{ix.IndexName, "GSI", k})
	}
	for _, ix := range t.LocalSecondaryIndexes {
		k, _ := itemsKeysFor(t, ix.IndexName)
		h.Indexes = append(h.Indexes, itemsIndex{ix.IndexName, "LSI", k})
	}
	return h
}

// itemsPageData is the table page's data.
type itemsPageData struct {
	Header itemsHeader
	// Flash is what was just done (an item deleted), if anything.
	Flash *flash
	Form  itemsForm
	// Keys are the keys of the table or index read.
	Keys      itemsKeys
	Operation string
	// Request is the request sent, indented JSON; "" when none was.
	Request string
	// Fill says a filtered page reads on until it is full (items_fill.go);
	// Requests is how many requests the page sent, Reads those after the
	// first, Stopped the bound that ended them ("requests", "time") and
	// LaterErr a later request's error.
	Fill     bool
	Requests int
	Reads    []itemsRead
	Stopped  string
	LaterErr *APIError
	Resp     itemsResponse
	Items    ItemTable
	// Err is DynamoDB's answer to the request; FormErr the console's
	// own complaint about the form, and NotFound a table that does not
	// exist (DescribeTable's error).
	Err      *APIError
	FormErr  string
	NotFound *APIError
	// Paging: the page's number (1 the first) and the links.
	PageNo                     int
	FirstURL, BackURL, NextURL string
	SKOps                      any
	FilterRows                 []itemsFilterRow
	// Downloads are the links of the whole result's downloads, and
	// PageDownloads those of this page alone.
	Downloads, PageDownloads []itemsDownloadLink
}

// itemsDownloadLink is one download link.
type itemsDownloadLink struct{ ID, Label, URL string }

// itemsDownloadLinks are the download links of the form's parameters v.
func itemsDownloadLinks(path string, v url.Values, id string) []itemsDownloadLink {
	var links []itemsDownloadLink
	for _, f := range []struct{ format, label string }{{"json", "JSON lines"}, {"dynamodb-json", "DynamoDB JSON lines"}, {"csv", "CSV"}} {
		w := url.Values{}
		for k, l := range v {
			w[k] = l
		}
		w.Set("format", f.format)
		links = append(links, itemsDownloadLink{id + f.format, f.label, path + "/download?" + w.Encode()})
	}
	return links
}

// itemsFilterRow is one filter row of the form, with its choices.
type itemsFilterRow struct {
	Row   itemsFilter
	Type  string
	Ops   any
	Types []string
}

func itemsFilterRows(f itemsForm) []itemsFilterRow {
	var rows []itemsFilterRow
	for _, r := range append(append([]itemsFilter{}, f.Filters...), itemsFilter{Op: "="}) {
		t := r.Type
		if t == "" {
			t = "S"
		}
		rows = append(rows, itemsFilterRow{Row: r, Type: t, Ops: itemsFilterOps, Types: []string{"S", "N", "B", "BOOL", "NULL"}})
	}
	return rows
}

func (c *Console) itemsTablePage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	t, err := c.describe(r, name)
	if err != nil {
		c.itemsTableError(w, r, name, err)
		return
	}
	f := parseItemsForm(r.URL.Query())
	d := itemsPageData{
		Header: newItemsHeader(t, "items"), Form: f, PageNo: f.PageNo(), Flash: c.takeFlash(r),
		SKOps: itemsSKOps, FilterRows: itemsFilterRows(f),
	}
	d.Keys, _ = itemsKeysFor(t, f.Index)
	base := f.values()
	path := "/console/tables/" + url.PathEscape(name)
	d.FirstURL = path + "?" + base.Encode()
	status := http.StatusOK
	switch {
	case f.LimitErr != "":
		d.FormErr, status = f.LimitErr, http.StatusBadRequest
	case f.PErr != "":
		d.FormErr, status = f.PErr, http.StatusBadRequest
	}
	if d.FormErr == "" {
		op, req, err := buildItemsRequest(f, t)
		d.Operation = op
		if err != nil {
			d.FormErr, status = err.Error(), http.StatusBadRequest
		} else {
			d.Fill = len(f.Filters) > 0 && !f.One
			got := c.itemsFill(r.Context(), op, req, d.Fill)
			d.Resp, d.Request, d.Requests, d.Reads, d.Stopped = got.Resp, itemsIndentRaw(got.Request), got.Requests, got.Reads, got.Stopped
			if got.LaterErr != nil {
				d.LaterErr = itemsAPIError(got.LaterErr)
			}
			if got.Err != nil {
				d.Err, status = itemsAPIError(got.Err), http.StatusBadRequest
				if d.Err.Status != 0 {
					status = d.Err.Status
				}
			}
		}
	}
	d.Items = NewItemTable(d.Resp.Items, d.Keys.PK, d.Keys.SK, d.Header.Keys.PK, d.Header.Keys.SK)
	d.Items.Empty = "No items yet: create one with New item, or load a file with dynago load " + name + " FILE (JSON lines, DynamoDB JSON or CSV)."
	if d.PageNo > 1 || f.Op == "query" || len(f.Filters) > 0 {
		d.Items.Empty = "No items on this page match."
	}
	d.Items.Open = itemLinks(path, d.Resp.Items, d.Header.Keys)
	// Back is the page before, unless its key was dropped from the
	// stack (itemsMaxStack): then only the first page link leads back.
	if len(f.Stack) > 1 || (len(f.Stack) == 1 && f.Skipped == 0) {
		d.BackURL = itemsPageURL(path, base, f.Skipped, f.Stack[:len(f.Stack)-1])
	}
	if len(d.Resp.LastEvaluatedKey) > 0 {
		d.NextURL = itemsPageURL(path, base, f.Skipped, append(append([]Item{}, f.Stack...), d.Resp.LastEvaluatedKey))
	}
	d.Downloads = itemsDownloadLinks(path, base, "d-")
	if d.NextURL != "" || d.BackURL != "" {
		pv := url.Values{"scope": {"page"}}
		for k, l := range base {
			pv[k] = l
		}
		setPaging(pv, f.Skipped, f.Stack)
		d.PageDownloads = itemsDownloadLinks(path, pv, "dp-")
	}
	c.render(w, r, status, "table", c.page(r, name, "tables", d))
}

// itemsTableError renders a table's page for DescribeTable's error: a table
// that does not exist is a 404 with DynamoDB's ResourceNotFoundException.
func (c *Console) itemsTableError(w http.ResponseWriter, r *http.Request, name string, err error) {
	e := itemsAPIError(err)
	status := e.Status
	switch {
	case e.Type == "ResourceNotFoundException":
		status = http.StatusNotFound
	case status == 0:
		status = http.StatusInternalServerError
	}
	d := itemsPageData{Header: itemsHeader{Name: name, Tab: "items", Missing: e.Type == "ResourceNotFoundException"}, NotFound: e}
	c.render(w, r, status, "table", c.page(r, name, "tables", d))
}

// itemsAPIError returns err as an *APIError (the console's own errors get
// Type "Error").
func itemsAPIError(err error) *APIError {
	var e *APIError
	if errors.As(err, &e) {
		return e
	}
	return &APIError{Type: "Error", Message: err.Error()}
}

// itemsPageURL is the link to the page whose paging position is
// skipped, stack (see setPaging).
func itemsPageURL(path string, base url.Values, skipped int, stack []Item) string {
	v := url.Values{}
	for k, l := range base {
		v[k] = l
	}
	setPaging(v, skipped, stack)
	return path + "?" + v.Encode()
}

// itemLinks are the open links of items (by the table's key; "" for an
// item without its key attributes, a projection that left them out).
func itemLinks(path string, items []Item, k itemsKeys) []string {
	var links []string
	for _, it := range items {
		key, ok := itemKeyOf(it, k)
		if !ok {
			links = append(links, "")
			continue
		}
		b, _ := json.Marshal(key)
		links = append(links, path+"/item?key="+url.QueryEscape(string(b)))
	}
	return links
}

// itemKeyOf returns item's key attributes; ok is false when one is missing.
func itemKeyOf(item Item, k itemsKeys) (Item, bool) {
	key := Item{}
	for _, n := range []string{k.PK, k.SK} {
		if n == "" {
			continue
		}
		v, ok := item[n]
		if !ok {
			return nil, false
		}
		key[n] = v
	}
	return key, len(key) > 0
}

// itemsIndentRaw indents JSON text as it is (its escapes kept).
func itemsIndentRaw(b []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, b, "", "  ") != nil {
		return string(b)
	}
	return out.String()
}

// itemsBody is request v as the JSON the console sends: <, > and & as
// they are (not \u003e), so that the request shown reads as written.
func itemsBody(v any) json.RawMessage {
	return json.RawMessage(itemsCompactJSON(v))
}
