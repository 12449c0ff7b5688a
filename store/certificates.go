package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// Certificate job statuses (docs/api.md, "Certificates").
const (
	// CertificatePending: queued or being worked.
	CertificatePending = "pending"
	// CertificateComplete: the PDF is stored and can be downloaded.
	CertificateComplete = "complete"
	// CertificateFailed: no PDF will be made; the job's Error says why.
	CertificateFailed = "failed"
)

// Enrolment kinds a certificate can be requested for.
const (
	// TopicCertificate: a topic_enrolments row (a topic assignment).
	TopicCertificate = "topic"
	// PathwayCertificate: a pathway_enrolments row (a pathway assignment).
	PathwayCertificate = "pathway"
)

// CertificateJobLifetime is how long a job lives after its request
// (docs/api.md, "Limits"): it then reads as not found and is purged.
const CertificateJobLifetime = 24 * time.Hour

// EnrolmentRef names a topic or pathway enrolment of a tenant.
type EnrolmentRef struct {
	// Kind is TopicCertificate or PathwayCertificate.
	Kind string
	ID   int64
}

// CertificateJob is a certificate job as stored.
type CertificateJob struct {
	ID            int64  `db:"id"`
	JobID         string `db:"job_id"`
	CertificateID string `db:"certificate_id"`
	EnrolmentKind string `db:"enrolment_kind"`
	EnrolmentID   int64  `db:"enrolment_id"`
	Status        string `db:"status"`
	// Error is set when Status is failed: a sentence for the client.
	Error *string `db:"error"`
	// BlobKey is where the PDF is stored once complete.
	BlobKey     string     `db:"blob_key"`
	RequestedAt time.Time  `db:"requested_at"`
	ExpiresAt   time.Time  `db:"expires_at"`
	FinishedAt  *time.Time `db:"finished_at"`
}

// Filename is the name the job's certificate is downloaded as.
func (j CertificateJob) Filename() string { return "certificate-" + j.CertificateID + ".pdf" }

const certificateJobColumns = `id, job_id, certificate_id, enrolment_kind, enrolment_id, status, error, blob_key,
	requested_at, expires_at, finished_at`

// jobIDPattern is the form of every job_id; anything else is not found
// without a query.
var jobIDPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// RequestCertificate returns the pending certificate job of the enrolment
// ref, or queues a new one in the same transaction as its row. The
// enrolment must exist (NotFound), be current, be Conquered and belong to a
// topic or pathway that shows certificates (Invalid, with a sentence saying
// which). The enrolment row is locked, so two requests at once get one job.
func RequestCertificate(ctx context.Context, tdb *TenantDB, ref EnrolmentRef, now time.Time) (CertificateJob, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var job CertificateJob
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		facts, err := loadCertificateEnrolment(ctx, tx, ref, true)
		if err != nil {
			return err
		}
		if err := facts.eligible(ref); err != nil {
			return err
		}
		// A pending job that outlived its lifetime (the worker was down) no
		// longer counts: it is failed, and a new one is queued.
		if _, err := tx.ExecContext(ctx, `UPDATE certificate_jobs SET status = 'failed', finished_at = $3,
			error = 'The job expired before it could be worked.'
			WHERE enrolment_kind = $1 AND enrolment_id = $2 AND status = 'pending' AND expires_at <= $3`,
			ref.Kind, ref.ID, now); err != nil {
			return fmt.Errorf("expire stale certificate job: %w", err)
		}
		err = tx.GetContext(ctx, &job, `SELECT `+certificateJobColumns+` FROM certificate_jobs
			WHERE enrolment_kind = $1 AND enrolment_id = $2 AND status = 'pending'`, ref.Kind, ref.ID)
		if err == nil {
			return nil
		}
		if !isNoRows(err) {
			return fmt.Errorf("look up pending certificate job: %w", err)
		}
		job, err = insertCertificateJob(ctx, tx, tdb.schema, ref, now)
		if err != nil {
			return err
		}
		return tdb.queueCertificate(ctx, tx, job.ID)
	})
	if err != nil {
		return CertificateJob{}, err
	}
	return job, nil
}

// TenantBlobPrefix is the folder of blob keys of tenant id: every file
// of the tenant (certificate PDFs, "<schema>/certificates/<job id>.pdf")
// is kept under it, so offboarding removes them all at once.
func TenantBlobPrefix(tenantID int64) string { return SchemaName(tenantID) + "/" }

