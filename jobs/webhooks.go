package jobs

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river"

	"learngate"
	"learngate/store"
	"learngate/webhook"
)

// DefaultWebhookRetries is the retry schedule of docs/decisions.md, "Webhooks":
// the waits after the 1st to 7th failed attempt (8 attempts in all), each
// with ±10% jitter.
var DefaultWebhookRetries = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// Webhook delivery limits.
const (
	// DefaultWebhookWorkers bounds the endpoints drained at once.
	DefaultWebhookWorkers = 20
	// webhookFailingLimit: an endpoint failing that long is disabled.
	webhookFailingLimit = 5 * 24 * time.Hour
	// webhookLease is how long a drainer holds an endpoint without
	// recording an attempt; longer than one attempt can take.
	webhookLease = 2 * time.Minute
	// webhookSlice is how long one drain job sends before it yields its
	// worker slot to other endpoints (it comes back at once).
	webhookSlice = 30 * time.Second
	// webhookBatch is how many due deliveries are read at a time.
	webhookBatch = 50
	// webhookFlush is how long successful attempts may wait to be recorded.
	webhookFlush = time.Second
	// webhookJobTimeout bounds a drain job: a slice plus one attempt.
	webhookJobTimeout = 2 * time.Minute
)

// webhookWorker works deliver_webhooks jobs: it drains one endpoint's due
// deliveries in the order they were recorded, one at a time.
type webhookWorker struct {
	river.WorkerDefaults[store.DeliverWebhooksArgs]
	db      *store.DB
	sender  *webhook.Sender
	retries []time.Duration
	now     func() time.Time
	logger  *slog.Logger
	// unrecorded holds attempts made but not recorded (webhooks_unrecorded.go).
	unrecorded unrecordedAttempts
}

// Timeout lets a drain run its slice and finish its last attempt.
func (w *webhookWorker) Timeout(*river.Job[store.DeliverWebhooksArgs]) time.Duration {
	return webhookJobTimeout
}

// Work drains the endpoint while it holds its lease. It ends at once when
// another job holds the lease (that drainer sends the new deliveries too).
// It comes back (river.JobSnooze) for the earliest retry or the end of a
// pause, after its time slice, and when interrupted by a shutdown; an
// interrupted attempt is not recorded and is made again.
func (w *webhookWorker) Work(ctx context.Context, job *river.Job[store.DeliverWebhooksArgs]) error {
	// An inactive tenant's drain ends: webhook maintenance queues it again
	// once the tenant is active.
	tn, tdb, run, err := jobTenant(ctx, w.db, job.Args.Schema, skipIfInactive, nil)
	if !run {
		return err
	}
	owner := w.unrecorded.owner(endpointKey(tdb.Schema(), job.Args.EndpointID))
	if owner == "" {
		owner = newOwner()
	}
	d := &drain{w: w, tdb: tdb, slug: tn.Slug, id: job.Args.EndpointID, owner: owner, start: time.Now()}
	return d.run(ctx)
}

// drain is one job's drain of one endpoint.
type drain struct {
	w     *webhookWorker
	tdb   *store.TenantDB
	slug  string
	id    int64
	owner string
	start time.Time
}

// newOwner names a drainer in the endpoint's lease.
func newOwner() string {
	b := make([]byte, 12)
	_, _ = crand.Read(b)
	return hex.EncodeToString(b)
}

func (d *drain) run(ctx context.Context) error {
	for {
		got, err := store.AcquireWebhookLease(ctx, d.tdb, d.id, d.owner, d.w.now(), webhookLease)
		if err != nil || !got {
			return err
		}
		if err := d.recordKept(ctx); err != nil {
			return err // the lease stays: nothing is sent again meanwhile
		}
		yield, err := d.pass(ctx)
		if errors.Is(err, errNotRecorded) {
			return err // the lease stays: nothing is sent again meanwhile
		}
		if err != nil {
			d.release()
			return err
		}
		if yield {
			d.release()
			return river.JobSnooze(0)
		}
		dueNow, wake, err := d.releaseLease(ctx)
		switch {
		case err != nil:
			return err
		case dueNow && ctx.Err() == nil && time.Since(d.start) < webhookSlice:
			continue
		case dueNow:
			return river.JobSnooze(0)
		case wake > 0:
			return river.JobSnooze(wake)
		}
		return nil
	}
}

