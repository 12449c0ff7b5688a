package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lib/pq"

	"learngate"
	"learngate/secrets"
)

// Tenants' sign-in settings (docs/decisions.md, "Sign-in"), in the shared
// table tenant_sso. The OIDC client secret is sealed with the DB's secrets
// keyring before it is written and opened only when read for a sign-in; a
// change bumps the registry generation, so every node's cache drops it.

// SSOConfig is a tenant's sign-in configuration.
type SSOConfig struct {
	TenantID int64
	// Protocol is "oidc", "saml" or "none" (password sign-in alone).
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
	// SAMLMetadataXML is the SAML identity provider's metadata, fetched
	// from SAMLMetadataURL when ops gave a URL.
	SAMLMetadataXML, SAMLMetadataURL string
	// SAMLKey (PEM, plain text once read; "" on write keeps the stored one)
	// and SAMLCert (PEM) are this tenant's service provider key pair.
	SAMLKey, SAMLCert string
	// PasswordTrustedNetworks are networks (normalised CIDR prefixes) whose
	// addresses the per-address password throttle does not count.
	PasswordTrustedNetworks []string
	// EndIdPSession makes sign-out also end the identity provider's session.
	EndIdPSession bool
	// NameIDFormat is the SAML NameID format the AuthnRequest asks for;
	// "" means urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified.
	NameIDFormat string
	UpdatedAt    time.Time
}

// PutTenantSSO stores cfg as its tenant's sign-in configuration, replacing
// any. A nil secret keeps the stored one.
func (db *DB) PutTenantSSO(ctx context.Context, cfg SSOConfig, secret *string) (SSOConfig, error) {
	var sealed, sealedKey *string
	if secret != nil && *secret != "" {
		s, err := db.secrets.Encrypt(*secret)
		if err != nil {
			return SSOConfig{}, fmt.Errorf("encrypt client secret: %w", err)
		}
		sealed = &s
	}
	if cfg.SAMLKey != "" {
		s, err := db.secrets.Encrypt(cfg.SAMLKey)
		if err != nil {
			return SSOConfig{}, fmt.Errorf("encrypt SAML key: %w", err)
		}
		sealedKey = &s
	}
	const q = `INSERT INTO public.tenant_sso (tenant_id, protocol, issuer, client_id, client_secret, scopes, match, jit, password_login,
			saml_metadata_xml, saml_metadata_url, saml_sp_key, saml_sp_cert, password_trusted_networks, end_idp_session, name_id_format)
		VALUES ($1, $2, $3, $4, COALESCE($5, ''), $6, $7, $8, $9, $10, $11, COALESCE($12, ''), $13, $14, $15, $16)
		ON CONFLICT (tenant_id) DO UPDATE SET protocol = $2, issuer = $3, client_id = $4,
			client_secret = COALESCE($5, tenant_sso.client_secret), scopes = $6, match = $7, jit = $8,
			password_login = $9, saml_metadata_xml = $10, saml_metadata_url = $11,
			saml_sp_key = COALESCE($12, tenant_sso.saml_sp_key),
			saml_sp_cert = CASE WHEN $12::text IS NULL THEN tenant_sso.saml_sp_cert ELSE $13 END,
			password_trusted_networks = $14, end_idp_session = $15, name_id_format = $16, updated_at = now()`
	if _, err := db.pool.ExecContext(ctx, q, cfg.TenantID, cfg.Protocol, cfg.Issuer, cfg.ClientID, sealed,
		pq.StringArray(cfg.Scopes), cfg.Match, cfg.JIT, cfg.PasswordLogin, cfg.SAMLMetadataXML, cfg.SAMLMetadataURL,
		sealedKey, cfg.SAMLCert, pq.StringArray(nonNil(cfg.PasswordTrustedNetworks)), cfg.EndIdPSession, cfg.NameIDFormat); err != nil {
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
		MetadataXML   string         `db:"saml_metadata_xml"`
		MetadataURL   string         `db:"saml_metadata_url"`
		SPKey         string         `db:"saml_sp_key"`
		SPCert        string         `db:"saml_sp_cert"`
		Trusted       pq.StringArray `db:"password_trusted_networks"`
		EndIdP        bool           `db:"end_idp_session"`
		NameIDFormat  string         `db:"name_id_format"`
		UpdatedAt     time.Time      `db:"updated_at"`
	}
	err := db.pool.GetContext(ctx, &row, `SELECT tenant_id, protocol, issuer, client_id, client_secret, scopes, match, jit,
		password_login, saml_metadata_xml, saml_metadata_url, saml_sp_key, saml_sp_cert,
		password_trusted_networks, end_idp_session, name_id_format, updated_at
		FROM public.tenant_sso WHERE tenant_id = $1`, tenantID)
	if isNoRows(err) {
		return SSOConfig{}, learngate.Errorf(learngate.NotFound, "no sign-in configuration")
	}
	if err != nil {
		return SSOConfig{}, translate(fmt.Errorf("read sign-in configuration: %w", err))
	}
	cfg := SSOConfig{TenantID: row.TenantID, Protocol: row.Protocol, Issuer: row.Issuer, ClientID: row.ClientID,
		Scopes: []string(row.Scopes), Match: row.Match, JIT: row.JIT, PasswordLogin: row.PasswordLogin,
		SAMLMetadataXML: row.MetadataXML, SAMLMetadataURL: row.MetadataURL, SAMLCert: row.SPCert,
		PasswordTrustedNetworks: nonNil([]string(row.Trusted)), EndIdPSession: row.EndIdP, NameIDFormat: row.NameIDFormat,
		UpdatedAt: row.UpdatedAt}
	if row.ClientSecret != "" {
		if cfg.ClientSecret, err = db.secrets.Decrypt(row.ClientSecret); err != nil {
			return SSOConfig{}, fmt.Errorf("decrypt client secret of tenant %d: %w", tenantID, err)
		}
	}
	if row.SPKey != "" {
		if cfg.SAMLKey, err = db.secrets.Decrypt(row.SPKey); err != nil {
			return SSOConfig{}, fmt.Errorf("decrypt SAML key of tenant %d: %w", tenantID, err)
		}
	}
	return cfg, nil
}

