// Package jobs is learngate's background worker: a River client that works
// the jobs the store queues inside its transactions (invitation emails,
// webhook deliveries, certificates) and the periodic ones (scheduled
// deactivation and reactivation, pathway recertification, webhook
// maintenance, the purge of expired certificates and learner sessions, the
// users list's rank anchors). Later issues add their job kinds here.
//
// River runs on its database/sql driver over the store's lib/pq pool, in
// poll-only mode (that driver has no LISTEN/NOTIFY): the worker looks for
// new jobs every PollInterval. River's tables live in store.JobSchema.
package jobs

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"

	"learngate/blob"
	"learngate/store"
	"learngate/store/list"
	"learngate/webhook"
)

// Defaults of Config.
const (
	DefaultPollInterval = time.Second
	DefaultMaxWorkers   = 10
	DefaultStopTimeout  = 25 * time.Second
)

// Config is what the worker needs. DB, Links and Blobs are required.
type Config struct {
	DB     *store.DB
	Logger *slog.Logger
	// Blobs stores certificate PDFs.
	Blobs blob.Store
	// Events records certificate.completed and certificate.failed in the
	// transaction that finishes a job; nil: the webhooks (tests pass their own).
	Events store.EventRecorder
	// Mailer delivers invitations; nil writes them to the log.
	Mailer Mailer
	// Links builds the tenant addresses that emails point to.
	Links Links
	// Now is the clock of the periodic sweeps (scheduled (de)activation,
	// recertification), of certificate jobs' expiry and of the certificate
	// purge; nil: time.Now.
	Now func() time.Time
	// PollInterval is how often the worker looks for new jobs.
	PollInterval time.Duration
	// MaxWorkers bounds the jobs worked at once.
	MaxWorkers int
	// StopTimeout is how long Run waits for running jobs on shutdown before
	// it cancels them.
	StopTimeout time.Duration
	// RetryPolicy decides when a failed job runs again; nil: River's default
	// (attempt^4 seconds with jitter). Tests shorten it.
	RetryPolicy river.ClientRetryPolicy
	// WebhookPolicy says where webhooks may go (LEARNGATE_WEBHOOK_ALLOW_PRIVATE).
	WebhookPolicy webhook.Policy
	// WebhookRetries are the waits after each failed webhook attempt; nil:
	// DefaultWebhookRetries. Tests shorten them.
	WebhookRetries []time.Duration
	// WebhookTimeout bounds one webhook attempt; 0: webhook.DefaultTimeout.
	WebhookTimeout time.Duration
	// WebhookWorkers bounds the endpoints drained at once.
	WebhookWorkers int
	// Metrics, when set, receives the worker's Prometheus metrics: job
	// counts by kind and state, failed attempts, the webhook delivery lag.
	Metrics prometheus.Registerer
}

// Worker is the River client that works learngate's jobs.
type Worker struct {
	cfg     Config
	logger  *slog.Logger
	client  *river.Client[*sql.Tx]
	metrics *workerMetrics // nil without Config.Metrics
}

