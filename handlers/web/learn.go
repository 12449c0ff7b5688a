package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/text/language"

	"learngate"
	"learngate/blob"
	"learngate/handlers/httpx"
	"learngate/input"
	"learngate/store"
	"learngate/store/list"
)

// "My learning" (docs/decisions.md, "Sign-in"): the signed-in learner's
// current topic and pathway enrolments, their external knowledge records,
// and their certificates through the
// certificate job and its 15-minute link. A learner reaches only their own.

var languageEnglish = language.English

// learnPageSize bounds each list of the page.
const learnPageSize = 500

// enrolmentRow is one enrolment as the page shows it.
type enrolmentRow struct {
	Kind, Title, Status, Due, Conquered, CertifiedUntil string
	ID                                                  int64
	Overdue, Certificate                                bool
	CSRF                                                string
	Labels                                              rowLabels
}

// rowLabels are a row's translated cell labels (phone layout).
type rowLabels struct {
	Title, Status, Due, Overdue, Conquered, Certificate, Download string
}

// knowledgeRow is one external knowledge record as the page shows it.
type knowledgeRow struct {
	Title, Type, Provider, Obtained, Expires string
}

func formatDay(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format("2006-01-02")
}

// learnPage answers GET /learn.
func (s *Pages) learnPage(c *gin.Context) {
	ctx := c.Request.Context()
	user := currentLearner(c)
	data := s.newPageData(c, pageLanguage(user.Language), "My learning")
	data.SignedIn, data.CSRF = true, s.csrfToken(c)
	data.Learner = user.FirstName + " " + user.LastName
	tr := data.T
	labels := rowLabels{tr("Title"), tr("Status"), tr("Due"), tr("Overdue"), tr("Conquered"), tr("Certificate"), tr("Download certificate")}
	now := s.gate.Now()
	f := list.EnrolmentFilter{UserID: &user.ID}
	topics, _, err := store.ListTopicEnrolments(ctx, httpx.TenantDB(c), f, list.Page{Number: 1, Size: learnPageSize})
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	for _, e := range topics {
		data.Topics = append(data.Topics, enrolmentRow{Kind: store.TopicCertificate, ID: e.ID, Title: e.Topic.Title,
			Status: e.Status, Due: formatDay(e.DueDate), Conquered: formatDay(e.CompletedTopicAt),
			CertifiedUntil: formatDay(e.CertifiedDate), CSRF: data.CSRF, Labels: labels,
			Overdue:     e.DueDate != nil && e.DueDate.Before(now) && e.Status != learngate.StatusConquered,
			Certificate: e.Status == learngate.StatusConquered && e.Topic.ShowCertificate})
	}
	pathways, _, err := store.ListPathwayEnrolments(ctx, httpx.TenantDB(c), f, list.Page{Number: 1, Size: learnPageSize})
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	for _, e := range pathways {
		data.Pathways = append(data.Pathways, enrolmentRow{Kind: store.PathwayCertificate, ID: e.ID, Title: e.Pathway.Title,
			Status: e.Status, Due: formatDay(e.DueDate), Conquered: formatDay(e.ConqueredAt),
			CertifiedUntil: formatDay(e.CertifiedDate), CSRF: data.CSRF, Labels: labels,
			Overdue:     e.DueDate != nil && e.DueDate.Before(now) && e.Status != learngate.StatusConquered,
			Certificate: e.Status == learngate.StatusConquered && e.Pathway.ShowCertificate})
	}
	records, _, err := store.ListExternalKnowledges(ctx, httpx.TenantDB(c), list.KnowledgeFilter{UserName: user.UserName},
		list.Page{Number: 1, Size: learnPageSize})
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	for _, k := range records {
		row := knowledgeRow{Title: k.Title, Provider: k.Provider, Obtained: k.DateObtained}
		if k.KnowledgeType >= 1 && k.KnowledgeType <= len(input.KnowledgeTypes) {
			row.Type = tr(input.KnowledgeTypes[k.KnowledgeType-1])
		}
		if k.Expires != nil {
			row.Expires = *k.Expires
		}
		data.Knowledge = append(data.Knowledge, row)
	}
	s.renderPage(c, http.StatusOK, "learn", data)
}

