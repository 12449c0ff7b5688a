package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"

	"learngate"
)

// Job kinds of certificates. A kind is stored in every queued job: never rename one.
const (
	// KindCertificate renders and stores one certificate PDF.
	KindCertificate = "certificate"
	// KindCertificatePurge deletes expired certificate jobs and their files.
	KindCertificatePurge = "certificate_purge"
)

// certificateMaxAttempts bounds the tries of a certificate job. Only
// storage failures are retried (a rendering failure fails the job at
// once); with River's backoff the last try is about 80 minutes after the first.
const certificateMaxAttempts = 8

// CertificatePurgeInterval is how often the purge runs.
const CertificatePurgeInterval = 10 * time.Minute

// CertificateArgs are the arguments of a certificate job: the tenant schema
// and the internal id of the certificate_jobs row in it.
type CertificateArgs struct {
	Schema string `json:"schema"`
	ID     int64  `json:"id"`
}

// Kind is the job kind of CertificateArgs.
func (CertificateArgs) Kind() string { return KindCertificate }

// InsertOpts sets the certificate job's attempts. It needs no uniqueness:
// the certificate_jobs row is unique per pending enrolment and queues one job.
func (CertificateArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: certificateMaxAttempts}
}

// CertificatePurgeArgs are the (empty) arguments of the periodic purge.
type CertificatePurgeArgs struct{}

// Kind is the job kind of CertificatePurgeArgs.
func (CertificatePurgeArgs) Kind() string { return KindCertificatePurge }

// InsertOpts keeps at most one purge per interval; a missed run is caught
// up by the next, which deletes everything expired by then.
func (CertificatePurgeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: CertificatePurgeInterval}}
}

// queueCertificate queues the certificate job of row id inside tx, the
// transaction that inserted the row.
func (t *TenantDB) queueCertificate(ctx context.Context, tx *sqlx.Tx, id int64) error {
	if _, err := t.db.jobs.InsertTx(ctx, tx.Tx, CertificateArgs{Schema: t.schema, ID: id}, nil); err != nil {
		return fmt.Errorf("queue certificate job %d: %w", id, err)
	}
	return nil
}

// CertificateWork is what the worker needs to render a job's certificate.
type CertificateWork struct {
	Job CertificateJob
	// Learner is the learner's full name; Title the topic's or pathway's.
	Learner, Title string
	// Language is the learner's language (a code of input.Languages): the
	// certificate's wording and dates follow it.
	Language string
	// ConqueredAt is set when the enrolment is still eligible.
	ConqueredAt, CertifiedDate *time.Time
	// Ineligible is set when the enrolment changed since the request (it
	// was removed, is no longer conquered, or its certificate was turned
	// off): an Invalid error whose message says why.
	Ineligible error
}

// LoadCertificateWork reads job row id and its enrolment. NotFound when the
// row is gone (purged); an enrolment deleted since the request gives Ineligible.
func LoadCertificateWork(ctx context.Context, tdb *TenantDB, id int64) (CertificateWork, error) {
	var w CertificateWork
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &w.Job, `SELECT `+certificateJobColumns+` FROM certificate_jobs WHERE id = $1`, id); err != nil {
			return err
		}
		ref := EnrolmentRef{Kind: w.Job.EnrolmentKind, ID: w.Job.EnrolmentID}
		e, err := loadCertificateEnrolment(ctx, tx, ref, false)
		if learngate.IsCode(err, learngate.NotFound) {
			w.Ineligible = learngate.Errorf(learngate.Invalid, "The enrolment no longer exists")
			return nil
		}
		if err != nil {
			return err
		}
		w.Learner = strings.TrimSpace(strings.TrimSpace(e.FirstName) + " " + strings.TrimSpace(e.LastName))
		w.Language = e.Language
		w.Title, w.ConqueredAt, w.CertifiedDate = e.Title, e.ConqueredAt, e.CertifiedDate
		w.Ineligible = e.eligible(ref)
		return nil
	})
	if err != nil {
		return CertificateWork{}, fmt.Errorf("certificate job %d in %s: %w", id, tdb.schema, err)
	}
	return w, nil
}

// CompleteCertificateJob marks pending job row id complete at now and, in
// the same transaction, records certificate.completed through events. It
// reports false, and changes nothing, when the job is no longer pending.
func CompleteCertificateJob(ctx context.Context, tdb *TenantDB, id int64, now time.Time, events EventRecorder) (bool, error) {
	return finishCertificateJob(ctx, tdb, id, CertificateComplete, nil, now, events)
}

