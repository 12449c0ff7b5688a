package papi

import (
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/blob"
	"learngate/handlers/httpx"
	"learngate/input"
	"learngate/store"
)

// Certificates (docs/api.md, "Certificates"; docs/decisions.md,
// "Certificates"). Errors are {"error": "..."}.

// certificateJobBody is the spec's Certificate job: url only when
// complete, error only when failed.
type certificateJobBody struct {
	JobID  string `json:"job_id"`
	Status string `json:"status"`
	URL    string `json:"url,omitempty"`
	Error  string `json:"error,omitempty"`
}

// requestCertificate answers GET /papi/certificates?topic_assignment_id=<id>
// or ?pathway_assignment_id=<id>: 202 with the job, the pending one when
// the enrolment already has one.
func (a *API) requestCertificate(c *gin.Context) {
	ref, err := parseCertificateRequest(c.Request.URL.Query())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	job, err := store.RequestCertificate(c.Request.Context(), httpx.TenantDB(c), ref, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusAccepted, certificateJobBody{JobID: job.JobID, Status: job.Status})
}

// showCertificateJob answers GET /papi/certificates/status/{job_id}: the
// job, with a fresh url when complete; 404 once it has expired.
func (a *API) showCertificateJob(c *gin.Context) {
	now := a.gate.Now()
	job, err := store.GetCertificateJob(c.Request.Context(), httpx.TenantDB(c), c.Param("job_id"), now)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	body := certificateJobBody{JobID: job.JobID, Status: job.Status}
	switch job.Status {
	case store.CertificateComplete:
		// The link never outlives the job: its file is purged then.
		link := blob.Link{Scheme: a.deps.PublicScheme, Host: c.Request.Host, TenantID: httpx.CurrentTenant(c).ID,
			Filename: job.Filename(), Now: now, TTL: min(learngate.CertificateLinkTTL, job.ExpiresAt.Sub(now))}
		if body.URL, err = a.deps.Blobs.URL(c.Request.Context(), job.BlobKey, link); err != nil {
			httpx.RespondError(c, err)
			return
		}
	case store.CertificateFailed:
		if job.Error != nil {
			body.Error = *job.Error
		}
	}
	c.JSON(http.StatusOK, body)
}

// downloadCertificate answers GET /papi/certificates/download/{token}, the
// url of a complete job when files are kept in a local folder. No API key:
// the signed token is the credential, and it only works on the host of the
// tenant it was made for. 404 for tokens that are not a valid link of this
// tenant, 410 once expired, 401 when the tenant is suspended or its API is off.
// HEAD on the same url answers the same status and headers, without a body.
func (a *API) downloadCertificate(c *gin.Context) {
	if a.deps.Downloads == nil {
		httpx.RespondError(c, learngate.Errorf(learngate.NotFound, "not found"))
		return
	}
	t := httpx.CurrentTenant(c)
	if t.Status != learngate.TenantActive || !t.APIEnabled {
		httpx.RespondError(c, learngate.Errorf(learngate.Unauthorized, "unauthorized"))
		return
	}
	d, err := a.deps.Downloads.Open(c.Param("token"), t.ID, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	defer d.Body.Close()
	var body io.Reader = d.Body
	if c.Request.Method == http.MethodHead {
		body = http.NoBody // the headers of GET, Content-Length included
	}
	c.DataFromReader(http.StatusOK, d.Size, d.ContentType, body, map[string]string{
		"Content-Disposition":    d.Disposition,
		"Cache-Control":          "private, no-store",
		"X-Content-Type-Options": "nosniff",
	})
}

// certificateParams are the two ways to name the enrolment.
var certificateParams = []struct{ name, kind string }{
	{"topic_assignment_id", store.TopicCertificate},
	{"pathway_assignment_id", store.PathwayCertificate},
}

// parseCertificateRequest reads the one enrolment a certificate request names.
func parseCertificateRequest(q url.Values) (store.EnrolmentRef, error) {
	var ref store.EnrolmentRef
	var given string
	for _, p := range certificateParams {
		values, ok := q[p.name]
		if !ok {
			continue
		}
		if given != "" {
			return ref, learngate.Errorf(learngate.Invalid, "Give either topic_assignment_id or pathway_assignment_id, not both")
		}
		given = p.name
		if len(values) > 1 {
			return ref, learngate.Errorf(learngate.Invalid, "Give %s only once", p.name)
		}
		id, err := strconv.ParseInt(values[0], 10, 64)
		if err != nil || id < 1 {
			return ref, learngate.Errorf(learngate.Invalid, "Illegal value '%s' for '%s': it must be a positive whole number",
				input.Quote(values[0]), p.name)
		}
		ref = store.EnrolmentRef{Kind: p.kind, ID: id}
	}
	if given == "" {
		return ref, learngate.Errorf(learngate.Invalid, "Missing parameter: give topic_assignment_id or pathway_assignment_id")
	}
	return ref, nil
}