// insertCertificateJob stores a new pending job of ref.
func insertCertificateJob(ctx context.Context, tx *sqlx.Tx, schema string, ref EnrolmentRef, now time.Time) (CertificateJob, error) {
	jobID := randomHex(16)
	var job CertificateJob
	err := tx.GetContext(ctx, &job, `INSERT INTO certificate_jobs
		(job_id, certificate_id, enrolment_kind, enrolment_id, blob_key, requested_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+certificateJobColumns,
		jobID, newCertificateID(), ref.Kind, ref.ID, schema+"/certificates/"+jobID+".pdf",
		now, now.Add(CertificateJobLifetime))
	if err != nil {
		return CertificateJob{}, fmt.Errorf("insert certificate job: %w", err)
	}
	// The purge deletes the job and its file once it expires.
	if err := markDue(ctx, tx, schema, DueCertificatePurge, job.ExpiresAt); err != nil {
		return CertificateJob{}, err
	}
	return job, nil
}

// GetCertificateJob returns the job whose public id is jobID; NotFound when
// there is none in tdb's tenant or it has expired at now.
func GetCertificateJob(ctx context.Context, tdb *TenantDB, jobID string, now time.Time) (CertificateJob, error) {
	if !jobIDPattern.MatchString(jobID) {
		return CertificateJob{}, learngate.Errorf(learngate.NotFound, "not found")
	}
	var job CertificateJob
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &job, `SELECT `+certificateJobColumns+` FROM certificate_jobs
			WHERE job_id = $1 AND expires_at > $2`, jobID, now.UTC())
	})
	if err != nil {
		return CertificateJob{}, err
	}
	return job, nil
}

// certificateEnrolment is what a certificate needs of its enrolment.
type certificateEnrolment struct {
	Status          string     `db:"status"`
	Removed         bool       `db:"removed"`
	ConqueredAt     *time.Time `db:"conquered_at"`
	CertifiedDate   *time.Time `db:"certified_date"`
	Title           string     `db:"title"`
	ShowCertificate bool       `db:"show_certificate"`
	FirstName       string     `db:"first_name"`
	LastName        string     `db:"last_name"`
	Language        string     `db:"language"`
}

const (
	topicCertificateSQL = `SELECT e.status, e.removed_at IS NOT NULL AS removed, e.completed_topic_at AS conquered_at,
		e.certified_date, t.title, t.show_certificate, u.first_name, u.last_name, u.language
		FROM topic_enrolments e JOIN topics t ON t.id = e.topic_id JOIN users u ON u.id = e.user_id
		WHERE e.id = $1`
	pathwayCertificateSQL = `SELECT e.status, e.removed_at IS NOT NULL AS removed, e.conquered_at,
		e.certified_date, p.title, p.show_certificate, u.first_name, u.last_name, u.language
		FROM pathway_enrolments e JOIN pathways p ON p.id = e.pathway_id JOIN users u ON u.id = e.user_id
		WHERE e.id = $1`
)

// loadCertificateEnrolment reads the enrolment ref (locking its row when
// lock is set); NotFound when there is none.
func loadCertificateEnrolment(ctx context.Context, tx *sqlx.Tx, ref EnrolmentRef, lock bool) (certificateEnrolment, error) {
	var q string
	switch ref.Kind {
	case TopicCertificate:
		q = topicCertificateSQL
	case PathwayCertificate:
		q = pathwayCertificateSQL
	default:
		return certificateEnrolment{}, fmt.Errorf("unknown enrolment kind %q", ref.Kind)
	}
	if lock {
		q += " FOR UPDATE OF e"
	}
	var e certificateEnrolment
	if err := tx.GetContext(ctx, &e, q, ref.ID); err != nil {
		if isNoRows(err) {
			return certificateEnrolment{}, learngate.Errorf(learngate.NotFound, "not found")
		}
		return certificateEnrolment{}, fmt.Errorf("load %s enrolment %d: %w", ref.Kind, ref.ID, err)
	}
	return e, nil
}

// eligible returns an Invalid error saying why ref cannot have a
// certificate, or nil.
func (e certificateEnrolment) eligible(ref EnrolmentRef) error {
	what, owner := "Topic assignment", "topic"
	if ref.Kind == PathwayCertificate {
		what, owner = "Pathway assignment", "pathway"
	}
	switch {
	case e.Removed:
		return learngate.Errorf(learngate.Invalid, "%s %d has been removed: only a current enrolment has a certificate", what, ref.ID)
	case e.Status != "Conquered" || e.ConqueredAt == nil:
		return learngate.Errorf(learngate.Invalid, "%s %d is not conquered (its status is %s): only a conquered enrolment has a certificate",
			what, ref.ID, e.Status)
	case !e.ShowCertificate:
		return learngate.Errorf(learngate.Invalid, "The %s '%s' does not show a certificate (show_certificate is false)", owner, e.Title)
	}
	return nil
}

// isNoRows reports whether err is (or wraps) sql.ErrNoRows, translated or not.
func isNoRows(err error) bool {
	return learngate.IsCode(translate(err), learngate.NotFound)
}

// randomHex returns n random bytes as lower-case hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// newCertificateID returns a certificate id such as LG-7K3M-Q9XD-2PWA
// (60 random bits).
func newCertificateID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	var s strings.Builder
	s.WriteString("LG")
	for i, c := range b {
		if i%4 == 0 {
			s.WriteByte('-')
		}
		s.WriteByte(crockford[c%32])
	}
	return s.String()
}
