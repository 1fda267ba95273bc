package console

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/throttle"
)

// Capacity and partitions (/console/capacity?table=NAME&window=5m): the
// units a table and each GSI consumed a second over the window, as line
// charts of the insights recorder's 10-second slots; with serve
// --throttle each partition's load against its limits as a heat map,
// throttles marked; and Contributor Insights' hottest keys, with a
// button that enables it (UpdateContributorInsights, as a client would)
// where it is DISABLED. The figures are the engine's insights report
// (what GET /insights and dynago insights show for the same window) and
// the series behind it (engine.InsightsHistory); static/capacity.js
// draws them from GET /console/capacity/data, every few seconds.

func init() {
	// rate is units a second as dynago insights prints them (2
	// decimals); keytext a Contributor Insights key (DynamoDB JSON) as
	// attr=value pairs.
	funcs["rate"] = func(u float64) string { return strconv.FormatFloat(u, 'f', 2, 64) }
	funcs["keytext"] = keyText
}

// keyText writes a key's attributes (DynamoDB JSON) as NAME=value,
// names in order, joined by ", "; what is not an item is shown as it is.
func keyText(key json.RawMessage) string {
	var item Item
	if err := json.Unmarshal(key, &item); err != nil || len(item) == 0 {
		return string(key)
	}
	names := slices.Sorted(maps.Keys(item))
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + CellOf(item[n]).Text
	}
	return strings.Join(parts, ", ")
}

func (c *Console) capacityRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /console/capacity", c.capacityPage)
	m.HandleFunc("GET /console/capacity/data", c.capacityData)
	m.HandleFunc("POST /console/capacity/insights", c.capacityEnableInsights)
}

// capacityWindows are the windows the page offers; the first is the
// default.
var capacityWindows = []string{"5m", "2m", "1m"}

// capacityTop is how many keys each Contributor Insights view lists
// (GET /insights' default).
const capacityTop = 10

// capacityWindow returns the window r asks for (?window=, one of
// capacityWindows).
func capacityWindow(r *http.Request) (string, time.Duration) {
	w := r.URL.Query().Get("window")
	if !slices.Contains(capacityWindows, w) {
		w = capacityWindows[0]
	}
	d, _ := time.ParseDuration(w)
	return w, d
}

// heatStep is the heat map's step for a window: 60 columns at most, a
// second at least.
func heatStep(window time.Duration) time.Duration {
	return max(window/60, time.Second).Truncate(time.Second)
}

// capacityView is the capacity page's data.
type capacityView struct {
	Tables []string
	Table  string
	Window string
	// Windows are the windows to pick from.
	Windows []string
	// Err is DynamoDB's answer when the table cannot be described or
	// listed; NoEngine says the console has no engine to read the
	// figures from.
	Err      *APIError
	NoEngine bool
	// Throttle, Scale and the partition limits (scaled): serve
	// --throttle's model.
	Throttle                      bool
	Scale                         float64
	PartitionRead, PartitionWrite float64
	// Spaces are the table and its GSIs, with the report's figures.
	Spaces []engine.SpaceInsights
	// Data is the JSON endpoint capacity.js polls.
	Data string
	// Notice is a message after a change (Contributor Insights enabled).
	Notice string
}

func (c *Console) capacityPage(w http.ResponseWriter, r *http.Request) {
	v := c.capacityView(r)
	v.Notice = r.URL.Query().Get("notice")
	if v.Notice != "" && v.Notice != "enabled" {
		v.Notice = ""
	}
	status := http.StatusOK
	if v.Err != nil && v.Err.Status >= 400 && v.Err.Status < 500 && v.Table != "" {
		status = v.Err.Status
	}
	c.render(w, r, status, "capacity", c.page(r, "Capacity and partitions", "capacity", v))
}

// capacityView gathers what the page shows for r.
func (c *Console) capacityView(r *http.Request) capacityView {
	v := capacityView{Windows: capacityWindows, Throttle: c.opts.Throttle, Scale: c.opts.CapacityScale, NoEngine: c.opts.Engine == nil}
	v.PartitionRead, v.PartitionWrite = throttle.PartitionReadUnits/v.Scale, throttle.PartitionWriteUnits/v.Scale
	var window time.Duration
	v.Window, window = capacityWindow(r)
	tables, err := c.listTables(r)
	if err != nil {
		v.Err = asAPIError(err)
		return v
	}
	v.Tables = tables
	v.Table = r.URL.Query().Get("table")
	if v.Table == "" {
		if len(tables) == 0 {
			return v
		}
		v.Table = tables[0]
	}
	if _, err := c.describe(r, v.Table); err != nil {
		v.Err = asAPIError(err)
		return v
	}
	v.Data = "/console/capacity/data?" + url.Values{"table": {v.Table}, "window": {v.Window}}.Encode()
	if c.opts.Engine == nil {
		return v
	}
	rep, err := c.opts.Engine.Insights(r.Context(), v.Table, window, capacityTop)
	if err != nil {
		v.Err = asAPIError(err)
		return v
	}
	v.Spaces = rep.KeySpaces
	return v
}

