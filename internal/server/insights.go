package server

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/dynago/dynago/internal/ddberr"
)

// insights serves GET /insights?table=NAME[&window=60s][&top=10]: the
// engine's InsightsReport for the table as JSON (what `dynago insights`
// shows). A bad parameter is 400, a missing table 404, each with a JSON
// body {"error": message}.
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
		if err != nil || d <= 0 {
			fail(http.StatusBadRequest, "window must be a positive duration such as 60s or 5m, not "+strconv.Quote(v))
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
		s.log.Error("insights", "table", table, "err", err)
		fail(http.StatusInternalServerError, "internal error")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(rep)
}
