package handlers

import (
	"time"

	"learngate"
	"learngate/store"
)

// The ops API answers timestamps in the Public API's form (UTC, whole
// seconds, +00:00: store.TimestampLayout, docs/api.md "Dates and
// timestamps"), not encoding/json's RFC 3339 with fractions and Z.

// tenantView is a tenant as the ops API shows it.
type tenantView struct {
	learngate.Tenant
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// viewTenant returns t as the ops API shows it.
func viewTenant(t learngate.Tenant) tenantView {
	return tenantView{Tenant: t, CreatedAt: formatTimestamp(t.CreatedAt), UpdatedAt: formatTimestamp(t.UpdatedAt)}
}

// viewTenants returns ts as the ops API shows them.
func viewTenants(ts []learngate.Tenant) []tenantView {
	out := make([]tenantView, len(ts))
	for i, t := range ts {
		out[i] = viewTenant(t)
	}
	return out
}

// keyView is an API key record as the ops API shows it.
type keyView struct {
	learngate.APIKey
	CreatedAt  string  `json:"created_at"`
	LastUsedAt *string `json:"last_used_at"`
	RevokedAt  *string `json:"revoked_at"`
}

// viewKey returns k as the ops API shows it.
func viewKey(k learngate.APIKey) keyView {
	return keyView{APIKey: k, CreatedAt: formatTimestamp(k.CreatedAt),
		LastUsedAt: formatOptionalTimestamp(k.LastUsedAt), RevokedAt: formatOptionalTimestamp(k.RevokedAt)}
}

// formatTimestamp formats at as the Public API does.
func formatTimestamp(at time.Time) string { return at.UTC().Format(store.TimestampLayout) }

// formatOptionalTimestamp is formatTimestamp for a time that may be unset (null).
func formatOptionalTimestamp(at *time.Time) *string {
	if at == nil {
		return nil
	}
	s := formatTimestamp(*at)
	return &s
}
