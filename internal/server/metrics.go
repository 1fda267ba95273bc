package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/engine"
)

// Metrics are the server's Prometheus metrics, served at GET /metrics
// when Options.Metrics is set:
//
//	dynago_requests_total{operation, code}            requests by answer (200 or the error code)
//	dynago_request_duration_seconds{operation}        latency histogram
//	dynago_consumed_capacity_units_total{table, index, kind}  read or write units
//	dynago_throttle_events_total{table, index, reason}      throttle events (a request, or an item of a batch) by ThrottlingReasons reason
//
// index is "" for the table itself. Consumed units are counted when the
// engine's accounting runs (engine.Options.Throttle); they are what
// ReturnConsumedCapacity would report. Other packages add theirs to the
// same registry with Registerer (serve --design: package designtraffic's
// dynago_design_requests_total and dynago_design_items_total).
//
// It implements engine.Observer.
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	consumed  *prometheus.CounterVec
	throttled *prometheus.CounterVec
	handler   http.Handler
	// ok and took are requests' 200 counter and latency observer by
	// operation, looked up once here rather than by label values on every
	// request (read only after NewMetrics).
	ok   map[string]prometheus.Counter
	took map[string]prometheus.Observer
}

var _ engine.Observer = (*Metrics)(nil)

// NewMetrics returns empty metrics in their own registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dynago_requests_total", Help: "API requests by operation and answer (200 or the DynamoDB error code).",
		}, []string{"operation", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "dynago_request_duration_seconds", Help: "API request latency by operation.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}, []string{"operation"}),
		consumed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dynago_consumed_capacity_units_total", Help: "Capacity units consumed, by table, GSI (\"\" for the table) and kind (read, write).",
		}, []string{"table", "index", "kind"}),
		throttled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dynago_throttle_events_total", Help: "Throttle events, one per throttled request or batch item (as CloudWatch counts ReadThrottleEvents and WriteThrottleEvents), by table, GSI and ThrottlingReasons reason.",
		}, []string{"table", "index", "reason"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.consumed, m.throttled)
	m.ok, m.took = map[string]prometheus.Counter{}, map[string]prometheus.Observer{}
	for _, table := range []map[string]opFunc{ops, streamOps} {
		for op := range table {
			m.ok[op] = m.requests.WithLabelValues(op, "200")
			m.took[op] = m.latency.WithLabelValues(op)
		}
	}
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

// Registerer is the registry served at GET /metrics, for metrics of
// other packages; a name already registered is refused with an error.
func (m *Metrics) Registerer() prometheus.Registerer { return m.reg }

// Consumed implements engine.Observer.
func (m *Metrics) Consumed(table, index string, write bool, units float64) {
	kind := "read"
	if write {
		kind = "write"
	}
	m.consumed.WithLabelValues(table, index, kind).Add(units)
}

// Throttled implements engine.Observer.
func (m *Metrics) Throttled(table, index, reason string) {
	m.throttled.WithLabelValues(table, index, reason).Inc()
}

// request records one API request. op is the operation when it is one
// dynago serves ("unknown" otherwise, so that a client cannot mint
// label values).
func (m *Metrics) request(op string, status int, err error, took time.Duration) {
	if ok, known := m.ok[op]; known && status == http.StatusOK && err == nil {
		ok.Inc()
		m.took[op].Observe(took.Seconds())
		return
	}
	if _, ok := ops[op]; !ok {
		if _, ok := streamOps[op]; !ok {
			op = "unknown"
		}
	}
	code := strconv.Itoa(status)
	if e, ok := ddberr.As(err); ok {
		code = string(e.Code)
	}
	m.requests.WithLabelValues(op, code).Inc()
	m.latency.WithLabelValues(op).Observe(took.Seconds())
}
