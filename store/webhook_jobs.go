package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
)

// Webhook job kinds. A kind is stored in every queued job: never rename one.
const (
	// KindDeliverWebhooks drains one endpoint's due deliveries, in order.
	KindDeliverWebhooks = "deliver_webhooks"
	// KindWebhookMaintenance purges old deliveries and requeues stranded endpoints.
	KindWebhookMaintenance = "webhook_maintenance"
)

// WebhookQueue is the River queue of webhook deliveries: HTTP calls to
// customers get worker slots of their own, apart from emails.
const WebhookQueue = "webhooks"

// deliverWebhooksMaxAttempts bounds River's own retries of a drain job, for
// failures of the worker or the database (not of the receiver: those are
// scheduled per delivery).
const deliverWebhooksMaxAttempts = 10

// DeliverWebhooksArgs are the arguments of a deliver_webhooks job: the
// tenant schema and the endpoint whose due deliveries to send. Any number
// of these may be queued for one endpoint; the endpoint's lease lets one
// run at a time and the others end at once.
type DeliverWebhooksArgs struct {
	Schema     string `json:"schema"`
	EndpointID int64  `json:"endpoint_id"`
}

// Kind is the job kind of DeliverWebhooksArgs.
func (DeliverWebhooksArgs) Kind() string { return KindDeliverWebhooks }

// InsertOpts puts drain jobs on WebhookQueue.
func (DeliverWebhooksArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: WebhookQueue, MaxAttempts: deliverWebhooksMaxAttempts}
}

// WebhookMaintenanceArgs are the (empty) arguments of the periodic job that
// purges deliveries older than WebhookRetention and requeues endpoints
// whose due deliveries have no drain job (a worker died mid-drain).
type WebhookMaintenanceArgs struct{}

// Kind is the job kind of WebhookMaintenanceArgs.
func (WebhookMaintenanceArgs) Kind() string { return KindWebhookMaintenance }

// InsertOpts keeps at most one run per minute.
func (WebhookMaintenanceArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: time.Minute}}
}

// queueDrains queues, inside tx, one deliver_webhooks job per endpoint of
// endpointIDs, in one statement.
func (t *TenantDB) queueDrains(ctx context.Context, tx *sqlx.Tx, endpointIDs []int64) error {
	if len(endpointIDs) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(endpointIDs))
	for i, id := range endpointIDs {
		params[i] = river.InsertManyParams{Args: DeliverWebhooksArgs{Schema: t.schema, EndpointID: id}}
	}
	if _, err := t.db.jobs.InsertManyTx(ctx, tx.Tx, params); err != nil {
		return fmt.Errorf("queue webhook deliveries: %w", err)
	}
	return nil
}
