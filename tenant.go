package learngate

import "time"

// Tenant statuses.
const (
	// TenantProvisioning: the tenant's schema is being created; it resolves to nothing yet.
	TenantProvisioning = "provisioning"
	// TenantActive: the tenant is served.
	TenantActive = "active"
	// TenantSuspended: the tenant resolves but every API request is refused with 401.
	TenantSuspended = "suspended"
)

// Tenant is an organisation served by learngate, as the registry holds it.
type Tenant struct {
	ID                 int64     `db:"id" json:"-"`
	Slug               string    `db:"slug" json:"slug"`
	Name               string    `db:"name" json:"name"`
	Schema             string    `db:"-" json:"schema"`
	Timezone           string    `db:"timezone" json:"timezone"`
	Status             string    `db:"status" json:"status"`
	APIEnabled         bool      `db:"api_enabled" json:"api_enabled"`
	RateLimitPerMinute int64     `db:"rate_limit_per_minute" json:"rate_limit_per_minute"`
	Domains            []string  `db:"-" json:"domains"`
	CreatedAt          time.Time `db:"created_at" json:"created_at"`
	UpdatedAt          time.Time `db:"updated_at" json:"updated_at"`
}

// APIKey is the stored part of a tenant's API key: never the key itself.
type APIKey struct {
	ID         int64      `db:"id" json:"id"`
	TenantID   int64      `db:"tenant_id" json:"-"`
	Prefix     string     `db:"prefix" json:"prefix"`
	CreatedAt  time.Time  `db:"created_at" json:"created_at"`
	LastUsedAt *time.Time `db:"last_used_at" json:"last_used_at"`
	RevokedAt  *time.Time `db:"revoked_at" json:"revoked_at"`
}
