package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"learngate"
	"learngate/blob"
	"learngate/certificate"
	"learngate/store"
)

// certificateWorker renders certificate jobs' PDFs and stores them.
type certificateWorker struct {
	river.WorkerDefaults[store.CertificateArgs]
	db     *store.DB
	blobs  blob.Store
	events store.EventRecorder
	now    func() time.Time
	logger *slog.Logger
}

// Work renders the certificate of job row Args.ID and stores it, then marks
// the job complete. The job is marked failed (and not retried) when its
// enrolment is no longer eligible or the PDF cannot be rendered; storage
// failures are retried, and the last attempt's failure fails the job. A job
// that is gone, finished or expired is left alone; one whose tenant is gone
// removes the tenant's files (see tenant.Registry.Delete) and is cancelled.
func (w *certificateWorker) Work(ctx context.Context, job *river.Job[store.CertificateArgs]) error {
	tn, tdb, run, err := jobTenant(ctx, w.db, job.Args.Schema, workIfInactive, w.removeFiles)
	if !run {
		return err
	}
	work, err := store.LoadCertificateWork(ctx, tdb, job.Args.ID)
	if learngate.IsCode(err, learngate.NotFound) {
		return river.JobCancel(fmt.Errorf("certificate job %d of %s no longer exists", job.Args.ID, tn.Slug))
	}
	if err != nil {
		return err
	}
	if work.Job.Status != store.CertificatePending {
		return nil
	}
	if !w.now().Before(work.Job.ExpiresAt) {
		return river.JobCancel(fmt.Errorf("certificate job %s of %s expired before it was worked", work.Job.JobID, tn.Slug))
	}
	if work.Ineligible != nil {
		return w.fail(ctx, tdb, work.Job, learngate.ErrorMessage(work.Ineligible), work.Ineligible)
	}

	pdf, err := certificate.Render(certificateData(tn, work, w.now()), certificate.Options{})
	if learngate.IsCode(err, learngate.Invalid) {
		// A text the fonts cannot print: the reason names the characters.
		return w.fail(ctx, tdb, work.Job, learngate.ErrorMessage(err), err)
	}
	if err != nil {
		// The tenant reads a fixed reason; the renderer's error is logged.
		return w.fail(ctx, tdb, work.Job, "The certificate could not be rendered.", err)
	}
	if err := w.blobs.Put(ctx, work.Job.BlobKey, pdf, "application/pdf"); err != nil {
		if job.Attempt >= job.MaxAttempts {
			return w.fail(ctx, tdb, work.Job, "The certificate could not be stored.", err)
		}
		return fmt.Errorf("store certificate %s of %s: %w", work.Job.JobID, tn.Slug, err)
	}
	if _, err := store.CompleteCertificateJob(ctx, tdb, work.Job.ID, w.now(), w.events); err != nil {
		return err
	}
	w.logger.InfoContext(ctx, "certificate made", "tenant", tn.Slug, "job_id", work.Job.JobID,
		"certificate_id", work.Job.CertificateID, "bytes", len(pdf), "attempt", job.Attempt)
	return nil
}

// removeFiles removes the files of offboarded tenant tenantID: a PDF stored
// by an attempt that raced the offboarding (stored after its files were
// removed) must not stay behind.
func (w *certificateWorker) removeFiles(ctx context.Context, tenantID int64) error {
	if err := w.blobs.DeletePrefix(ctx, store.TenantBlobPrefix(tenantID)); err != nil {
		return fmt.Errorf("remove the files of offboarded tenant %d: %w", tenantID, err)
	}
	return nil
}

// fail marks the job failed with message (for the client) and cancels the
// River job with cause (for the log): it will not be retried.
func (w *certificateWorker) fail(ctx context.Context, tdb *store.TenantDB, job store.CertificateJob, message string, cause error) error {
	if _, err := store.FailCertificateJob(ctx, tdb, job.ID, message, w.now(), w.events); err != nil {
		return err
	}
	w.logger.WarnContext(ctx, "certificate failed", "schema", tdb.Schema(), "job_id", job.JobID, "err", cause)
	return river.JobCancel(fmt.Errorf("certificate job %s: %w", job.JobID, cause))
}

// certificateData is what the certificate of work shows, dated in the
// tenant's time zone.
func certificateData(tn learngate.Tenant, work store.CertificateWork, now time.Time) certificate.Data {
	loc, err := time.LoadLocation(tn.Timezone)
	if err != nil {
		loc = time.UTC
	}
	kind := certificate.Topic
	if work.Job.EnrolmentKind == store.PathwayCertificate {
		kind = certificate.Pathway
	}
	d := certificate.Data{
		Organisation: tn.Name, Learner: work.Learner, Language: work.Language, Kind: kind, Title: work.Title,
		CertifiedUntil: work.CertifiedDate, CertificateID: work.Job.CertificateID, Issued: now, Location: loc,
	}
	if work.ConqueredAt != nil {
		d.Conquered = *work.ConqueredAt
	}
	return d
}

// purgeBatch is how many expired jobs the purge deletes per statement.
const purgeBatch = 500

// certificatePurgeWorker deletes expired certificate jobs and their files
// in every tenant that is not provisioning and has one expired (see sweepDue).
type certificatePurgeWorker struct {
	river.WorkerDefaults[store.CertificatePurgeArgs]
	db     *store.DB
	blobs  blob.Store
	now    func() time.Time
	logger *slog.Logger
}

// Timeout lets a purge over many tenants run longer than River's default minute.
func (w *certificatePurgeWorker) Timeout(*river.Job[store.CertificatePurgeArgs]) time.Duration {
	return activationTimeout
}

// Work deletes, tenant by tenant, each expired job's file and then its row.
// A row whose file cannot be deleted stays for the next run; a tenant that
// fails does not stop the others, and the job then fails with every error.
func (w *certificatePurgeWorker) Work(ctx context.Context, _ *river.Job[store.CertificatePurgeArgs]) error {
	now := w.now()
	return sweepDue(ctx, w.db, store.DueCertificatePurge, now, func(schema string, tdb *store.TenantDB) error {
		n, err := w.purgeTenant(ctx, tdb, now)
		if n > 0 {
			w.logger.InfoContext(ctx, "expired certificates purged", "schema", schema, "jobs", n)
		}
		return err
	})
}

// purgeTenant purges one tenant and returns how many jobs it deleted.
func (w *certificatePurgeWorker) purgeTenant(ctx context.Context, tdb *store.TenantDB, now time.Time) (int, error) {
	deleted := 0
	for {
		expired, err := store.ExpiredCertificateJobs(ctx, tdb, now, purgeBatch)
		if err != nil {
			return deleted, err
		}
		ids := make([]int64, 0, len(expired))
		var errs []error
		for _, job := range expired {
			if err := w.blobs.Delete(ctx, job.BlobKey); err != nil {
				errs = append(errs, err)
				continue
			}
			ids = append(ids, job.ID)
		}
		if err := store.DeleteCertificateJobs(ctx, tdb, ids); err != nil {
			return deleted, err
		}
		deleted += len(ids)
		if len(errs) > 0 || len(expired) < purgeBatch {
			return deleted, errors.Join(errs...)
		}
	}
}
