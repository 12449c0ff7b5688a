package learngate

import (
	"encoding/json"
	"time"
)

// Webhook is a tenant's webhook endpoint as the API shows it. Its JSON
// carries the secret only when Secret is set: by store.CreateWebhook and
// store.RotateWebhookSecret, the two moments it is shown.
type Webhook struct {
	ID          int64
	URL         string
	Description string
	Events      []string
	Enabled     bool
	// DisabledReason says why the endpoint was disabled; nil when enabled.
	DisabledReason *string
	// PreviousSecretExpiresAt is when the secret replaced by the last
	// rotation stops signing; nil when it no longer does.
	PreviousSecretExpiresAt *time.Time
	CreatedAt, UpdatedAt    time.Time
	Secret                  string
}

// webhookJSON is the webhook object in its field order.
type webhookJSON struct {
	ID                      int64      `json:"id"`
	URL                     string     `json:"url"`
	Description             string     `json:"description"`
	Events                  []string   `json:"events"`
	Enabled                 bool       `json:"enabled"`
	DisabledReason          *string    `json:"disabled_reason"`
	PreviousSecretExpiresAt *timestamp `json:"previous_secret_expires_at"`
	CreatedAt               timestamp  `json:"created_at"`
	UpdatedAt               timestamp  `json:"updated_at"`
	Secret                  string     `json:"secret,omitempty"`
}

// MarshalJSON writes the webhook object.
func (w Webhook) MarshalJSON() ([]byte, error) {
	return json.Marshal(webhookJSON{
		ID: w.ID, URL: w.URL, Description: w.Description, Events: w.Events, Enabled: w.Enabled,
		DisabledReason: w.DisabledReason, PreviousSecretExpiresAt: optionalTimestamp(w.PreviousSecretExpiresAt),
		CreatedAt: timestamp(w.CreatedAt), UpdatedAt: timestamp(w.UpdatedAt), Secret: w.Secret,
	})
}

// WebhookInput is a create or update request as the handler read it. A nil
// field was not given: on update it stays as it is.
type WebhookInput struct {
	URL         *string
	Events      []string
	Description *string
	// Enabled re-enables (true) or disables (false) the endpoint; update only.
	Enabled *bool
}

// Delivery is one event's delivery to one endpoint, as the API lists it:
// the outcome of its latest attempt and every attempt.
type Delivery struct {
	ID        int64
	EventID   string
	EventType string
	Status    string
	// Attempt is the number of attempts made (the latest one's number).
	Attempt       int
	StatusCode    *int
	DurationMS    *int
	Error         *string
	AttemptedAt   *time.Time
	NextAttemptAt *time.Time
	CreatedAt     time.Time
	Attempts      []DeliveryAttempt
}

// DeliveryAttempt is one HTTP call of a delivery.
type DeliveryAttempt struct {
	Attempt int
	// StatusCode is the answer's status; nil when there was none.
	StatusCode  *int
	DurationMS  int
	Error       *string
	AttemptedAt time.Time
}

// MarshalJSON writes the attempt object.
func (a DeliveryAttempt) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Attempt     int       `json:"attempt"`
		StatusCode  *int      `json:"status_code"`
		DurationMS  int       `json:"duration_ms"`
		Error       *string   `json:"error"`
		AttemptedAt timestamp `json:"attempted_at"`
	}{a.Attempt, a.StatusCode, a.DurationMS, a.Error, timestamp(a.AttemptedAt)})
}

// deliveryJSON is the delivery object in its field order.
type deliveryJSON struct {
	ID            int64             `json:"id"`
	EventID       string            `json:"event_id"`
	EventType     string            `json:"event_type"`
	Status        string            `json:"status"`
	Attempt       int               `json:"attempt"`
	StatusCode    *int              `json:"status_code"`
	DurationMS    *int              `json:"duration_ms"`
	Error         *string           `json:"error"`
	AttemptedAt   *timestamp        `json:"attempted_at"`
	NextAttemptAt *timestamp        `json:"next_attempt_at"`
	CreatedAt     timestamp         `json:"created_at"`
	Attempts      []DeliveryAttempt `json:"attempts"`
}

// MarshalJSON writes the delivery object.
func (d Delivery) MarshalJSON() ([]byte, error) {
	attempts := d.Attempts
	if attempts == nil {
		attempts = []DeliveryAttempt{}
	}
	return json.Marshal(deliveryJSON{
		ID: d.ID, EventID: d.EventID, EventType: d.EventType, Status: d.Status, Attempt: d.Attempt,
		StatusCode: d.StatusCode, DurationMS: d.DurationMS, Error: d.Error,
		AttemptedAt: optionalTimestamp(d.AttemptedAt), NextAttemptAt: optionalTimestamp(d.NextAttemptAt),
		CreatedAt: timestamp(d.CreatedAt), Attempts: attempts,
	})
}
