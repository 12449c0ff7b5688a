package main

import (
	"context"

	"github.com/spf13/cobra"
)

func workerCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "worker",
		Short: "Run the background worker alone",
		Args:  cobra.NoArgs,
		RunE: withApp(func(ctx context.Context, a *app, _ []string) error {
			go a.registry.Run(ctx)
			runWorker(ctx, a)
			return nil
		}),
	}
}

// runWorker runs background work until ctx ends. No job kinds exist yet:
// the job queue (River) arrives with the first job, invitations (issue 3).
func runWorker(ctx context.Context, a *app) {
	a.logger.Info("worker started; no background job kinds are defined yet")
	<-ctx.Done()
	a.logger.Info("worker stopped")
}
