package server

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/insights"
)

// insights serves GET /insights?table=NAME[&window=60s][&top=10]: the
// engine's InsightsReport for the table (a name or table ARN) as JSON,
// what `dynago insights` shows. A bad parameter (a window outside 10s to
// 5m, top outside 1 to 100, an invalid table name) is 400, a missing
// table 404, each with a JSON body {"error": message}.
func (s *Server) insights(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	fail := func(code int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(map[string]string{"error": msg})
	}
	table := q.Get("table")
	if table == "" {
		fail(http.StatusBadRequest, "the table parameter is required: /insights?table=NAME")
		return
	}
	window := time.Minute
	if v := q.Get("window"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < insights.Slot || d > insights.MaxWindow {
			fail(http.StatusBadRequest, "window must be a duration from 10s to 5m, such as 60s, not "+strconv.Quote(v))
			return
		}
		window = d
	}
	top := 10
	if v := q.Get("top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			fail(http.StatusBadRequest, "top must be a whole number from 1 to 100, not "+strconv.Quote(v))
			return
		}
		top = n
	}
	rep, err := s.engine.Insights(r.Context(), table, window, top)
	if err != nil {
		if de, ok := ddberr.As(err); ok && de.Code == ddberr.ResourceNotFoundException {
			fail(http.StatusNotFound, de.Message)
			return
		}
		if de, ok := ddberr.As(err); ok && de.Code == ddberr.ValidationException {
			fail(http.StatusBadRequest, de.Message)
			return
		}
		s.log.Error("insights", "table", table, "err", err)
		fail(http.StatusInternalServerError, "internal error")
		return
	}
	body, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		s.log.Error("insights", "table", table, "err", err)
		fail(http.StatusInternalServerError, "internal error: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(body, '\n'))
}
