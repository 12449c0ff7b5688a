package jobs_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"learngate"
	"learngate/jobs"
	"learngate/store"
	"learngate/store/list"
	"learngate/webhook"
	"learngate/webhook/webhooktest"
)

// allowPrivate is the policy of the tests' local receivers.
var allowPrivate = webhook.Policy{AllowPrivate: true}

// quickRetries replace the hours of docs/decisions.md, "Webhooks" in tests: the
// same number of attempts (8), a few milliseconds apart.
var quickRetries = []time.Duration{
	50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond,
	50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond,
}

// receiver, delivery and answer are webhooktest's, named for these tests.
type (
	receiver = webhooktest.Receiver
	delivery = webhooktest.Request
	answer   = webhooktest.Answer
)

// newReceiver starts a webhooktest receiver.
func newReceiver(t *testing.T, script func(n int) answer) *receiver {
	return webhooktest.NewReceiver(t, script)
}

// verifySignatures is webhooktest.VerifySignatures.
func verifySignatures(t *testing.T, d delivery, secrets ...string) []string {
	t.Helper()
	return webhooktest.VerifySignatures(t, d, secrets...)
}

// newWebhook registers an endpoint of tdb for events at url.
func newWebhook(t *testing.T, tdb *store.TenantDB, url string, events ...string) learngate.Webhook {
	t.Helper()
	w, err := store.CreateWebhook(context.Background(), tdb, learngate.WebhookInput{URL: &url, Events: events}, allowPrivate, time.Now())
	if err != nil {
		t.Fatalf("create webhook: %v", err)
	}
	return w
}

// webhookWorker starts a worker for the webhook tests: private addresses
// allowed, and quick retries unless cfg gives some.
func webhookWorker(t *testing.T, cfg jobs.Config) *runningWorker {
	t.Helper()
	cfg.WebhookPolicy = allowPrivate
	if cfg.WebhookRetries == nil {
		cfg.WebhookRetries = quickRetries
	}
	return startWorker(t, cfg)
}

// listDeliveries returns the deliveries of webhook id, newest first.
func listDeliveries(t *testing.T, tdb *store.TenantDB, id int64) []learngate.Delivery {
	t.Helper()
	ds, _, err := store.ListWebhookDeliveries(context.Background(), tdb, id, list.Page{Number: 1, Size: 100})
	if err != nil {
		t.Fatalf("list deliveries: %v", err)
	}
	return ds
}

// waitDelivery waits until the newest delivery of webhook id has status.
func waitDelivery(t *testing.T, tdb *store.TenantDB, id int64, status string) learngate.Delivery {
	t.Helper()
	var d learngate.Delivery
	waitFor(t, 20*time.Second, "a "+status+" delivery", func() bool {
		ds := listDeliveries(t, tdb, id)
		if len(ds) == 0 {
			return false
		}
		d = ds[0]
		return d.Status == status
	})
	return d
}

// jsonMarshal and jsonUnmarshal are encoding/json's, named for the tests' reading.
var (
	jsonMarshal   = json.Marshal
	jsonUnmarshal = json.Unmarshal
)
