package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"learngate/tenant"
)

// `learngate sso set|show|remove SLUG` (docs/sign-in.md): a tenant's
// sign-in configuration from the shell, through the same registry methods
// as the ops API's /ops/v1/tenants/{slug}/sso. The client secret is read
// from a flag, an environment variable or standard input, stored encrypted
// and never printed.

func printSSO(cfg tenant.SSOConfig) error {
	return printJSON(tenant.ViewSSO(cfg))
}

func ssoCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "sso", Short: "Set, show and remove a tenant's learner sign-in configuration"}
	cmd.AddCommand(ssoSetCommand(), &cobra.Command{
		Use:   "show SLUG",
		Short: "Show a tenant's sign-in configuration as JSON (never the client secret)",
		Args:  cobra.ExactArgs(1),
		RunE: withApp(func(ctx context.Context, a *app, args []string) error {
			cfg, err := a.registry.ShowSSO(ctx, args[0])
			if err != nil {
				return err
			}
			return printSSO(cfg)
		}),
	}, &cobra.Command{
		Use:   "remove SLUG",
		Short: "Remove a tenant's sign-in configuration: its learners can no longer sign in",
		Args:  cobra.ExactArgs(1),
		RunE: withApp(func(ctx context.Context, a *app, args []string) error {
			if err := a.registry.RemoveSSO(ctx, args[0]); err != nil {
				return err
			}
			fmt.Printf("removed the sign-in configuration of %s\n", args[0])
			return nil
		}),
	})
	return cmd
}

// ssoSecretFlags are the three ways to give the client secret.
type ssoSecretFlags struct {
	value, env string
	stdin      bool
}

// read returns the secret given, nil when none was (the stored one is kept).
func (f ssoSecretFlags) read(cmd *cobra.Command) (*string, error) {
	given := 0
	for _, name := range []string{"client-secret", "client-secret-env", "client-secret-stdin"} {
		if cmd.Flags().Changed(name) {
			given++
		}
	}
	switch {
	case given > 1:
		return nil, errors.New("give the client secret at most one way: --client-secret, --client-secret-env or --client-secret-stdin")
	case cmd.Flags().Changed("client-secret"):
		return &f.value, nil
	case f.env != "":
		v := os.Getenv(f.env)
		if v == "" {
			return nil, fmt.Errorf("environment variable %s is empty or not set", f.env)
		}
		return &v, nil
	case f.stdin:
		line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read the client secret from standard input: %w", err)
		}
		v := strings.TrimRight(line, "\r\n")
		return &v, nil
	}
	return nil, nil
}

func ssoSetCommand() *cobra.Command {
	var in tenant.SSOInput
	var secret ssoSecretFlags
	var match, metadataFile string
	var jit, passwordLogin, endIdPSession bool
	set := &cobra.Command{
		Use: "set SLUG --protocol oidc|saml|none ...",
		Short: "Set a tenant's sign-in configuration, replacing the one stored " +
			"(flags not given take their defaults; a client secret not given is kept)",
		Args: cobra.ExactArgs(1),
	}
	set.RunE = func(cmd *cobra.Command, args []string) error {
		var err error
		if in.ClientSecret, err = secret.read(cmd); err != nil {
			return err
		}
		if metadataFile != "" {
			b, err := os.ReadFile(metadataFile)
			if err != nil {
				return fmt.Errorf("read --metadata-xml: %w", err)
			}
			in.MetadataXML = string(b)
		}
		changed := cmd.Flags().Changed
		if changed("match") {
			in.Match = &match
		}
		if changed("jit") {
			in.JIT = &jit
		}
		if changed("password-login") {
			in.PasswordLogin = &passwordLogin
		}
		if changed("end-idp-session") {
			in.EndIdPSession = &endIdPSession
		}
		return withApp(func(ctx context.Context, a *app, args []string) error {
			cfg, err := a.registry.SetSSO(ctx, args[0], in)
			if err != nil {
				return err
			}
			return printSSO(cfg)
		})(cmd, args)
	}
	f := set.Flags()
	f.StringVar(&in.Protocol, "protocol", "", "oidc, saml, or none (password sign-in alone: needs --password-login)")
	f.StringVar(&in.Issuer, "issuer", "", "OIDC issuer URL (https)")
	f.StringVar(&in.ClientID, "client-id", "", "OIDC client id")
	f.StringVar(&secret.value, "client-secret", "", "OIDC client secret (visible to ps and shell history: prefer --client-secret-env or --client-secret-stdin)")
	f.StringVar(&secret.env, "client-secret-env", "", "read the OIDC client secret from this environment variable")
	f.BoolVar(&secret.stdin, "client-secret-stdin", false, "read the OIDC client secret from the first line of standard input")
	f.StringSliceVar(&in.Scopes, "scopes", nil, "OIDC scopes, comma-separated (default openid,email,profile)")
	f.StringVar(&in.MetadataURL, "metadata-url", "", "SAML identity provider metadata URL (https)")
	f.StringVar(&metadataFile, "metadata-xml", "", "file with the SAML identity provider metadata")
	f.StringVar(&match, "match", "email", "the claim or attribute that finds the user: email or user_name")
	f.BoolVar(&jit, "jit", false, "create an unknown learner on first sign-in")
	f.BoolVar(&passwordLogin, "password-login", false, "also allow password sign-in")
	f.StringSliceVar(&in.PasswordTrustedNetworks, "password-trusted-networks", nil,
		"CIDR networks, comma-separated, exempt from the per-address password throttle (a school or office behind one address)")
	f.BoolVar(&endIdPSession, "end-idp-session", true, "sign-out also ends the identity provider's session")
	f.StringVar(&in.NameIDFormat, "name-id-format", "",
		"SAML NameID format URN to ask for (default urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified)")
	return set
}
