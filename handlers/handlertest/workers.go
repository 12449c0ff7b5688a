package handlertest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"learngate/blob"
	"learngate/jobs"
	"learngate/store"
	"learngate/webhook"
)

// workerLinks are the download links a test worker writes into events.
var workerLinks = jobs.Links{Scheme: "http", BaseDomain: "learngate.localhost"}

// StartWebhookWorker runs the real jobs worker over db and blobs until the
// test ends: quick to poll (50 ms) and to retry (twice, 50 ms apart), with
// webhook URLs on this machine allowed. now is the clock of its periodic
// sweeps (nil: the real one). The node's own registration policy must
// allow local URLs too.
func StartWebhookWorker(t *testing.T, db *store.DB, blobs blob.Store, now func() time.Time) {
	t.Helper()
	runWorker(t, jobs.Config{DB: db, Blobs: blobs, Links: workerLinks, Now: now,
		PollInterval: 50 * time.Millisecond, WebhookPolicy: webhook.Policy{AllowPrivate: true},
		WebhookRetries: []time.Duration{50 * time.Millisecond, 50 * time.Millisecond}})
}

// StartCertificateWorker runs the real jobs worker (poll interval 50 ms,
// no log) over db and blobs until the test ends; now is its clock.
func StartCertificateWorker(t *testing.T, db *store.DB, blobs blob.Store, now func() time.Time) {
	t.Helper()
	runWorker(t, jobs.Config{DB: db, Blobs: blobs, Now: now, PollInterval: 50 * time.Millisecond,
		Links: workerLinks, Logger: slog.New(slog.DiscardHandler)})
}

// runWorker runs a worker of cfg until the test ends, failing the test
// when it cannot start or ends with an error.
func runWorker(t *testing.T, cfg jobs.Config) {
	t.Helper()
	w, err := jobs.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v", err)
		}
	})
}
