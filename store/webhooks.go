package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/input"
	"learngate/webhook"

	"learngate/store/list"
)

// MaxWebhooks is how many webhook endpoints a tenant may have.
const MaxWebhooks = 20

// MaxWebhookDescription is the longest description (in characters).
const MaxWebhookDescription = 500

// SecretOverlap is how long a rotated-out secret keeps signing.
const SecretOverlap = 24 * time.Hour

// webhookRow is a webhook_endpoints row. Its secrets are encrypted (see
// sealSecret).
type webhookRow struct {
	ID                      int64          `db:"id"`
	URL                     string         `db:"url"`
	Description             string         `db:"description"`
	Events                  pq.StringArray `db:"events"`
	Secret                  string         `db:"secret"`
	PreviousSecret          *string        `db:"previous_secret"`
	PreviousSecretExpiresAt *time.Time     `db:"previous_secret_expires_at"`
	Enabled                 bool           `db:"enabled"`
	DisabledReason          *string        `db:"disabled_reason"`
	FailingSince            *time.Time     `db:"failing_since"`
	PausedUntil             *time.Time     `db:"paused_until"`
	CreatedAt               time.Time      `db:"created_at"`
	UpdatedAt               time.Time      `db:"updated_at"`
}

// webhookColumns are the columns of webhookRow.
const webhookColumns = `id, url, description, events, secret, previous_secret, previous_secret_expires_at,
	enabled, disabled_reason, failing_since, paused_until, created_at, updated_at`

func (r webhookRow) toWebhook(now time.Time) learngate.Webhook {
	w := learngate.Webhook{ID: r.ID, URL: r.URL, Description: r.Description, Events: []string(r.Events), Enabled: r.Enabled,
		DisabledReason: r.DisabledReason, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.PreviousSecret != nil && r.PreviousSecretExpiresAt != nil && r.PreviousSecretExpiresAt.After(now) {
		w.PreviousSecretExpiresAt = r.PreviousSecretExpiresAt
	}
	return w
}

// applyWebhookInput sets the given fields of in on r, checking each with policy.
// Invalid, naming the problem, for a bad URL, no or an unknown event type,
// or a description too long.
func applyWebhookInput(in learngate.WebhookInput, r *webhookRow, policy webhook.Policy) error {
	if in.URL != nil {
		if _, err := policy.CheckURL(*in.URL); err != nil {
			return err
		}
		r.URL = *in.URL
	}
	if in.Events != nil {
		events, err := checkEventTypes(in.Events)
		if err != nil {
			return err
		}
		r.Events = events
	}
	if in.Description != nil {
		d := strings.TrimSpace(*in.Description)
		if utf8.RuneCountInString(d) > MaxWebhookDescription {
			return learngate.Errorf(learngate.Invalid, "description must be at most %d characters", MaxWebhookDescription)
		}
		r.Description = d
	}
	return nil
}

// checkEventTypes returns types without repeats, in the order given.
func checkEventTypes(types []string) ([]string, error) {
	if len(types) == 0 {
		return nil, learngate.Errorf(learngate.Invalid, "events must name at least one event type, or \"*\"")
	}
	out := make([]string, 0, len(types))
	for _, typ := range types {
		if typ != AllEvents && !slices.Contains(subscribableEvents, typ) {
			return nil, learngate.Errorf(learngate.Invalid, "unknown event type '%s'", input.Quote(typ))
		}
		if !slices.Contains(out, typ) {
			out = append(out, typ)
		}
	}
	return out, nil
}

// CreateWebhook registers an endpoint with a new secret and returns it with
// the secret (shown this once). url and events are required. Invalid for a
// bad field; Unprocessable when the tenant has MaxWebhooks already.
func CreateWebhook(ctx context.Context, tdb *TenantDB, in learngate.WebhookInput, policy webhook.Policy, now time.Time) (learngate.Webhook, error) {
	if in.URL == nil {
		return learngate.Webhook{}, learngate.Errorf(learngate.Invalid, "url is required")
	}
	if in.Events == nil {
		return learngate.Webhook{}, learngate.Errorf(learngate.Invalid, "events is required")
	}
	in.Enabled = nil
	var r webhookRow
	if err := applyWebhookInput(in, &r, policy); err != nil {
		return learngate.Webhook{}, err
	}
	secret, err := webhook.NewSecret()
	if err != nil {
		return learngate.Webhook{}, err
	}
	sealed, err := tdb.sealSecret(secret)
	if err != nil {
		return learngate.Webhook{}, err
	}
	now = now.UTC().Truncate(time.Microsecond)
	err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		// One creation at a time per tenant, so the limit holds.
		if _, err := tx.ExecContext(ctx, `LOCK TABLE webhook_endpoints IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("lock webhooks: %w", err)
		}
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM webhook_endpoints`); err != nil {
			return fmt.Errorf("count webhooks: %w", err)
		}
		if n >= MaxWebhooks {
			return learngate.Errorf(learngate.Unprocessable, "a tenant may have at most %d webhooks", MaxWebhooks)
		}
		return tx.GetContext(ctx, &r, `INSERT INTO webhook_endpoints (url, description, events, secret, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $5) RETURNING `+webhookColumns, r.URL, r.Description, r.Events, sealed, now)
	})
	if err != nil {
		return learngate.Webhook{}, err
	}
	w := r.toWebhook(now)
	w.Secret = secret
	return w, nil
}

