package handlers

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the Prometheus metrics the HTTP layer records. They live in
// their own registry (no global state), served on the ops listener.
type Metrics struct {
	Registry        *prometheus.Registry
	requests        *prometheus.CounterVec
	duration        *prometheus.HistogramVec
	rateLimited     prometheus.Counter
	limiterFailOpen prometheus.Counter
	authFailures    prometheus.Counter
	readyRedisDown  prometheus.Counter
}

// NewMetrics creates the metrics and a registry holding them and the Go
// runtime and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "learngate_http_requests_total",
			Help: "HTTP requests by listener, route and status.",
		}, []string{"listener", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "learngate_http_request_duration_seconds",
			Help:    "HTTP request latency by listener and route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"listener", "route"}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "learngate_ratelimit_rejections_total",
			Help: "Requests refused with 429 (tenant limit or failed-authentication limit).",
		}),
		limiterFailOpen: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "learngate_ratelimit_fail_open_total",
			Help: "Rate-limit checks let through because the limiter store failed.",
		}),
		authFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "learngate_auth_failures_total",
			Help: "Requests refused with 401.",
		}),
		readyRedisDown: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "learngate_readiness_redis_down_total",
			Help: "Readiness checks (/readyz) that found Redis down; they still answer 200.",
		}),
	}
	m.Registry.MustRegister(m.requests, m.duration, m.rateLimited, m.limiterFailOpen, m.authFailures, m.readyRedisDown,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// LimiterFailedOpen counts one rate-limit check let through on a store failure.
func (m *Metrics) LimiterFailedOpen() { m.limiterFailOpen.Inc() }