// releaseLease gives up the lease, even when ctx is cancelled, so that the
// next drainer need not wait for it to expire (see store.ReleaseWebhookLease).
func (d *drain) releaseLease(ctx context.Context) (bool, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return store.ReleaseWebhookLease(ctx, d.tdb, d.id, d.owner, d.w.now())
}

// release gives up the lease after a failure or an interruption.
func (d *drain) release() {
	if _, _, err := d.releaseLease(context.Background()); err != nil {
		d.w.logger.Warn("webhook lease not released", "schema", d.tdb.Schema(), "webhook", d.id, "err", err)
	}
}

// pass sends due deliveries until none is left, the endpoint is paused or
// disabled, or the lease is lost. yield is true when the job must come back
// at once instead: its slice is over or the worker is stopping.
//
// Successful attempts are recorded in batches (at the end of each batch of
// due deliveries, and at least every webhookFlush); a failure is recorded
// at once with them, since it changes what is sent next. A worker that dies
// between two records sends those deliveries again, with the same
// webhook-id: deliveries are at least once.
func (d *drain) pass(ctx context.Context) (yield bool, err error) {
	var done []store.AttemptRecord
	var since time.Time
	// record stores the attempts made; false when the drain must stop.
	record := func() (bool, error) {
		recs := append([]store.AttemptRecord(nil), done...)
		done = done[:0]
		// Attempts made are recorded even when the worker is stopping, and
		// never sent again because their record failed.
		held, err := d.recordPatiently(ctx, recs)
		return held && err == nil, err
	}
	for {
		ep, due, ok, err := store.DueWebhookDeliveries(ctx, d.tdb, d.id, d.w.now(), webhookBatch)
		if err != nil || !ok || !ep.Enabled || len(due) == 0 {
			return false, err
		}
		if ep.PausedUntil != nil && ep.PausedUntil.After(d.w.now()) {
			return false, nil
		}
		for _, dd := range due {
			if ctx.Err() != nil || time.Since(d.start) >= webhookSlice {
				_, err := record()
				return err == nil, err
			}
			rec := d.attempt(ctx, &ep, dd)
			if rec == nil { // interrupted: not recorded, sent again
				_, err := record()
				return err == nil, err
			}
			if len(done) == 0 {
				since = time.Now()
			}
			done = append(done, *rec)
			if rec.Succeeded && time.Since(since) < webhookFlush {
				continue
			}
			if goOn, err := record(); !goOn {
				return false, err
			}
			if rec.Disable != "" || rec.PauseUntil != nil {
				return false, nil
			}
		}
		if goOn, err := record(); !goOn {
			return false, err
		}
	}
}

// envelope is the body of every delivery (docs/decisions.md, "Webhooks").
type envelope struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	CreatedAt    string          `json:"created_at"`
	Organisation string          `json:"organisation"`
	Data         json.RawMessage `json:"data"`
}

// attempt sends dd to ep and decides its outcome; nil when the worker's
// context ended during the attempt.
func (d *drain) attempt(ctx context.Context, ep *store.DrainEndpoint, dd store.DueDelivery) *store.AttemptRecord {
	res := d.w.sender.Send(ctx, webhook.Message{URL: ep.URL, ID: dd.EventID, Timestamp: d.w.now(),
		Body: d.body(dd), Secrets: ep.Secrets})
	if ctx.Err() != nil {
		return nil
	}
	now := d.w.now()
	rec := d.w.outcome(*ep, dd, res, now)
	rec.DeliveryID = dd.ID
	if rec.Succeeded {
		ep.FailingSince = nil
	} else if ep.FailingSince == nil {
		ep.FailingSince = &now
	}
	level := slog.LevelDebug
	if !rec.Succeeded {
		level = slog.LevelWarn
	}
	d.w.logger.Log(ctx, level, "webhook attempt", "tenant", d.slug, "webhook", ep.ID, "delivery", dd.ID,
		"event", dd.EventID, "type", dd.EventType, "attempt", dd.Attempts+1, "status", res.StatusCode,
		"duration_ms", res.Duration.Milliseconds(), "error", rec.Error, "detail", res.Err)
	return &rec
}

// body is the request body of dd's event (docs/decisions.md, "Webhooks"): the
// same bytes on every attempt.
func (d *drain) body(dd store.DueDelivery) []byte {
	// Marshalling strings and a valid json.RawMessage cannot fail.
	b, _ := json.Marshal(envelope{ID: dd.EventID, Type: dd.EventType,
		CreatedAt: dd.EventAt.UTC().Format(learngate.TimestampLayout), Organisation: d.slug, Data: dd.Data})
	return b
}

