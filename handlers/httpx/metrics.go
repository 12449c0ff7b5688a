package httpx

import (
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"learngate"
)

// Metrics are the Prometheus metrics the HTTP layer records. They live in
// their own registry (no global state), served on the ops listener.
type Metrics struct {
	// Registry holds every metric, served at /metrics.
	Registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// RateLimited counts requests refused with 429.
	RateLimited     prometheus.Counter
	limiterFailOpen prometheus.Counter
	authFailures    prometheus.Counter
	readyRedisDown  prometheus.Counter
	readyNodesDown  prometheus.Counter
	// SignIns counts learner sign-ins, refusals and sign-outs by outcome.
	SignIns *prometheus.CounterVec
	// PasswordFailures counts failed password sign-ins by tenant (slug)
	// and reason (deploy/prometheus/alerts.yml warns on a spike).
	PasswordFailures *prometheus.CounterVec
}

// NewMetrics creates the metrics and a registry holding them and the Go
// runtime and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "learngate_http_requests_total",
			Help: "HTTP requests by listener, route, status and tenant (the slug; empty before a tenant is resolved).",
		}, []string{"listener", "route", "status", "tenant"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "learngate_http_request_duration_seconds",
			Help:    "HTTP request latency by listener and route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"listener", "route"}),
		RateLimited: prometheus.NewCounter(prometheus.CounterOpts{
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
		readyNodesDown: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "learngate_readiness_database_nodes_down_total",
			Help: "Database worker nodes (Citus) found down by readiness checks (/readyz), one per node per check; they still answer 200.",
		}),
		SignIns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "learngate_sign_ins_total",
			Help: "Learner sign-ins, refusals and sign-outs by outcome (docs/sign-in.md).",
		}, []string{"outcome"}),
		PasswordFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "learngate_password_failures_total",
			Help: "Failed learner password sign-ins by tenant (the slug) and reason: wrong_password, unknown_user, " +
				"inactive, throttled_name (the user name and address are blocked), throttled_address (the address is blocked).",
		}, []string{"tenant", "reason"}),
	}
	m.Registry.MustRegister(m.SignIns, m.PasswordFailures, m.requests, m.duration, m.RateLimited, m.limiterFailOpen, m.authFailures, m.readyRedisDown, m.readyNodesDown,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// observe records one finished request. The tenant label is the slug of the
// tenant the request was resolved to, "" when none was (ops listener,
// unknown host): its values are bounded by the tenants, never by what a
// client sends. The latency histogram has no tenant label: its 14 buckets
// per route would multiply by the tenants (docs/operations.md, Observability).
func (m *Metrics) observe(c *gin.Context, listener, route string, status int, elapsed time.Duration) {
	slug := ""
	if t, ok := c.Get(tenantKey); ok {
		slug = t.(learngate.Tenant).Slug
	}
	m.requests.WithLabelValues(listener, route, strconv.Itoa(status), slug).Inc()
	m.duration.WithLabelValues(listener, route).Observe(elapsed.Seconds())
}

// LimiterFailedOpen counts one rate-limit check let through on a store failure.
func (m *Metrics) LimiterFailedOpen() { m.limiterFailOpen.Inc() }
