package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

// moveProgressEvery is how often `learngate tenant move` prints progress.
const moveProgressEvery = 2 * time.Second

// tenantMoveCommand is `learngate tenant move SLUG --node HOST:PORT`: on a
// Citus cluster, moves the tenant's schema to another worker in this
// process (POST /ops/v1/tenants/{slug}/move queues the same move for a
// worker instead), printing its progress.
func tenantMoveCommand() *cobra.Command {
	var node string
	cmd := &cobra.Command{
		Use:   "move SLUG --node HOST:PORT",
		Short: "Move a tenant's data to another Citus worker node, online",
		Args:  cobra.ExactArgs(1),
		RunE: withApp(func(ctx context.Context, a *app, args []string) error {
			if node == "" {
				return fmt.Errorf("--node HOST:PORT is required")
			}
			t, err := a.registry.Show(ctx, args[0])
			if err != nil {
				return err
			}
			done := make(chan struct{})
			go printMoveProgress(ctx, a, t.Schema, done)
			start := time.Now()
			from, err := a.registry.MoveNow(ctx, args[0], node)
			close(done)
			if err != nil {
				return err
			}
			fmt.Printf("moved tenant %s from %s to %s in %s\n", args[0], from, node, time.Since(start).Round(time.Millisecond))
			return nil
		}),
	}
	cmd.Flags().StringVar(&node, "node", "", "the target worker node, host:port as database_node shows them")
	return cmd
}

// printMoveProgress prints the bytes copied of schema's move every
// moveProgressEvery until done is closed.
func printMoveProgress(ctx context.Context, a *app, schema string, done <-chan struct{}) {
	tick := time.NewTicker(moveProgressEvery)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
			if p, ok, err := a.db.SchemaMoveProgress(ctx, schema); err == nil && ok {
				fmt.Printf("copied %d of %d bytes\n", p.TargetBytes, p.SourceBytes)
			}
		}
	}
}

// tenantRebalanceCommand is `learngate tenant rebalance`: Citus's
// rebalance of tenant schemas over the workers by size, each move online.
func tenantRebalanceCommand() *cobra.Command {
	var wait bool
	cmd := &cobra.Command{
		Use:   "rebalance",
		Short: "Spread tenants over the Citus worker nodes by size",
		Args:  cobra.NoArgs,
		RunE: withApp(func(ctx context.Context, a *app, _ []string) error {
			id, err := a.registry.Rebalance(ctx, wait)
			switch {
			case err != nil:
				return err
			case id == 0:
				fmt.Println("the tenants are balanced: nothing to move")
			case wait:
				fmt.Printf("rebalance %d done\n", id)
			default:
				fmt.Printf("rebalance %d started (see citus_rebalance_status())\n", id)
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&wait, "wait", true, "wait for the rebalance to end")
	return cmd
}
