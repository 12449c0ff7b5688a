package store

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"

	"learngate"
)

// Tenants' sign-in settings (docs/decisions.md, "Sign-in"), in the shared
// table tenant_sso. The OIDC client secret is sealed with the DB's secrets
// keyring before it is written and opened only when read for a sign-in; a
// change bumps the registry generation, so every node's cache drops it.

// SSOConfig is a tenant's sign-in configuration.
type SSOConfig struct {
	TenantID int64
	// Protocol is "oidc" or "saml".
	Protocol string
	// Issuer, ClientID and ClientSecret (plain text once read) are the OIDC client.
	Issuer, ClientID, ClientSecret string
	Scopes                         []string
	// Match is "email" or "user_name": which claim finds the user.
	Match string
	// JIT creates an unknown learner on first sign-in.
	JIT bool
	// PasswordLogin allows the password form.
	PasswordLogin bool
	UpdatedAt     time.Time
}

// PutTenantSSO stores cfg as its tenant's sign-in configuration, replacing
// any. A nil secret keeps the stored one.
func (db *DB) PutTenantSSO(ctx context.Context, cfg SSOConfig, secret *string) (SSOConfig, error) {
	var sealed *string
	if secret != nil && *secret != "" {
		s, err := db.secrets.Encrypt(*secret)
		if err != nil {
			return SSOConfig{}, fmt.Errorf("encrypt client secret: %w", err)
		}
		sealed = &s
	}
	const q = `INSERT INTO public.tenant_sso (tenant_id, protocol, issuer, client_id, client_secret, scopes, match, jit, password_login)
		VALUES ($1, $2, $3, $4, COALESCE($5, ''), $6, $7, $8, $9)
		ON CONFLICT (tenant_id) DO UPDATE SET protocol = $2, issuer = $3, client_id = $4,
			client_secret = COALESCE($5, tenant_sso.client_secret), scopes = $6, match = $7, jit = $8,
			password_login = $9, updated_at = now()`
	if _, err := db.pool.ExecContext(ctx, q, cfg.TenantID, cfg.Protocol, cfg.Issuer, cfg.ClientID, sealed,
		pq.StringArray(cfg.Scopes), cfg.Match, cfg.JIT, cfg.PasswordLogin); err != nil {
		return SSOConfig{}, translate(fmt.Errorf("save sign-in configuration: %w", err))
	}
	return db.TenantSSO(ctx, cfg.TenantID)
}

// TenantSSO returns the tenant's sign-in configuration with its client
// secret decrypted; NotFound when it has none.
func (db *DB) TenantSSO(ctx context.Context, tenantID int64) (SSOConfig, error) {
	var row struct {
		TenantID      int64          `db:"tenant_id"`
		Protocol      string         `db:"protocol"`
		Issuer        string         `db:"issuer"`
		ClientID      string         `db:"client_id"`
		ClientSecret  string         `db:"client_secret"`
		Scopes        pq.StringArray `db:"scopes"`
		Match         string         `db:"match"`
		JIT           bool           `db:"jit"`
		PasswordLogin bool           `db:"password_login"`
		UpdatedAt     time.Time      `db:"updated_at"`
	}
	err := db.pool.GetContext(ctx, &row, `SELECT tenant_id, protocol, issuer, client_id, client_secret, scopes, match, jit,
		password_login, updated_at FROM public.tenant_sso WHERE tenant_id = $1`, tenantID)
	if isNoRows(err) {
		return SSOConfig{}, learngate.Errorf(learngate.NotFound, "no sign-in configuration")
	}
	if err != nil {
		return SSOConfig{}, translate(fmt.Errorf("read sign-in configuration: %w", err))
	}
	cfg := SSOConfig{TenantID: row.TenantID, Protocol: row.Protocol, Issuer: row.Issuer, ClientID: row.ClientID,
		Scopes: []string(row.Scopes), Match: row.Match, JIT: row.JIT, PasswordLogin: row.PasswordLogin, UpdatedAt: row.UpdatedAt}
	if row.ClientSecret != "" {
		if cfg.ClientSecret, err = db.secrets.Decrypt(row.ClientSecret); err != nil {
			return SSOConfig{}, fmt.Errorf("decrypt client secret of tenant %d: %w", tenantID, err)
		}
	}
	return cfg, nil
}

// DeleteTenantSSO removes the tenant's sign-in configuration; NotFound
// when it has none.
func (db *DB) DeleteTenantSSO(ctx context.Context, tenantID int64) error {
	res, err := db.pool.ExecContext(ctx, `DELETE FROM public.tenant_sso WHERE tenant_id = $1`, tenantID)
	if err != nil {
		return translate(fmt.Errorf("remove sign-in configuration: %w", err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return learngate.Errorf(learngate.NotFound, "no sign-in configuration")
	}
	return nil
}

// StoredClientSecret returns the client secret column as stored (tests
// prove it is encrypted at rest).
func (db *DB) StoredClientSecret(ctx context.Context, tenantID int64) (string, error) {
	var s string
	err := db.pool.GetContext(ctx, &s, `SELECT client_secret FROM public.tenant_sso WHERE tenant_id = $1`, tenantID)
	return s, translate(err)
}
