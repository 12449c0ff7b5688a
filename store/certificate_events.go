package store

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// Event types of certificates (DECISIONS.md section 10).
const (
	EventCertificateCompleted = "certificate.completed"
	EventCertificateFailed    = "certificate.failed"
)

// Event is a change to a tenant's data that webhooks announce: its type and
// the resource as the API shows it.
type Event struct {
	Type string
	Data any
}

// EventRecorder is the hook point of the webhooks work (DECISIONS.md
// section 10: "an event is recorded in the same transaction as the change
// that caused it"). The store calls RecordEvent inside the transaction that
// makes the change, on the tenant's schema, so an event is recorded exactly
// when its change commits. An error rolls the change back.
type EventRecorder interface {
	RecordEvent(ctx context.Context, tx *sqlx.Tx, schema string, ev Event) error
}

// NoEvents is the EventRecorder until webhooks exist: it records nothing.
type NoEvents struct{}

// RecordEvent does nothing.
func (NoEvents) RecordEvent(context.Context, *sqlx.Tx, string, Event) error { return nil }

// CertificateEventData is the data of certificate.completed and
// certificate.failed: the certificate job as GET /papi/certificates/status
// shows it, without the url (a url expires in 15 minutes; a receiver asks
// for a fresh one), plus what it certifies.
type CertificateEventData struct {
	JobID         string  `json:"job_id"`
	Status        string  `json:"status"`
	Error         *string `json:"error,omitempty"`
	CertificateID string  `json:"certificate_id"`
	// EnrolmentKind is topic or pathway; EnrolmentID the id of its topic or pathway assignment.
	EnrolmentKind string `json:"enrolment_kind"`
	EnrolmentID   int64  `json:"enrolment_id"`
}

// certificateEvent is the event of a job that has just finished.
func certificateEvent(job CertificateJob) Event {
	typ := EventCertificateCompleted
	if job.Status == CertificateFailed {
		typ = EventCertificateFailed
	}
	return Event{Type: typ, Data: CertificateEventData{
		JobID: job.JobID, Status: job.Status, Error: job.Error, CertificateID: job.CertificateID,
		EnrolmentKind: job.EnrolmentKind, EnrolmentID: job.EnrolmentID,
	}}
}
