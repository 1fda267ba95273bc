package console

import (
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// A table's stream (/console/tables/NAME/stream): DescribeTable's
// LatestStreamArn, DescribeStream's status, view type and shard lineage,
// and every record from TRIM_HORIZON, old and new images side by side.
// The page polls .../stream/records (htmx, every 2s) with where it has
// read each shard to, in a POST's body (a stream with hundreds of shards,
// as --stream-rollover makes them, has positions past the 16 KB a request
// line may have), and puts the new records on top. A table without a
// stream says so and offers to enable one (UpdateTable).
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_DescribeStream.html,
// API_streams_GetRecords.html, API_streams_StreamRecord.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html.

func (c *Console) streamsRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /console/tables/{name}/stream", c.streamPage)
	m.HandleFunc("GET /console/tables/{name}/stream/records", c.streamRecords)
	m.HandleFunc("POST /console/tables/{name}/stream/records", c.streamRecords)
	m.HandleFunc("POST /console/tables/{name}/stream/enable", c.streamEnable)
}

// streamViewTypes are StreamSpecification's view types, as the enable
// form offers them.
var streamViewTypes = []string{"NEW_AND_OLD_IMAGES", "NEW_IMAGE", "OLD_IMAGE", "KEYS_ONLY"}

// streamData is the stream page.
type streamData struct {
	Table string
	// Err is DescribeTable's or UpdateTable's error; NotFound says the
	// table does not exist.
	Err      *APIError
	NotFound bool
	// Described says DescribeTable answered.
	Described bool
	// OOB says this is a poll's answer: its parts replace the page's.
	OOB bool
	// Enabled says the table's StreamSpecification has a stream on.
	Enabled   bool
	ViewTypes []string
	// Arn is the table's LatestStreamArn ("" : it never had a stream).
	Arn    string
	Stream streamDescription
	// Created is the stream's CreationRequestDateTime, readable.
	Created string
	Shards  []shardNode
	// Records are the records read (newest first); Count how many the
	// page shows in all, with these.
	Records []recordView
	Count   int
	More    bool
	ReadErr *APIError
	// PollURL is the next poll's path, "" : no polling (a disabled
	// stream gets no records); PollVals its form values (the stream, the
	// shard positions, the records shown) as hx-vals' JSON.
	PollURL, PollVals string
	Polled            string
}

func (c *Console) streamPage(w http.ResponseWriter, r *http.Request) {
	c.streamRender(w, r, http.StatusOK, nil)
}

// streamRender renders the stream page, with err (UpdateTable's) shown
// above it and status unless the table's own answer overrides them.
func (c *Console) streamRender(w http.ResponseWriter, r *http.Request, status int, err *APIError) {
	name := r.PathValue("name")
	d := streamData{Table: name, ViewTypes: streamViewTypes, Err: err}
	t, derr := c.describe(r, name)
	if derr != nil {
		d.Err = asAPIError(derr)
		d.NotFound = d.Err.Type == "ResourceNotFoundException"
		status = d.Err.Status
		if d.NotFound {
			status = http.StatusNotFound
		}
		c.render(w, r, status, "stream", c.page(r, name+" stream", "tables", d))
		return
	}
	d.Described = true
	d.Enabled = t.StreamSpecification != nil && t.StreamSpecification.StreamEnabled
	d.Arn = t.LatestStreamArn
	if d.Arn != "" {
		rd, serr := c.readStream(r.Context(), d.Arn, streamPos{})
		if serr != nil {
			d.ReadErr = asAPIError(serr)
		} else {
			d.fill(rd, 0)
		}
	}
	c.render(w, r, status, "stream", c.page(r, name+" stream", "tables", d))
}

// fill puts a read of the stream into d; shown is how many records the
// page had before.
func (d *streamData) fill(rd streamRead, shown int) {
	d.Stream, d.Shards, d.More, d.ReadErr = rd.Stream, lineage(rd.Stream.Shards), rd.More, rd.Err
	if d.Stream.CreationRequestDateTime > 0 {
		d.Created = formatEpoch(d.Stream.CreationRequestDateTime)
	}
	newestFirst(rd.Records)
	pk, sk := Keys(d.Stream.KeySchema)
	for _, rec := range rd.Records {
		v := newRecordView(rec, pk, sk)
		v.New = d.OOB
		d.Records = append(d.Records, v)
	}
	d.Count = shown + len(rd.Records)
	d.Polled = time.Now().UTC().Format("15:04:05")
	if d.Stream.StreamStatus != "DISABLED" && d.Stream.StreamStatus != "DISABLING" {
		d.poll(d.Stream.StreamArn, rd.Pos.String(), strconv.Itoa(d.Count))
	}
}

// poll sets the next poll's path and values.
func (d *streamData) poll(arn, pos, n string) {
	d.PollURL = "/console/tables/" + url.PathEscape(d.Table) + "/stream/records"
	b, _ := marshalText(map[string]string{"arn": arn, "pos": pos, "n": n}, false)
	d.PollVals = string(b)
}

// streamRecords is the poll: the records after the page's positions, as
// fragments htmx puts in place (the records on top of the list, the
// lineage and the summary replaced, the poller with the new positions).
// The values come in the POST's body (the page's poll) or the query (a
// GET, to try one by hand).
func (c *Console) streamRecords(w http.ResponseWriter, r *http.Request) {
	d := streamData{Table: r.PathValue("name"), Arn: r.FormValue("arn"), Enabled: true, Described: true, OOB: true}
	shown, _ := strconv.Atoi(r.FormValue("n"))
	pos := parseStreamPos(r.FormValue("pos"))
	rd, err := c.readStream(r.Context(), d.Arn, pos)
	if err != nil {
		// Answered with 200, so that htmx shows it; the poller keeps
		// its positions and tries again.
		d.ReadErr = asAPIError(err)
		d.Count = shown
		d.poll(d.Arn, r.FormValue("pos"), r.FormValue("n"))
		d.Polled = time.Now().UTC().Format("15:04:05")
		if d.ReadErr.Type == "ResourceNotFoundException" || d.ReadErr.Type == "ValidationException" {
			d.PollURL = "" // the stream is gone, or this is not one: stop
		}
		c.renderFragment(w, r, http.StatusOK, "stream", "stream-poll-answer", c.page(r, "", "tables", d))
		return
	}
	d.fill(rd, max(shown, 0))
	c.renderFragment(w, r, http.StatusOK, "stream", "stream-poll-answer", c.page(r, "", "tables", d))
}

// streamEnable turns the table's stream on with the view type asked for
// (NEW_AND_OLD_IMAGES by default).
func (c *Console) streamEnable(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	view := r.PostFormValue("viewtype")
	if view == "" {
		view = "NEW_AND_OLD_IMAGES"
	}
	in := map[string]any{"TableName": name, "StreamSpecification": map[string]any{"StreamEnabled": true, "StreamViewType": view}}
	if err := c.call(r.Context(), "UpdateTable", in, nil); err != nil {
		e := asAPIError(err)
		c.streamRender(w, r, e.Status, e)
		return
	}
	http.Redirect(w, r, "/console/tables/"+url.PathEscape(name)+"/stream", http.StatusSeeOther)
}

// formatEpoch writes epoch seconds as a UTC time, 24-hour, without the
// zone: the page says once that its times are UTC, as the capacity page
// does.
func formatEpoch(sec float64) string {
	s := int64(sec)
	ns := int64((sec - float64(s)) * 1e9)
	return time.Unix(s, ns).UTC().Format("2006-01-02 15:04:05")
}
