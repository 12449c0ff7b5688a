package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"learngate/tenant"
)

// withApp wraps a command body that needs the app. Its context ends on
// SIGTERM or SIGINT, which is how serve and worker shut down gracefully.
func withApp(fn func(ctx context.Context, a *app, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
		defer stop()
		a, err := openApp(ctx)
		if err != nil {
			return err
		}
		defer a.close()
		return fn(ctx, a, args)
	}
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeKey prints a new key and, when path is set, writes it there (0600).
func writeKey(key, path string) error {
	fmt.Printf("api key (shown once): %s\n", key)
	if path == "" {
		return nil
	}
	return os.WriteFile(path, []byte(key+"\n"), 0o600)
}

func tenantCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "tenant", Short: "Onboard, list, show, change and offboard tenants"}

	var in tenant.NewTenantInput
	var apiEnabled bool
	var rateLimit int64
	var keyOut string
	create := &cobra.Command{
		Use:   "create SLUG",
		Short: "Create a tenant with its schema and first API key",
		Args:  cobra.ExactArgs(1),
		RunE: withApp(func(ctx context.Context, a *app, args []string) error {
			in.Slug = args[0]
			in.APIEnabled = &apiEnabled
			in.RateLimitPerMinute = &rateLimit
			t, key, err := a.registry.Create(ctx, in)
			if err != nil {
				return err
			}
			fmt.Printf("created tenant %s (schema %s)\n", t.Slug, t.Schema)
			return writeKey(key, keyOut)
		}),
	}
	create.Flags().StringVar(&in.Name, "name", "", "display name (default: the slug)")
	create.Flags().StringVar(&in.Timezone, "timezone", "UTC", "IANA time zone")
	create.Flags().BoolVar(&apiEnabled, "api-enabled", true, "whether API access is enabled")
	create.Flags().Int64Var(&rateLimit, "rate-limit", tenant.DefaultRateLimit, "requests per minute")
	create.Flags().StringSliceVar(&in.CustomDomains, "domain", nil, "custom domain (repeatable)")
	create.Flags().StringVar(&keyOut, "key-out", "", "also write the API key to this file (mode 0600)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List tenants as JSON",
		Args:  cobra.NoArgs,
		RunE: withApp(func(ctx context.Context, a *app, _ []string) error {
			ts, err := a.registry.List(ctx)
			if err != nil {
				return err
			}
			return printJSON(ts)
		}),
	}

	show := &cobra.Command{
		Use:   "show SLUG",
		Short: "Show a tenant as JSON (exit status 1 when it does not exist)",
		Args:  cobra.ExactArgs(1),
		RunE: withApp(func(ctx context.Context, a *app, args []string) error {
			t, err := a.registry.Show(ctx, args[0])
			if err != nil {
				return err
			}
			return printJSON(t)
		}),
	}

	cmd.AddCommand(create, list, show, tenantUpdateCommand(), tenantDeleteCommand(), tenantMoveCommand(), tenantRebalanceCommand())
	return cmd
}

func tenantUpdateCommand() *cobra.Command {
	var name, timezone, status string
	var apiEnabled bool
	var rateLimit int64
	update := &cobra.Command{
		Use:   "update SLUG",
		Short: "Change a tenant (only the flags given)",
		Args:  cobra.ExactArgs(1),
	}
	update.RunE = withApp(func(ctx context.Context, a *app, args []string) error {
		var p tenant.TenantPatch
		changed := update.Flags().Changed
		if changed("name") {
			p.Name = &name
		}
		if changed("timezone") {
			p.Timezone = &timezone
		}
		if changed("status") {
			p.Status = &status
		}
		if changed("api-enabled") {
			p.APIEnabled = &apiEnabled
		}
		if changed("rate-limit") {
			p.RateLimitPerMinute = &rateLimit
		}
		t, err := a.registry.Update(ctx, args[0], p)
		if err != nil {
			return err
		}
		return printJSON(t)
	})
	update.Flags().StringVar(&name, "name", "", "display name")
	update.Flags().StringVar(&timezone, "timezone", "", "IANA time zone")
	update.Flags().StringVar(&status, "status", "", "active or suspended")
	update.Flags().BoolVar(&apiEnabled, "api-enabled", true, "whether API access is enabled")
	update.Flags().Int64Var(&rateLimit, "rate-limit", 0, "requests per minute")
	return update
}