// FailCertificateJob marks pending job row id failed at now with message
// (a sentence for the client) and records certificate.failed in the same
// transaction. It reports false when the job is no longer pending.
func FailCertificateJob(ctx context.Context, tdb *TenantDB, id int64, message string, now time.Time, events EventRecorder) (bool, error) {
	if strings.TrimSpace(message) == "" {
		message = "The certificate could not be made."
	}
	return finishCertificateJob(ctx, tdb, id, CertificateFailed, &message, now, events)
}

func finishCertificateJob(ctx context.Context, tdb *TenantDB, id int64, status string, message *string,
	now time.Time, events EventRecorder) (bool, error) {
	var done bool
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var job CertificateJob
		err := tx.GetContext(ctx, &job, `UPDATE certificate_jobs SET status = $2, error = $3, finished_at = $4
			WHERE id = $1 AND status = 'pending' RETURNING `+certificateJobColumns,
			id, status, message, now.UTC().Truncate(time.Microsecond))
		if isNoRows(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("finish certificate job %d: %w", id, err)
		}
		done = true
		if events == nil {
			return tdb.RecordEvents(ctx, tx, certificateEvent(job, now))
		}
		return events.RecordEvent(ctx, tx, tdb.schema, certificateEvent(job, now))
	})
	if err != nil {
		return false, fmt.Errorf("%s: %w", tdb.schema, err)
	}
	return done, nil
}

// ExpiredCertificateJobs returns up to limit jobs of tdb's tenant that have
// expired at now, whatever their status, oldest first.
func ExpiredCertificateJobs(ctx context.Context, tdb *TenantDB, now time.Time, limit int) ([]CertificateJob, error) {
	jobs := []CertificateJob{}
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &jobs, `SELECT `+certificateJobColumns+` FROM certificate_jobs
			WHERE expires_at <= $1 ORDER BY expires_at, id LIMIT $2`, now.UTC(), limit)
	})
	if err != nil {
		return nil, fmt.Errorf("expired certificate jobs of %s: %w", tdb.schema, err)
	}
	return jobs, nil
}

// DeleteCertificateJobs deletes the job rows ids of tdb's tenant in one statement.
func DeleteCertificateJobs(ctx context.Context, tdb *TenantDB, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM certificate_jobs WHERE id = ANY($1)`, pq.Array(ids))
		return err
	})
	if err != nil {
		return fmt.Errorf("delete certificate jobs of %s: %w", tdb.schema, err)
	}
	return nil
}

// ServedTenantSchemas lists the schemas of every tenant that is active or
// suspended (not provisioning), by tenant id: housekeeping such as the
// certificate purge covers suspended tenants too.
func (db *DB) ServedTenantSchemas(ctx context.Context) ([]string, error) {
	var ids []int64
	err := db.pool.SelectContext(ctx, &ids, `SELECT id FROM public.tenants WHERE status <> $1 ORDER BY id`,
		learngate.TenantProvisioning)
	if err != nil {
		return nil, translate(fmt.Errorf("list tenants: %w", err))
	}
	schemas := make([]string, len(ids))
	for i, id := range ids {
		schemas[i] = SchemaName(id)
	}
	return schemas, nil
}

// EventRecorder records the certificate events (docs/decisions.md, "Webhooks":
// "an event is recorded in the same transaction as the change that caused
// it"). The store calls RecordEvent inside the transaction that finishes
// the job, on the tenant's schema, so an event is recorded exactly when its
// change commits; an error rolls the change back. A nil EventRecorder means
// the webhooks (TenantDB.RecordEvents); tests pass their own.
type EventRecorder interface {
	RecordEvent(ctx context.Context, tx *sqlx.Tx, schema string, ev Event) error
}

// NoEvents is an EventRecorder that records nothing.
type NoEvents struct{}

// RecordEvent does nothing.
func (NoEvents) RecordEvent(context.Context, *sqlx.Tx, string, Event) error { return nil }

// certificateEvent is the event of a job that has just finished.
func certificateEvent(job CertificateJob, now time.Time) Event {
	typ := EventCertificateCompleted
	if job.Status == CertificateFailed {
		typ = EventCertificateFailed
	}
	return Event{Type: typ, At: now, Data: learngate.CertificateEventData{
		JobID: job.JobID, Status: job.Status, Error: job.Error, CertificateID: job.CertificateID,
		EnrolmentKind: job.EnrolmentKind, EnrolmentID: job.EnrolmentID,
	}}
}