// ownEnrolment reports whether ref is a current enrolment of the learner;
// it answers the 404 page itself otherwise.
func (s *Pages) ownEnrolment(c *gin.Context, ref store.EnrolmentRef) bool {
	owner, err := store.EnrolmentOwner(c.Request.Context(), httpx.TenantDB(c), ref)
	if err != nil && !learngate.IsCode(err, learngate.NotFound) {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return false
	}
	if err != nil || owner != currentLearner(c).ID {
		s.pageError(c, http.StatusNotFound, "This certificate was not found.", nil)
		return false
	}
	return true
}

// requestLearnerCertificate answers POST /learn/certificates (kind, id):
// queues the certificate job of the learner's own enrolment, then on to
// its page.
func (s *Pages) requestLearnerCertificate(c *gin.Context) {
	kind := c.PostForm("kind")
	id, err := strconv.ParseInt(c.PostForm("id"), 10, 64)
	if err != nil || id < 1 || (kind != store.TopicCertificate && kind != store.PathwayCertificate) {
		s.pageError(c, http.StatusBadRequest, "This certificate was not found.", nil)
		return
	}
	ref := store.EnrolmentRef{Kind: kind, ID: id}
	if !s.ownEnrolment(c, ref) {
		return
	}
	job, err := store.RequestCertificate(c.Request.Context(), httpx.TenantDB(c), ref, s.gate.Now())
	if learngate.IsCode(err, learngate.Invalid) || learngate.IsCode(err, learngate.NotFound) {
		s.pageError(c, http.StatusUnprocessableEntity, "No certificate can be made for this enrolment.", nil)
		return
	}
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	s.redirectPage(c, "/learn/certificates/"+job.JobID)
}

// learnerCertificate answers GET /learn/certificates/{job_id}: while the
// job is pending, a page with a "Check again" button (no timed refresh,
// which axe-core counts as a critical violation), once complete the
// 15-minute download link.
func (s *Pages) learnerCertificate(c *gin.Context) {
	ctx := c.Request.Context()
	now := s.gate.Now()
	job, err := store.GetCertificateJob(ctx, httpx.TenantDB(c), c.Param("job_id"), now)
	if learngate.IsCode(err, learngate.NotFound) {
		s.pageError(c, http.StatusNotFound, "This certificate was not found.", nil)
		return
	}
	if err != nil {
		s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
		return
	}
	if !s.ownEnrolment(c, store.EnrolmentRef{Kind: job.EnrolmentKind, ID: job.EnrolmentID}) {
		return
	}
	user := currentLearner(c)
	data := s.newPageData(c, pageLanguage(user.Language), "Certificate")
	data.SignedIn, data.CSRF = true, s.csrfToken(c)
	data.Link, data.LinkText = "/learn", data.T("Back to My learning")
	switch job.Status {
	case store.CertificateComplete:
		link := blob.Link{Scheme: s.deps.PublicScheme, Host: c.Request.Host, TenantID: httpx.CurrentTenant(c).ID,
			Filename: job.Filename(), Now: now, TTL: min(learngate.CertificateLinkTTL, job.ExpiresAt.Sub(now))}
		u, err := s.deps.Blobs.URL(ctx, job.BlobKey, link)
		if err != nil {
			s.pageError(c, http.StatusInternalServerError, "Something went wrong. Please try again.", err)
			return
		}
		s.redirectPage(c, u)
		return
	case store.CertificateFailed:
		data.Message = "No certificate can be made for this enrolment."
		s.renderPage(c, http.StatusUnprocessableEntity, "message", data)
	default:
		data.Message = data.T("Your certificate is being prepared. It takes a few seconds.")
		data.Again = "/learn/certificates/" + job.JobID
		s.renderPage(c, http.StatusOK, "message", data)
	}
}
