package main

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"learngate/jobs"
	"learngate/webhook"
)

func workerCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "worker",
		Short: "Run the background worker alone (invitation emails, certificates, webhooks, scheduled deactivation and reactivation, recertification)",
		Args:  cobra.NoArgs,
		RunE: withApp(func(ctx context.Context, a *app, _ []string) error {
			if err := a.requireSecrets(); err != nil {
				return err
			}
			reg := workerRegistry(a)
			if a.cfg.WorkerMetricsAddr != "" {
				if err := serveWorkerMetrics(ctx, a, reg); err != nil {
					return err
				}
			}
			go a.registry.Run(ctx)
			return runWorker(ctx, a, a.blobs, reg)
		}),
	}
}

// runWorker works background jobs until ctx ends, then stops after the
// running jobs (waiting up to LEARNGATE_SHUTDOWN_GRACE). It fails when the
// database has not been migrated. Certificates go to blobs; the worker's
// metrics to reg.
func runWorker(ctx context.Context, a *app, blobs blobStores, reg prometheus.Registerer) error {
	w, err := jobs.New(jobs.Config{
		DB:            a.db,
		Logger:        a.logger,
		Mailer:        jobs.MailerFor(a.cfg, a.logger),
		Links:         jobs.Links{Scheme: a.cfg.PublicScheme, BaseDomain: a.cfg.BaseDomains[0], Port: a.cfg.PublicPort},
		StopTimeout:   a.cfg.ShutdownGrace,
		WebhookPolicy: webhook.Policy{AllowPrivate: a.cfg.WebhookAllowPrivate},
		Blobs:         blobs.store,
		Metrics:       reg,
	})
	if err != nil {
		return err
	}
	return w.Run(ctx)
}