func tenantDeleteCommand() *cobra.Command {
	var confirm string
	del := &cobra.Command{
		Use:   "delete SLUG --confirm SLUG",
		Short: "Offboard a tenant: drop its schema and all its data, domains and keys",
		Args:  cobra.ExactArgs(1),
		RunE: withApp(func(ctx context.Context, a *app, args []string) error {
			if confirm != args[0] {
				return fmt.Errorf("--confirm must repeat the slug %q", args[0])
			}
			if err := a.registry.Delete(ctx, args[0]); err != nil {
				return err
			}
			fmt.Printf("deleted tenant %s\n", args[0])
			return nil
		}),
	}
	del.Flags().StringVar(&confirm, "confirm", "", "the slug again, to confirm")
	return del
}

func domainCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "domain", Short: "Add or remove a tenant's custom domains"}
	cmd.AddCommand(&cobra.Command{
		Use:   "add SLUG DOMAIN",
		Short: "Attach a custom domain to a tenant",
		Args:  cobra.ExactArgs(2),
		RunE: withApp(func(ctx context.Context, a *app, args []string) error {
			t, err := a.registry.AddDomain(ctx, args[0], args[1])
			if err != nil {
				return err
			}
			return printJSON(t)
		}),
	}, &cobra.Command{
		Use:   "remove SLUG DOMAIN",
		Short: "Detach a custom domain from a tenant",
		Args:  cobra.ExactArgs(2),
		RunE: withApp(func(ctx context.Context, a *app, args []string) error {
			if err := a.registry.RemoveDomain(ctx, args[0], args[1]); err != nil {
				return err
			}
			fmt.Printf("removed %s from %s\n", args[1], args[0])
			return nil
		}),
	})
	return cmd
}

func keyCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "key", Short: "Create, list and revoke a tenant's API keys"}
	var keyOut string
	create := &cobra.Command{
		Use:   "create SLUG",
		Short: "Create an API key (shown once)",
		Args:  cobra.ExactArgs(1),
		RunE: withApp(func(ctx context.Context, a *app, args []string) error {
			k, text, err := a.registry.CreateKey(ctx, args[0])
			if err != nil {
				return err
			}
			fmt.Printf("created key %d (%s) for %s\n", k.ID, k.Prefix, args[0])
			return writeKey(text, keyOut)
		}),
	}
	create.Flags().StringVar(&keyOut, "key-out", "", "also write the API key to this file (mode 0600)")
	cmd.AddCommand(create, &cobra.Command{
		Use:   "list SLUG",
		Short: "List a tenant's keys as JSON",
		Args:  cobra.ExactArgs(1),
		RunE: withApp(func(ctx context.Context, a *app, args []string) error {
			keys, err := a.registry.ListKeys(ctx, args[0])
			if err != nil {
				return err
			}
			return printJSON(keys)
		}),
	}, &cobra.Command{
		Use:   "revoke SLUG KEY_ID",
		Short: "Revoke an API key",
		Args:  cobra.ExactArgs(2),
		RunE: withApp(func(ctx context.Context, a *app, args []string) error {
			id, err := strconv.ParseInt(args[1], 10, 64)
			if err != nil {
				return fmt.Errorf("KEY_ID must be a number, got %q", args[1])
			}
			if err := a.registry.RevokeKey(ctx, args[0], id); err != nil {
				return err
			}
			fmt.Printf("revoked key %d of %s\n", id, args[0])
			return nil
		}),
	})
	return cmd
}
