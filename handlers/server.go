package handlers

import (
	"context"
	"log/slog"
	"time"

	"learngate/ratelimit"
	"learngate/store"
	"learngate/tenant"
	"learngate/webhook"
)

// Server holds what the handlers depend on. cmd/learngate builds one and
// asks it for the public and ops routers.
type Server struct {
	DB       *store.DB
	Registry *tenant.Registry
	Limiter  *ratelimit.Limiter
	Metrics  *Metrics
	Logger   *slog.Logger
	// Ready reports whether the service's dependencies answer (/readyz).
	Ready func(ctx context.Context) error
	// OpsToken is the bearer token of the ops API.
	OpsToken string
	// AuthFailuresPerMinute limits failed API-key attempts per client IP.
	AuthFailuresPerMinute int64
	// TrustedProxies are the proxies whose X-Forwarded-For is believed.
	TrustedProxies []string
	// WebhookPolicy says which webhook URLs may be registered
	// (LEARNGATE_WEBHOOK_ALLOW_PRIVATE).
	WebhookPolicy webhook.Policy
	// Now is the handlers' clock (timestamps written, the failed-
	// authentication blocklist); the same clock as the limiter's. Default time.Now.
	Now func() time.Time

	blocklist *ratelimit.Blocklist
}