// ListWebhooks returns one page of the tenant's endpoints, oldest first,
// and how many there are.
func ListWebhooks(ctx context.Context, tdb *TenantDB, page list.Page, now time.Time) ([]learngate.Webhook, int64, error) {
	var rows []webhookRow
	var total int64
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		total, err = list.Select(ctx, tx, &rows, list.Webhooks, `SELECT `+webhookColumns+` FROM webhook_endpoints`, list.All(), page)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list webhooks: %w", err)
	}
	out := make([]learngate.Webhook, len(rows))
	for i, r := range rows {
		out[i] = r.toWebhook(now)
	}
	return out, total, nil
}

// GetWebhook returns endpoint id; NotFound when the tenant has none such.
func GetWebhook(ctx context.Context, tdb *TenantDB, id int64, now time.Time) (learngate.Webhook, error) {
	var r webhookRow
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		return getWebhookRow(ctx, tx, &r, id, false)
	})
	if err != nil {
		return learngate.Webhook{}, err
	}
	return r.toWebhook(now), nil
}

// getWebhookRow loads endpoint id into r, locking it when forUpdate;
// NotFound "not found" when there is none.
func getWebhookRow(ctx context.Context, tx *sqlx.Tx, r *webhookRow, id int64, forUpdate bool) error {
	q := `SELECT ` + webhookColumns + ` FROM webhook_endpoints WHERE id = $1`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	return notFound(tx.GetContext(ctx, r, q, id))
}

// UpdateWebhook changes the given fields of endpoint id. Enabled false
// disables it (its pending deliveries fail); true enables it again and
// forgets its failures. NotFound when there is no such endpoint; Invalid as
// CreateWebhook.
func UpdateWebhook(ctx context.Context, tdb *TenantDB, id int64, in learngate.WebhookInput, policy webhook.Policy, now time.Time) (learngate.Webhook, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var r webhookRow
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := getWebhookRow(ctx, tx, &r, id, true); err != nil {
			return err
		}
		if err := applyWebhookInput(in, &r, policy); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET url = $2, description = $3, events = $4, updated_at = $5
			WHERE id = $1`, id, r.URL, r.Description, r.Events, now); err != nil {
			return fmt.Errorf("update webhook %d: %w", id, err)
		}
		switch {
		case in.Enabled == nil || *in.Enabled == r.Enabled:
		case *in.Enabled:
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET enabled = true, disabled_reason = NULL,
				disabled_at = NULL, failing_since = NULL, paused_until = NULL WHERE id = $1`, id); err != nil {
				return fmt.Errorf("enable webhook %d: %w", id, err)
			}
		default:
			if err := disableWebhook(ctx, tx, id, "disabled through the API", now); err != nil {
				return err
			}
		}
		return getWebhookRow(ctx, tx, &r, id, false)
	})
	if err != nil {
		return learngate.Webhook{}, err
	}
	return r.toWebhook(now), nil
}

// disableWebhook disables endpoint id for reason and fails its pending
// deliveries (they can be retried once it is enabled again).
func disableWebhook(ctx context.Context, tx *sqlx.Tx, id int64, reason string, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2,
		disabled_at = $3, paused_until = NULL, updated_at = $3 WHERE id = $1`, id, reason, now); err != nil {
		return fmt.Errorf("disable webhook %d: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL,
		last_error = $2, updated_at = $3 WHERE endpoint_id = $1 AND status = 'pending'`,
		id, "webhook disabled: "+reason, now); err != nil {
		return fmt.Errorf("fail deliveries of webhook %d: %w", id, err)
	}
	return nil
}

// DeleteWebhook removes endpoint id with its deliveries; NotFound when
// there is no such endpoint.
func DeleteWebhook(ctx context.Context, tdb *TenantDB, id int64) error {
	return tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		return deleteByID(ctx, tx, "webhook_endpoints", id)
	})
}

// RotateWebhookSecret gives endpoint id a new secret and returns the
// endpoint with it (shown this once). The replaced secret keeps signing
// (a second signature) for SecretOverlap; one replaced before is dropped.
func RotateWebhookSecret(ctx context.Context, tdb *TenantDB, id int64, now time.Time) (learngate.Webhook, error) {
	secret, err := webhook.NewSecret()
	if err != nil {
		return learngate.Webhook{}, err
	}
	sealed, err := tdb.sealSecret(secret)
	if err != nil {
		return learngate.Webhook{}, err
	}
	now = now.UTC().Truncate(time.Microsecond)
	var r webhookRow
	err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		err := notFound(tx.GetContext(ctx, &r, `UPDATE webhook_endpoints SET previous_secret = secret,
			previous_secret_expires_at = $2, secret = $3, updated_at = $4 WHERE id = $1 RETURNING `+webhookColumns,
			id, now.Add(SecretOverlap), sealed, now))
		if err != nil {
			return err
		}
		// Webhook maintenance drops the previous secret once it expires.
		return markDue(ctx, tx, tdb.schema, DueWebhooks, now.Add(SecretOverlap))
	})
	if err != nil {
		return learngate.Webhook{}, err
	}
	w := r.toWebhook(now)
	w.Secret = secret
	return w, nil
}
