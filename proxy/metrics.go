package proxy

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the proxy's Prometheus metrics, in a registry of their own
// (Server.MetricsHandler serves it):
//
//   - shardgen_proxy_queries_total{route}: planned statements executed, by
//     route kind (runtime.RouteKind names: SingleNode, MultiNode, AllNodes,
//     Broadcast, ...);
//   - shardgen_proxy_errors_total: statements answered with an error;
//   - shardgen_proxy_pass_through_total: statements the fast path relayed
//     (fastpath.go);
//   - shardgen_proxy_steps_plans_total: SELECTs evaluated in steps across
//     data nodes planned as generated code plans them (the plans the plan
//     cache did not hold);
//   - shardgen_proxy_query_duration_seconds{route}: execution latency
//     histogram (seconds, Prometheus default buckets);
//   - shardgen_proxy_pool_connections{data_source,state}: back-end pool
//     connections in_use, idle and open (database/sql DBStats), and
//     shardgen_proxy_pool_max_open{data_source}, read at scrape time.
type metrics struct {
	reg     *prometheus.Registry
	queries *prometheus.CounterVec
	errors  prometheus.Counter
	// passThrough counts the statements the fast path relayed.
	passThrough prometheus.Counter
	// stepsPlans counts the steps plans built (stepsPlan).
	stepsPlans prometheus.Counter
	latency    *prometheus.HistogramVec
}

// newMetrics registers the metrics of s.
func newMetrics(s *Server) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		queries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shardgen_proxy_queries_total", Help: "Planned statements executed, by route kind.",
		}, []string{"route"}),
		passThrough: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "shardgen_proxy_pass_through_total", Help: "Statements whose result the fast path relayed from the back end's packets.",
		}),
		stepsPlans: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "shardgen_proxy_steps_plans_total", Help: "SELECTs evaluated in steps across data nodes planned (not found in the plan cache).",
		}),
		errors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "shardgen_proxy_errors_total", Help: "Statements answered with an error.",
		}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "shardgen_proxy_query_duration_seconds", Help: "Execution latency of planned statements, by route kind.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route"}),
	}
	m.reg.MustRegister(m.queries, m.errors, m.passThrough, m.stepsPlans, m.latency, &poolCollector{s: s})
	return m
}

// observe records one executed statement of route kind route that started
// at start.
func (m *metrics) observe(route string, start time.Time) {
	m.queries.WithLabelValues(route).Inc()
	m.latency.WithLabelValues(route).Observe(time.Since(start).Seconds())
}

// poolCollector reports the back-end pools' DBStats at scrape time.
type poolCollector struct{ s *Server }

var (
	poolConnsDesc = prometheus.NewDesc("shardgen_proxy_pool_connections",
		"Back-end pool connections by state (in_use, idle, open).", []string{"data_source", "state"}, nil)
	poolMaxDesc = prometheus.NewDesc("shardgen_proxy_pool_max_open",
		"Maximum open connections of a back-end pool (0: unlimited).", []string{"data_source"}, nil)
)

// Describe implements prometheus.Collector.
func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- poolConnsDesc
	ch <- poolMaxDesc
}

// Collect implements prometheus.Collector.
func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	for _, ds := range c.s.db.DataSourceNames() {
		pool, ok := c.s.db.Pool(ds)
		if !ok {
			continue
		}
		st := pool.Stats()
		ch <- prometheus.MustNewConstMetric(poolConnsDesc, prometheus.GaugeValue, float64(st.InUse), ds, "in_use")
		ch <- prometheus.MustNewConstMetric(poolConnsDesc, prometheus.GaugeValue, float64(st.Idle), ds, "idle")
		ch <- prometheus.MustNewConstMetric(poolConnsDesc, prometheus.GaugeValue, float64(st.OpenConnections), ds, "open")
		ch <- prometheus.MustNewConstMetric(poolMaxDesc, prometheus.GaugeValue, float64(st.MaxOpenConnections), ds)
	}
}

// MetricsHandler returns the HTTP handler of the server's Prometheus
// metrics (text exposition format; see metrics for the names), to be
// served at /metrics.
func (s *Server) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
}
