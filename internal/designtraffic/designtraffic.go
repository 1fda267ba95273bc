// Package designtraffic classifies live traffic against single-table
// designs (dynago serve --design FILE): every data-plane request on a
// table with a design is recorded as one of its access patterns or as an
// undeclared path (design.Traffic), for GET /design/traffic and the
// dynago_design_* metrics; with --design-strict a Scan no pattern
// declares is refused. It plugs into the HTTP edge through
// server.Interceptor and server.Options.Endpoints, so that package server
// knows nothing of designs (nor links the AWS SDK that package design
// needs); only the command line wires it in.
package designtraffic

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/design"
)

// Classifier records requests into a design.Traffic; it is serve
// --design's server.Interceptor (Before and After), safe for concurrent
// use. Its metrics, when registered (New's reg):
//
//	dynago_design_requests_total{table, pattern, declared}  requests by access pattern id, or undeclared path (declared="false")
//	dynago_design_items_total{table, pattern, kind}         items Queries and Scans returned and read (kind returned, scanned)
//
// Each item of a batch or transaction counts as its own request.
type Classifier struct {
	traffic  *design.Traffic
	strict   bool
	requests *prometheus.CounterVec
	items    *prometheus.CounterVec
}

// New returns a Classifier recording into t (not nil). With strict it
// refuses a Scan that no pattern of its table's design declares. reg,
// when not nil, gets its metrics (server.Metrics.Registerer); the error
// is reg's refusal of them (a name registered already).
func New(t *design.Traffic, strict bool, reg prometheus.Registerer) (*Classifier, error) {
	c := &Classifier{traffic: t, strict: strict,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dynago_design_requests_total", Help: "With --design: requests by table and access pattern id, or undeclared path shape (declared=false).",
		}, []string{"table", "pattern", "declared"}),
		items: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dynago_design_items_total", Help: "With --design: items Queries and Scans returned and read, by table, pattern and kind (returned, scanned); scanned/returned is a filter's read amplification.",
		}, []string{"table", "pattern", "kind"}),
	}
	if reg != nil {
		for _, m := range []prometheus.Collector{c.requests, c.items} {
			if err := reg.Register(m); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// Before refuses, when strict, a Scan that no pattern of its table's
// design declares, whether asked for with Scan or as a PartiQL SELECT
// that leaves the partition key open: as an IAM policy that denies
// dynamodb:Scan (or dynamodb:PartiQLSelect) would, with
// AccessDeniedException; the refused Scan is recorded as its undeclared
// path. Every other request passes (After records it).
func (c *Classifier) Before(_ context.Context, _ string, in any) error {
	if !c.strict {
		return nil
	}
	switch in.(type) {
	case *api.ScanInput, *api.ExecuteStatementInput:
	default:
		return nil // only a Scan is refused; After classifies the rest
	}
	as := accesses(c.traffic, in)
	if len(as) != 1 || as[0].Operation != "Scan" || !c.traffic.Has(as[0].Table) {
		return nil
	}
	a := as[0]
	if _, _, declared := c.traffic.Classify(a); declared {
		return nil
	}
	_, path, _ := c.traffic.Record(a)
	c.count(a.Table, path, false, 0, 0)
	return ddberr.New(ddberr.AccessDeniedException, "dynago --design-strict: the design of table "+a.Table+" declares no Scan"+onIndex(a.Index)+": add an access pattern, or query by key")
}

func onIndex(name string) string {
	if name == "" {
		return ""
	}
	return " on index " + name
}

// After records a valid request that ran, failed (err) or not: each item
// of a batch or transaction as its own access, a Query's or Scan's items
// returned and read from its *api.ReadOutput.
func (c *Classifier) After(_ context.Context, _ string, in, out any, err error) {
	failed := err != nil
	for _, a := range accesses(c.traffic, in) {
		if !c.traffic.Has(a.Table) {
			continue
		}
		a.Failed = failed
		if ro, isRead := out.(*api.ReadOutput); isRead && ro != nil && !failed {
			a.Count, a.Scanned = ro.Count, ro.ScannedCount
		}
		pattern, path, declared := c.traffic.Record(a)
		if !declared {
			pattern = path
		}
		c.count(a.Table, pattern, declared, a.Count, a.Scanned)
	}
}

// count adds one classified request to the metrics.
func (c *Classifier) count(table, pattern string, declared bool, returned, scanned int) {
	c.requests.WithLabelValues(table, pattern, strconv.FormatBool(declared)).Inc()
	if scanned > 0 {
		c.items.WithLabelValues(table, pattern, "returned").Add(float64(returned))
		c.items.WithLabelValues(table, pattern, "scanned").Add(float64(scanned))
	}
}

// Handler answers GET /design/traffic[?table=T] (a server.Options
// Endpoints entry): t's report as JSON, {"tables": [design.TableTraffic
// ...]}, only table T's with the parameter. A table without a design is
// 404 {"error": "no design for table T"}; with t nil every request is 404
// {"error": ...} saying how to attach a design (--design FILE).
func Handler(t *design.Traffic) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if t == nil {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]string{"error": "no design attached: start the server with --design FILE"})
			return
		}
		rep := t.Report()
		if name := r.URL.Query().Get("table"); name != "" {
			var one []design.TableTraffic
			for _, tt := range rep {
				if tt.Table == name {
					one = append(one, tt)
				}
			}
			if one == nil {
				w.WriteHeader(http.StatusNotFound)
				json.NewEncoder(w).Encode(map[string]string{"error": "no design for table " + name})
				return
			}
			rep = one
		}
		json.NewEncoder(w).Encode(map[string]any{"tables": rep})
	})
}