// New builds the worker; Run starts it.
func New(cfg Config) (*Worker, error) {
	if cfg.DB == nil {
		return nil, fmt.Errorf("jobs: no database")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Blobs == nil {
		return nil, fmt.Errorf("jobs: no blob store for certificates")
	}
	if cfg.Mailer == nil {
		cfg.Mailer = LogMailer{Logger: cfg.Logger}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.PollInterval = cmp.Or(cfg.PollInterval, DefaultPollInterval)
	cfg.MaxWorkers = cmp.Or(cfg.MaxWorkers, DefaultMaxWorkers)
	cfg.StopTimeout = cmp.Or(cfg.StopTimeout, DefaultStopTimeout)
	cfg.WebhookWorkers = cmp.Or(cfg.WebhookWorkers, DefaultWebhookWorkers)
	if cfg.WebhookRetries == nil {
		cfg.WebhookRetries = DefaultWebhookRetries
	}
	if err := cfg.Links.validate(); err != nil {
		return nil, err
	}
	var metrics *workerMetrics
	if cfg.Metrics != nil {
		var err error
		if metrics, err = newWorkerMetrics(cfg.Metrics, cfg.DB, cfg.Logger); err != nil {
			return nil, fmt.Errorf("jobs: metrics: %w", err)
		}
	}

	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &invitationWorker{db: cfg.DB, mailer: cfg.Mailer, links: cfg.Links, logger: cfg.Logger}); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &activationWorker{db: cfg.DB, now: cfg.Now, logger: cfg.Logger}); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &recertifyWorker{db: cfg.DB, now: cfg.Now, logger: cfg.Logger}); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &webhookWorker{db: cfg.DB, sender: webhook.NewSender(cfg.WebhookPolicy, cfg.WebhookTimeout),
		retries: cfg.WebhookRetries, now: time.Now, logger: cfg.Logger}); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &webhookMaintenanceWorker{db: cfg.DB, logger: cfg.Logger, metrics: metrics}); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &certificateWorker{db: cfg.DB, blobs: cfg.Blobs, events: cfg.Events, now: cfg.Now, logger: cfg.Logger}); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &certificatePurgeWorker{db: cfg.DB, blobs: cfg.Blobs, now: cfg.Now, logger: cfg.Logger}); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	anchors := &rankAnchorsWorker{db: cfg.DB, logger: cfg.Logger}
	if err := river.AddWorkerSafely(workers, anchors); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &userRankWorker{anchors: anchors}); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &idempotencyPurgeWorker{db: cfg.DB, logger: cfg.Logger}); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &tenantMoveWorker{db: cfg.DB, logger: cfg.Logger}); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &webSessionPurgeWorker{db: cfg.DB, now: cfg.Now, logger: cfg.Logger}); err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	client, err := river.NewClient(riverdatabasesql.New(cfg.DB.Pool().DB), &river.Config{
		Schema:            store.JobSchema,
		Logger:            cfg.Logger,
		PollOnly:          true,
		FetchPollInterval: cfg.PollInterval,
		FetchCooldown:     min(cfg.PollInterval, river.FetchCooldownDefault),
		Queues: map[string]river.QueueConfig{
			river.QueueDefault: {MaxWorkers: cfg.MaxWorkers},
			store.WebhookQueue: {MaxWorkers: cfg.WebhookWorkers},
		},
		Workers:      workers,
		PeriodicJobs: periodicJobs(),
		RetryPolicy:  cfg.RetryPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	return &Worker{cfg: cfg, logger: cfg.Logger, client: client, metrics: metrics}, nil
}

// periodicJobs are the jobs River's leader queues on a schedule.
func periodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{
		river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
			func() (river.JobArgs, *river.InsertOpts) { return store.ScheduledActivationArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
			func() (river.JobArgs, *river.InsertOpts) { return store.RecertifyArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
			func() (river.JobArgs, *river.InsertOpts) { return store.WebhookMaintenanceArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
			func() (river.JobArgs, *river.InsertOpts) { return list.RankAnchorsArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(store.CertificatePurgeInterval),
			func() (river.JobArgs, *river.InsertOpts) { return store.CertificatePurgeArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(store.IdempotencyPurgeInterval),
			func() (river.JobArgs, *river.InsertOpts) { return store.IdempotencyPurgeArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(store.WebSessionPurgeInterval),
			func() (river.JobArgs, *river.InsertOpts) { return store.WebSessionPurgeArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true}),
	}
}

// Run works jobs until ctx ends, then stops fetching and waits for the
// running jobs to finish (up to StopTimeout, after which their contexts are
// cancelled). It fails at once when River's tables are missing.
func (w *Worker) Run(ctx context.Context) error {
	if err := w.cfg.DB.CheckJobTables(ctx); err != nil {
		return err
	}
	if w.metrics != nil {
		events, unsubscribe := w.client.Subscribe(river.EventKindJobFailed)
		defer unsubscribe()
		go w.metrics.countFailures(events)
	}
	// Jobs must not inherit ctx: cancelling it would abort running jobs.
	if err := w.client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	w.logger.Info("worker started", "poll_interval", w.cfg.PollInterval, "max_workers", w.cfg.MaxWorkers,
		"mail", w.cfg.Mailer.String(), "blobs", w.cfg.Blobs.String())
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.Background(), w.cfg.StopTimeout)
	defer cancel()
	if err := w.client.Stop(stopCtx); err != nil {
		w.logger.Warn("worker: jobs still running at the stop timeout; cancelling them", "timeout", w.cfg.StopTimeout)
		hardCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = w.client.StopAndCancel(hardCtx)
	}
	w.logger.Info("worker stopped")
	return nil
}