// UseSAMLAssertion records assertion id of the tenant as used until
// expires; Conflict when it was used before (a replay). Expired IDs of
// the tenant are dropped on the way.
func (db *DB) UseSAMLAssertion(ctx context.Context, tenantID int64, id string, expires, now time.Time) error {
	if _, err := db.pool.ExecContext(ctx, `DELETE FROM public.saml_assertions WHERE tenant_id = $1 AND expires_at < $2`,
		tenantID, now); err != nil {
		return translate(fmt.Errorf("purge SAML assertions: %w", err))
	}
	res, err := db.pool.ExecContext(ctx, `INSERT INTO public.saml_assertions (tenant_id, assertion_id, expires_at)
		VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, tenantID, id, expires)
	if err != nil {
		return translate(fmt.Errorf("record SAML assertion: %w", err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return learngate.Errorf(learngate.Conflict, "assertion already used")
	}
	return nil
}

// StoredSAMLKey returns the SAML key column as stored (tests prove it is
// encrypted at rest).
func (db *DB) StoredSAMLKey(ctx context.Context, tenantID int64) (string, error) {
	var s string
	err := db.pool.GetContext(ctx, &s, `SELECT saml_sp_key FROM public.tenant_sso WHERE tenant_id = $1`, tenantID)
	return s, translate(err)
}

// resealSSOSecrets encrypts with the first key of the keyring every
// tenant's client secret and SAML key sealed under another key (after a
// key rotation, so the old key can then be dropped); values under the
// first key are left alone. A value under a key the keyring lacks fails it.
func (db *DB) resealSSOSecrets(ctx context.Context) error {
	current := secrets.Prefix + db.secrets.KeyIDs()[0] + ":"
	var rows []struct {
		TenantID     int64  `db:"tenant_id"`
		ClientSecret string `db:"client_secret"`
		SPKey        string `db:"saml_sp_key"`
	}
	if err := db.pool.SelectContext(ctx, &rows, `SELECT tenant_id, client_secret, saml_sp_key FROM public.tenant_sso
		WHERE (client_secret <> '' AND left(client_secret, $1) <> $2) OR (saml_sp_key <> '' AND left(saml_sp_key, $1) <> $2)`,
		len(current), current); err != nil {
		return translate(fmt.Errorf("find sign-in secrets to re-encrypt: %w", err))
	}
	for _, r := range rows {
		vals := []*string{&r.ClientSecret, &r.SPKey}
		for _, v := range vals {
			if *v == "" || strings.HasPrefix(*v, current) {
				continue
			}
			plain, err := db.secrets.Decrypt(*v)
			if err != nil {
				return fmt.Errorf("decrypt sign-in secret of tenant %d: %w", r.TenantID, err)
			}
			if *v, err = db.secrets.Encrypt(plain); err != nil {
				return fmt.Errorf("encrypt sign-in secret of tenant %d: %w", r.TenantID, err)
			}
		}
		if _, err := db.pool.ExecContext(ctx, `UPDATE public.tenant_sso SET client_secret = $2, saml_sp_key = $3
			WHERE tenant_id = $1`, r.TenantID, r.ClientSecret, r.SPKey); err != nil {
			return translate(fmt.Errorf("re-encrypt sign-in secrets: %w", err))
		}
	}
	return nil
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
