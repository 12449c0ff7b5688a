package ops

import (
	"time"

	"learngate"
	"learngate/store"
)

// The ops API answers timestamps in the Public API's form (UTC, whole
// seconds, +00:00: learngate.TimestampLayout, docs/api.md "Dates and
// timestamps"), not encoding/json's RFC 3339 with fractions and Z.

// tenantView is a tenant as the ops API shows it.
type tenantView struct {
	learngate.Tenant
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	// DatabaseNode is the Citus worker ("host:port") holding the tenant's
	// schema; null on a single PostgreSQL.
	DatabaseNode *string `json:"database_node"`
}

// viewTenant returns t as the ops API shows it, on database node node
// ("" for none).
func viewTenant(t learngate.Tenant, node string) tenantView {
	v := tenantView{Tenant: t, CreatedAt: formatTimestamp(t.CreatedAt), UpdatedAt: formatTimestamp(t.UpdatedAt)}
	if node != "" {
		v.DatabaseNode = &node
	}
	return v
}

// viewTenants returns ts as the ops API shows them, with nodes (by schema).
func viewTenants(ts []learngate.Tenant, nodes map[string]string) []tenantView {
	out := make([]tenantView, len(ts))
	for i, t := range ts {
		out[i] = viewTenant(t, nodes[t.Schema])
	}
	return out
}

// moveView is a move of a tenant's schema as the ops API shows it.
type moveView struct {
	store.TenantMove
	CreatedAt  string  `json:"created_at"`
	FinishedAt *string `json:"finished_at"`
}

// viewMove returns m as the ops API shows it.
func viewMove(m store.TenantMove) moveView {
	return moveView{TenantMove: m, CreatedAt: formatTimestamp(m.CreatedAt), FinishedAt: formatOptionalTimestamp(m.FinishedAt)}
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
func formatTimestamp(at time.Time) string { return at.UTC().Format(learngate.TimestampLayout) }

// formatOptionalTimestamp is formatTimestamp for a time that may be unset (null).
func formatOptionalTimestamp(at *time.Time) *string {
	if at == nil {
		return nil
	}
	s := formatTimestamp(*at)
	return &s
}
