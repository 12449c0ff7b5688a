package learngate

import "time"

// CertificateLinkTTL is how long a certificate's download link works
// (docs/api.md, "Limits"): the Public API's url and My learning's link.
const CertificateLinkTTL = 15 * time.Minute

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