// CapacityData is what GET /console/capacity/data serves: the insights
// report's figures for the window with the series behind them.
type CapacityData struct {
	Table         string    `json:"table"`
	At            time.Time `json:"at"`
	From          time.Time `json:"from"`
	WindowSeconds float64   `json:"windowSeconds"`
	// Throttling says serve runs with --throttle; CapacityScale is its
	// --capacity-scale.
	Throttling    bool    `json:"throttling"`
	CapacityScale float64 `json:"capacityScale"`
	// KeySpaces are the table, then its GSIs.
	KeySpaces []CapacitySpace `json:"keySpaces"`
}

// CapacitySpace is one key space: the report's figures (units a second
// over the window, limits, Contributor Insights' keys, partitions) and
// the series behind them.
type CapacitySpace struct {
	engine.SpaceInsights
	// Series is the units consumed a second in each 10-second slot:
	// Time (Unix seconds, the slot's start), Read and Write.
	Series CapacitySeries `json:"series"`
	// Heat is each partition's load step by step (serve --throttle, once
	// the key space has served a request).
	Heat *engine.PartitionHeat `json:"heat,omitempty"`
}

// CapacitySeries are a key space's units a second, slot by slot.
type CapacitySeries struct {
	Time  []int64   `json:"t"`
	Read  []float64 `json:"read"`
	Write []float64 `json:"write"`
}

// capacityData serves CapacityData for ?table=NAME&window=; errors are
// {"error", "type"} with DynamoDB's status and words.
func (c *Console) capacityData(w http.ResponseWriter, r *http.Request) {
	table := r.URL.Query().Get("table")
	fail := func(e *APIError) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(e.Status)
		json.NewEncoder(w).Encode(map[string]string{"type": e.Type, "error": e.Message})
	}
	switch {
	case c.opts.Engine == nil:
		fail(&APIError{Status: http.StatusServiceUnavailable, Type: "Unavailable", Message: "the console has no engine to read capacity from"})
		return
	case table == "":
		fail(&APIError{Status: http.StatusBadRequest, Type: "ValidationException", Message: "the table parameter is required: /console/capacity/data?table=NAME"})
		return
	}
	_, window := capacityWindow(r)
	h, err := c.opts.Engine.InsightsHistory(r.Context(), table, window, capacityTop, heatStep(window))
	if err != nil {
		fail(asAPIError(err))
		return
	}
	d := CapacityData{Table: h.Report.Table, At: h.Report.At, From: h.From, WindowSeconds: h.Report.WindowSeconds,
		Throttling: h.Report.Throttling, CapacityScale: h.Report.CapacityScale}
	for i, s := range h.KeySpaces {
		cs := CapacitySpace{SpaceInsights: h.Report.KeySpaces[i], Heat: s.Heat}
		for _, u := range s.Slots {
			cs.Series.Time = append(cs.Series.Time, u.Start.Unix())
			cs.Series.Read = append(cs.Series.Read, u.ReadUnits/u.Seconds)
			cs.Series.Write = append(cs.Series.Write, u.WriteUnits/u.Seconds)
		}
		d.KeySpaces = append(d.KeySpaces, cs)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(d)
}

// capacityEnableInsights enables Contributor Insights on the form's
// table (and index) through UpdateContributorInsights, then shows the
// page again; DynamoDB's refusal is shown on the page.
func (c *Console) capacityEnableInsights(w http.ResponseWriter, r *http.Request) {
	table, index := r.PostFormValue("table"), r.PostFormValue("index")
	in := map[string]string{"TableName": table, "ContributorInsightsAction": "ENABLE"}
	if index != "" {
		in["IndexName"] = index
	}
	q := url.Values{"table": {table}}
	if win := r.PostFormValue("window"); slices.Contains(capacityWindows, win) {
		q.Set("window", win)
	}
	if err := c.call(r.Context(), "UpdateContributorInsights", in, nil); err != nil {
		r.URL.RawQuery = q.Encode()
		v := c.capacityView(r)
		v.Err = asAPIError(err)
		c.render(w, r, v.Err.Status, "capacity", c.page(r, "Capacity and partitions", "capacity", v))
		return
	}
	q.Set("notice", "enabled")
	http.Redirect(w, r, "/console/capacity?"+q.Encode(), http.StatusSeeOther)
}