// outcome decides what an attempt's result means (docs/decisions.md, "Webhooks"):
// 2xx succeeds; 410 fails the delivery and disables the endpoint; any other
// failure retries on the schedule (at least as late as a Retry-After, which
// also pauses the endpoint) until the attempts are spent; an endpoint whose
// failures go back webhookFailingLimit is disabled.
func (w *webhookWorker) outcome(ep store.DrainEndpoint, dd store.DueDelivery, res webhook.Result, now time.Time) store.AttemptRecord {
	rec := store.AttemptRecord{At: now, StatusCode: res.StatusCode, Duration: res.Duration}
	if res.Err == nil {
		rec.Succeeded = true
		return rec
	}
	// The tenant reads a fixed reason; the detail (which may name the
	// service's resolver or proxies) goes to the log only (see attempt).
	rec.Error = res.Reason
	if rec.Error == "" {
		rec.Error = webhook.ReasonFailed
	}
	attempts := dd.Attempts + 1
	limit := 1 + len(w.retries)
	if dd.MaxAttempts != nil {
		limit = *dd.MaxAttempts
	}
	if res.RetryAfter > 0 {
		pause := now.Add(res.RetryAfter)
		rec.PauseUntil = &pause
	}
	switch {
	case res.StatusCode == 410:
		rec.Disable = "the endpoint answered 410 Gone"
	case attempts < limit && len(w.retries) > 0:
		wait := w.retries[min(attempts, len(w.retries))-1]
		next := now.Add(jitter(wait))
		if rec.PauseUntil != nil && rec.PauseUntil.After(next) {
			next = *rec.PauseUntil
		}
		rec.NextAttemptAt = &next
	}
	if since := ep.FailingSince; rec.Disable == "" && since != nil && now.Sub(*since) >= webhookFailingLimit {
		rec.Disable = "failing for 5 days"
		rec.NextAttemptAt = nil
	}
	return rec
}

// jitter spreads d by ±10%.
func jitter(d time.Duration) time.Duration {
	return d + time.Duration((rand.Float64()*0.2-0.1)*float64(d))
}

// webhookMaintenanceTimeout bounds one maintenance run over every tenant.
const webhookMaintenanceTimeout = 5 * time.Minute

// webhookMaintenanceWorker runs store.WebhookMaintenance once a minute in
// every active tenant whose webhook work is due (see sweepDue and
// store.NextDue): deliveries older than 30 days are purged and endpoints
// left with due deliveries by a dead worker are drained again.
type webhookMaintenanceWorker struct {
	river.WorkerDefaults[store.WebhookMaintenanceArgs]
	db      *store.DB
	logger  *slog.Logger
	metrics *workerMetrics // nil: no metrics
}

// Timeout lets a run over many tenants take longer than River's default minute.
func (w *webhookMaintenanceWorker) Timeout(*river.Job[store.WebhookMaintenanceArgs]) time.Duration {
	return webhookMaintenanceTimeout
}

// Work maintains each active tenant with webhook work due; one failing
// tenant does not stop the others, and the job then fails with every
// tenant's error. With metrics, it also measures the webhook delivery lag
// of every tenant it visits (store.WebhookDeliveryLag) and records the
// largest: a tenant with a pending delivery due stays due until it is
// delivered, so every tenant that has a lag is visited.
func (w *webhookMaintenanceWorker) Work(ctx context.Context, _ *river.Job[store.WebhookMaintenanceArgs]) error {
	var lag time.Duration
	err := sweepDue(ctx, w.db, store.DueWebhooks, time.Now(), func(schema string, tdb *store.TenantDB) error {
		purged, requeued, err := store.WebhookMaintenance(ctx, tdb, time.Now())
		if purged > 0 || requeued > 0 {
			w.logger.InfoContext(ctx, "webhook maintenance", "schema", schema, "events_purged", purged, "webhooks_requeued", requeued)
		}
		if err != nil || w.metrics == nil {
			return err
		}
		tenantLag, err := store.WebhookDeliveryLag(ctx, tdb, time.Now())
		lag = max(lag, tenantLag)
		return err
	})
	if w.metrics != nil && err == nil {
		w.metrics.sweptWebhooks(lag)
	}
	return err
}
