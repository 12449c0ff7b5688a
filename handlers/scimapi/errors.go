package scimapi

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/scim"
)

// SCIM's error message (RFC 7644 §3.12; docs/scim.md, "Errors"): every
// /scim/v2 answer that is an error, from the request chain or a handler.

// ErrorBody is SCIM's error body; status is the code as a string.
type ErrorBody struct {
	Schemas  []string `json:"schemas"`
	Status   string   `json:"status"`
	SCIMType string   `json:"scimType,omitempty"`
	Detail   string   `json:"detail"`
}

// ContentType is the media type of every /scim/v2 answer.
const ContentType = "application/scim+json"

// scimStatusOf is statusOf with the SCIM exceptions: the user parser's
// 422s (a value that is not valid) are 400 invalidValue.
func scimStatusOf(code learngate.Code) (int, string) {
	switch code {
	case learngate.Unprocessable:
		return http.StatusBadRequest, scim.InvalidValue
	case learngate.Invalid:
		return http.StatusBadRequest, scim.InvalidValue
	case learngate.Conflict:
		return http.StatusConflict, scim.Uniqueness
	}
	return httpx.StatusOf(code), ""
}

// respondSCIMError is SCIM's Responder: err as SCIM's error message.
// Internal errors are logged once and answered "internal error", as
// respondPlain does.
func respondSCIMError(c *gin.Context, err error) {
	var limited *httpx.RateLimitedError
	if errors.As(err, &limited) {
		abortSCIM(c, http.StatusTooManyRequests, "", "Rate limit exceeded")
		return
	}
	code := learngate.ErrorCode(err)
	status, scimType := scimStatusOf(code)
	if status == 0 || code == learngate.Internal {
		if !errors.Is(err, context.Canceled) {
			httpx.LogInternal(c, err)
		}
		abortSCIM(c, http.StatusInternalServerError, "", "internal error")
		return
	}
	if code == learngate.Unavailable {
		httpx.Logger(c).Warn("dependency unavailable", "request_id", httpx.RequestID(c), "err", err)
		abortSCIM(c, status, "", "service unavailable")
		return
	}
	var e *learngate.Error
	errors.As(err, &e)
	if e.SCIMType != "" {
		scimType = e.SCIMType
	}
	abortSCIM(c, status, scimType, e.Message)
}

// abortSCIM ends the request with a SCIM error message.
func abortSCIM(c *gin.Context, status int, scimType, detail string) {
	c.Header("Content-Type", ContentType)
	c.AbortWithStatusJSON(status, ErrorBody{Schemas: []string{scim.ErrorSchema}, Status: strconv.Itoa(status),
		SCIMType: scimType, Detail: detail})
}

// refuseSCIMKey answers an Idempotency-Key's refusal on /scim/v2: SCIM's
// error message without a scimType.
func refuseSCIMKey(c *gin.Context, status int, message string) {
	abortSCIM(c, status, "", message)
}

// scimJSON answers status with v as application/scim+json.
func scimJSON(c *gin.Context, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.Data(status, ContentType, body)
}

// requireSCIMJSON is requireJSON for /scim/v2: POST, PUT and PATCH bodies
// may be application/scim+json or application/json (406 otherwise), and
// are capped at httpx.MaxBodyBytes (413).
func (a *API) requireSCIMJSON(c *gin.Context) {
	m := c.Request.Method
	if (m == http.MethodPost || m == http.MethodPut || m == http.MethodPatch) && httpx.HasBody(c.Request) {
		mt, _, err := mime.ParseMediaType(c.GetHeader("Content-Type"))
		if err != nil || (mt != "application/json" && mt != ContentType) {
			httpx.RespondError(c, learngate.Errorf(learngate.NotAcceptable, "Content-Type must be application/scim+json or application/json"))
			return
		}
	}
	a.gate.LimitBody(c)
}

// scimUserAttributes names, for each learngate user field a user rule's
// message may name, the SCIM attribute the client sent it as.
var scimUserAttributes = []struct{ field, attribute string }{
	{"user_name", "userName"},
	{"first_name", "name.givenName"},
	{"last_name", "name.familyName"},
	{"email", "emails.value"},
	{"type", "userType"},
	{"language", "preferredLanguage"},
	{"lms_learner_id", scim.EnterpriseSchema + ":employeeNumber"},
	{"manager_email", scim.EnterpriseSchema + ":manager"},
}

// scimUserError is err with its message and details naming SCIM's
// attributes instead of learngate's user fields, for the errors of the
// API's user rules (records.ParseUser, the store's save) on /scim/v2. The
// messages' forms are "Illegal value '<v>' for '<field>'", "Invalid
// <field> '<v>'" and "<field> ..." (is too long, is already taken).
// Internal and unavailable errors stay as they are (logged, not shown).
func scimUserError(err error) error {
	var e *learngate.Error
	if !errors.As(err, &e) || e.Code == learngate.Internal || e.Code == learngate.Unavailable {
		return err
	}
	renamed := *e
	renamed.Message = scimAttributeNames(e.Message)
	renamed.Details = make([]string, len(e.Details))
	for i, d := range e.Details {
		renamed.Details[i] = scimAttributeNames(d)
	}
	return &renamed
}

// scimAttributeNames rewrites the learngate field one message names.
func scimAttributeNames(msg string) string {
	for _, a := range scimUserAttributes {
		switch {
		case strings.HasSuffix(msg, " for '"+a.field+"'"):
			return strings.TrimSuffix(msg, a.field+"'") + a.attribute + "'"
		case strings.HasPrefix(msg, "Invalid "+a.field+" "):
			return "Invalid " + a.attribute + strings.TrimPrefix(msg, "Invalid "+a.field)
		case strings.HasPrefix(msg, a.field+" "):
			return a.attribute + strings.TrimPrefix(msg, a.field)
		}
	}
	return msg
}
