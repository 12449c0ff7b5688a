package handlers

import (
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"learngate"
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
	readyNodesDown  prometheus.Counter
	signIns         *prometheus.CounterVec
	// passwordFailures counts failed password sign-ins by tenant (slug)
	// and reason (deploy/prometheus/alerts.yml warns on a spike).
	passwordFailures *prometheus.CounterVec
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
		readyNodesDown: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "learngate_readiness_database_nodes_down_total",
			Help: "Database worker nodes (Citus) found down by readiness checks (/readyz), one per node per check; they still answer 200.",
		}),
		signIns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "learngate_sign_ins_total",
			Help: "Learner sign-ins, refusals and sign-outs by outcome (docs/sign-in.md).",
		}, []string{"outcome"}),
		passwordFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "learngate_password_failures_total",
			Help: "Failed learner password sign-ins by tenant (the slug) and reason: wrong_password, unknown_user, " +
				"inactive, throttled_name (the user name and address are blocked), throttled_address (the address is blocked).",
		}, []string{"tenant", "reason"}),
	}
	m.Registry.MustRegister(m.signIns, m.passwordFailures, m.requests, m.duration, m.rateLimited, m.limiterFailOpen, m.authFailures, m.readyRedisDown, m.readyNodesDown,
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

// MetricsRouter serves a process without the API, `learngate worker`:
// GET /healthz (200 while the process is up) and GET /metrics of registry
// behind the ops token; 404 for the rest.
func MetricsRouter(registry *prometheus.Registry, opsToken string) *gin.Engine {
	s := &Server{OpsToken: opsToken}
	r := gin.New()
	r.Use(gin.Recovery())
	r.GET("/healthz", s.healthz)
	r.GET("/metrics", s.opsAuth, gin.WrapH(promhttp.HandlerFor(registry, promhttp.HandlerOpts{})))
	r.NoRoute(notFound)
	return r
}

// LimiterFailedOpen counts one rate-limit check let through on a store failure.
func (m *Metrics) LimiterFailedOpen() { m.limiterFailOpen.Inc() }
