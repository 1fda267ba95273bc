package console

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/dynago/dynago/internal/dataio"
)

// The download of a table page's result (/console/tables/NAME/download,
// the page's parameters and format, scope): the current page (scope
// page) or the whole Scan or Query result (scope all, the default),
// following LastEvaluatedKey up to itemsDownloadCap items, in the
// formats of internal/dataio, which dynago load reads back:
//
//	format json           plain JSON lines, one item a line (NAME.jsonl)
//	format dynamodb-json  DynamoDB JSON lines, {"Item": {...}} (NAME.dynamodb.jsonl)
//	format csv            CSV with typed headers (NAME.csv)
//
// The JSON formats are JSON Lines (one JSON value a line, not one JSON
// document), hence .jsonl; dynago load detects both by their content
// (dataio's detection: any name but *.csv is JSON, plain or DynamoDB JSON
// by its first line).
//
// The items are spooled as DynamoDB JSON lines (the wire form), read
// back with dataio's reader (its converter to the SDK's AttributeValues)
// and written with dataio's writer.

// itemsDownloadCap is the most items a download of the whole result
// holds.
const itemsDownloadCap = 10000

func (c *Console) itemsDownload(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	t, err := c.describe(r, name)
	if err != nil {
		c.itemsTableError(w, r, name, err)
		return
	}
	q := r.URL.Query()
	format := dataio.Format(q.Get("format"))
	var ext string
	switch format {
	case dataio.FormatJSON:
		ext = ".jsonl"
	case dataio.FormatDynamoDBJSON:
		ext = ".dynamodb.jsonl"
	case dataio.FormatCSV:
		ext = ".csv"
	default:
		http.Error(w, fmt.Sprintf("format %q: want json, dynamodb-json or csv", format), http.StatusBadRequest)
		return
	}
	f := parseItemsForm(q)
	if msg := f.LimitErr + f.PErr; msg != "" {
		http.Error(w, msg, http.StatusBadRequest)
		return
	}
	whole := q.Get("scope") != "page"
	dir, err := os.MkdirTemp("", "dynago-console-download-")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer os.RemoveAll(dir)
	spool := filepath.Join(dir, "items.dynamodb.json")
	n, truncated, err := c.itemsSpool(r, t, f, whole, spool)
	if err != nil {
		e := itemsAPIError(err)
		http.Error(w, e.Error(), itemsStatusOf(e))
		return
	}
	out := filepath.Join(dir, "out"+ext)
	if err := itemsConvert(spool, out, format); err != nil {
		c.log.Error("console: download", "table", name, "err", err)
		http.Error(w, "the download could not be written: "+err.Error(), http.StatusInternalServerError)
		return
	}
	file, err := os.Open(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer file.Close()
	h := w.Header()
	if format == dataio.FormatCSV {
		h.Set("Content-Type", "text/csv; charset=utf-8")
	} else {
		h.Set("Content-Type", "application/x-ndjson; charset=utf-8")
	}
	h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name+ext))
	h.Set("X-Dynago-Items", fmt.Sprint(n))
	if truncated {
		h.Set("X-Dynago-Truncated", fmt.Sprintf("the result has more than %d items; the download holds the first %d", itemsDownloadCap, itemsDownloadCap))
	}
	io.Copy(w, file)
}

// itemsSpool writes the items of the form's request (its current page,
// or all its pages) to path as DynamoDB JSON lines; it returns their
// number and whether the cap cut the result.
func (c *Console) itemsSpool(r *http.Request, t TableDescription, f itemsForm, whole bool, path string) (int, bool, error) {
	file, err := os.Create(path)
	if err != nil {
		return 0, false, err
	}
	defer file.Close()
	bw := bufio.NewWriter(file)
	op, req, err := buildItemsRequest(f, t)
	if err != nil {
		return 0, false, err
	}
	req.ReturnConsumedCapacity = ""
	n := 0
	if !whole {
		// The page as the page read it: a filtered one read on until full.
		got := c.itemsFill(r.Context(), op, req, len(f.Filters) > 0 && !f.One)
		if got.Err != nil || got.LaterErr != nil {
			return 0, false, errors.Join(got.Err, got.LaterErr)
		}
		for _, it := range got.Resp.Items {
			fmt.Fprintf(bw, "{\"Item\":%s}\n", itemsCompactJSON(it))
			n++
		}
		return n, false, bw.Flush()
	}
	for {
		var resp itemsResponse
		if err := c.call(r.Context(), op, req, &resp); err != nil {
			return n, false, err
		}
		for _, it := range resp.Items {
			if n == itemsDownloadCap {
				return n, true, bw.Flush()
			}
			fmt.Fprintf(bw, "{\"Item\":%s}\n", itemsCompactJSON(it))
			n++
		}
		if len(resp.LastEvaluatedKey) == 0 {
			return n, false, bw.Flush()
		}
		req.ExclusiveStartKey = resp.LastEvaluatedKey
	}
}

// itemsConvert reads the DynamoDB JSON lines of in with dataio and writes
// them to out in format.
func itemsConvert(in, out string, format dataio.Format) (err error) {
	rd, err := dataio.Open(in, dataio.ReadOptions{Format: dataio.FormatDynamoDBJSON})
	if err != nil {
		return err
	}
	defer rd.Close()
	wr, err := dataio.Create(out, dataio.WriteOptions{Format: format})
	if err != nil {
		return err
	}
	for {
		item, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return errors.Join(err, wr.Abort())
		}
		if err := wr.Write(item); err != nil {
			return errors.Join(err, wr.Abort())
		}
	}
	return wr.Close()
}
