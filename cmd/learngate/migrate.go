package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func migrateCommand() *cobra.Command {
	var quiet bool
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending migrations to the shared schema and every tenant schema",
		Long: `Apply pending migrations to the shared schema and every tenant schema, under an
advisory lock. Only the tenant schemas behind the last migration (or whose secrets
are sealed under another key than the first of LEARNGATE_SECRETS_KEY) are visited,
four at a time. On a terminal a progress line counts them (n/total); otherwise one
summary line is written to stderr when done.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := openApp(cmd.Context())
			if err != nil {
				return err
			}
			defer a.close()
			if err := a.requireSecrets(); err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			bar := newProgressBar(stderr, "migrating tenant schemas", "schemas", 0)
			start, tenants := time.Now(), 0
			progress := func(done, total int, _ string) {
				tenants, bar.total = total, total
				if !quiet {
					bar.Update(done)
				}
			}
			if err := a.db.MigrateAll(cmd.Context(), progress); err != nil {
				bar.Finish()
				return err
			}
			bar.Finish()
			if !quiet && !bar.tty {
				fmt.Fprintf(stderr, "migrated the shared schema and %d tenant %s in %s\n", tenants,
					plural(tenants, "schema", "schemas"), time.Since(start).Round(time.Millisecond))
			}
			fmt.Fprintln(cmd.OutOrStdout(), "migrations applied")
			return nil
		},
	}
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print no progress")
	return cmd
}
