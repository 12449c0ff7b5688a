package main

import (
	"context"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func workerCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "worker",
		Short: "Run the background worker alone",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			a, err := openApp(ctx)
			if err != nil {
				return err
			}
			defer a.close()
			go a.registry.Run(ctx)
			runWorker(ctx, a)
			return nil
		},
	}
}

// runWorker runs background work until ctx ends. No job kinds exist yet:
// the job queue (River) arrives with the first job, invitations (issue 3).
func runWorker(ctx context.Context, a *app) {
	a.logger.Info("worker started; no background job kinds are defined yet")
	<-ctx.Done()
	a.logger.Info("worker stopped")
}
