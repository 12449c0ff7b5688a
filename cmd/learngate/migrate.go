package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func migrateCommand() *cobra.Command {
	var quiet bool
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending migrations to the shared schema and every tenant schema",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := openApp(cmd.Context())
			if err != nil {
				return err
			}
			defer a.close()
			progress := func(done, total int, schema string) {
				if !quiet {
					fmt.Fprintf(os.Stderr, "\rmigrated %d/%d tenant schemas (%s)", done, total, schema)
				}
			}
			if err := a.db.MigrateAll(cmd.Context(), progress); err != nil {
				return err
			}
			if !quiet {
				fmt.Fprintln(os.Stderr)
			}
			fmt.Println("migrations applied")
			return nil
		},
	}
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print no progress")
	return cmd
}
