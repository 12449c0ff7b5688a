package jobs

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"

	"learngate/store"
	"learngate/store/list"
)

// Kinds are the job kinds the worker works, in the order of its metrics.
var Kinds = []string{
	store.KindSendInvitation, store.KindScheduledActivation, store.KindRecertify, store.KindDeliverWebhooks,
	store.KindWebhookMaintenance, store.KindCertificate, store.KindCertificatePurge, list.KindRankAnchors, list.KindUserRank,
	store.KindIdempotencyPurge, store.KindWebSessionPurge,
}

const (
	// jobStatsTTL is how long one count of river_job serves scrapes: several
	// Prometheus servers, or a fast scrape interval, cost one query per TTL.
	jobStatsTTL = 10 * time.Second
	// jobStatsTimeout bounds that query: a slow database delays a scrape,
	// and then the job gauges are left out of it, nothing else.
	jobStatsTimeout = 2 * time.Second
	// lagFreshFor is how long the webhook delivery lag of the last
	// maintenance sweep is reported. The sweep runs once a minute on one
	// worker of the cluster; a worker that has not run it lately reports
	// no value, so `max` over the workers is at most a minute old, and the
	// series disappears when no worker sweeps any more.
	lagFreshFor = 3 * time.Minute
)

var (
	jobsDesc = prometheus.NewDesc("learngate_jobs",
		"River jobs by kind and state (available, scheduled, retryable, running; discarded: failed for good, kept 7 days), "+
			"counted in the database: the same on every worker.", []string{"kind", "state"}, nil)
	jobWaitDesc = prometheus.NewDesc("learngate_job_queue_wait_seconds",
		"How long the oldest available job of a kind has waited to be picked up (0 when none waits).", []string{"kind"}, nil)
	webhookLagDesc = prometheus.NewDesc("learngate_webhook_delivery_lag_seconds",
		"How long the most overdue webhook delivery, over all active tenants, has waited past its due time, "+
			"as found by the last webhook maintenance sweep of this worker (reported for 3 minutes after it).", nil, nil)
)

// workerMetrics are the worker's Prometheus metrics: a counter of failed
// job attempts (River's events of this process) and a collector that reads
// the queue from river_job and reports the last sweep's webhook lag.
type workerMetrics struct {
	db       *store.DB
	logger   *slog.Logger
	now      func() time.Time
	failures *prometheus.CounterVec

	mu        sync.Mutex
	counts    []store.JobCount
	countedAt time.Time
	lag       time.Duration
	lagAt     time.Time
}

// newWorkerMetrics registers the worker's metrics in reg.
func newWorkerMetrics(reg prometheus.Registerer, db *store.DB, logger *slog.Logger) (*workerMetrics, error) {
	m := &workerMetrics{db: db, logger: logger, now: time.Now,
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "learngate_job_failures_total",
			Help: "Job attempts that failed (an error, a panic or a timeout) in this worker, by kind; River retries them until their last attempt.",
		}, []string{"kind"})}
	for _, k := range Kinds {
		m.failures.WithLabelValues(k)
	}
	for _, c := range []prometheus.Collector{m.failures, m} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Describe sends the collector's descriptions.
func (m *workerMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- jobsDesc
	ch <- jobWaitDesc
	ch <- webhookLagDesc
}

// Collect reports the job counts (at most jobStatsTTL old; left out when
// the database cannot be read) and the fresh webhook lag.
func (m *workerMetrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if m.countedAt.IsZero() || now.Sub(m.countedAt) >= jobStatsTTL {
		ctx, cancel := context.WithTimeout(context.Background(), jobStatsTimeout)
		counts, err := m.db.JobCounts(ctx)
		cancel()
		if err != nil {
			m.logger.Warn("metrics: job counts left out of this scrape", "err", err)
			m.counts, m.countedAt = nil, time.Time{}
		} else {
			m.counts, m.countedAt = counts, now
		}
	}
	if !m.countedAt.IsZero() {
		m.collectCounts(ch)
	}
	if !m.lagAt.IsZero() && now.Sub(m.lagAt) <= lagFreshFor {
		ch <- prometheus.MustNewConstMetric(webhookLagDesc, prometheus.GaugeValue, m.lag.Seconds())
	}
}

// collectCounts sends every known kind in every state (0 when absent, so
// that a queue that empties reads 0, not "no data") and any other kind found.
func (m *workerMetrics) collectCounts(ch chan<- prometheus.Metric) {
	type key struct{ kind, state string }
	found := make(map[key]store.JobCount, len(m.counts))
	kinds := append([]string(nil), Kinds...)
	for _, c := range m.counts {
		if !slices.Contains(kinds, c.Kind) {
			kinds = append(kinds, c.Kind)
		}
		found[key{c.Kind, c.State}] = c
	}
	for _, kind := range kinds {
		for _, state := range store.JobStates {
			ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(found[key{kind, state}].Count), kind, state)
		}
		wait := found[key{kind, "available"}].OldestWait
		ch <- prometheus.MustNewConstMetric(jobWaitDesc, prometheus.GaugeValue, wait.Seconds(), kind)
	}
}

// sweptWebhooks records the lag the maintenance sweep found.
func (m *workerMetrics) sweptWebhooks(lag time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lag, m.lagAt = lag, m.now()
}

// countFailures counts the failed attempts River reports until events closes.
func (m *workerMetrics) countFailures(events <-chan *river.Event) {
	for e := range events {
		if e.Kind == river.EventKindJobFailed && e.Job != nil {
			m.failures.WithLabelValues(e.Job.Kind).Inc()
		}
	}
}
