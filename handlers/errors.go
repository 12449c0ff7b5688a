// Package handlers is learngate's HTTP layer: the middleware chain, the
// public /papi routes and the ops API, all listed in routes.go.
package handlers

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"learngate"
)

// statusClientClosed is the status logged for a request whose client went
// away before its answer.
const statusClientClosed = 499

// unavailableRetryAfter is the Retry-After, in seconds, of every 503 that
// respondError writes.
const unavailableRetryAfter = "5"

// statusOf is the one map from error code to HTTP status.
var statusOf = map[learngate.Code]int{
	learngate.Invalid:       http.StatusBadRequest,
	learngate.Unauthorized:  http.StatusUnauthorized,
	learngate.NotFound:      http.StatusNotFound,
	learngate.NotAcceptable: http.StatusNotAcceptable,
	learngate.Conflict:      http.StatusConflict,
	learngate.Gone:          http.StatusGone,
	learngate.TooLarge:      http.StatusRequestEntityTooLarge,
	learngate.Unprocessable: http.StatusUnprocessableEntity,
	learngate.Unavailable:   http.StatusServiceUnavailable,
	learngate.Internal:      http.StatusInternalServerError,
}

// errorStyle is the body shape a route's errors take. The spec gives some
// endpoints odd shapes; routes choose theirs with withErrorStyle.
type errorStyle int

const (
	// styleObject: {"error": "<message>"} (the default).
	styleObject errorStyle = iota
	// styleString: the message as a bare JSON string (user endpoints' 400s, some 404s).
	styleString
	// styleErrors: {"errors": [...]} with the error's Details, or its Message
	// when it has none (enrolment creation).
	styleErrors
	// styleUser: the user endpoints. 422 is {"user_name", "email", "params",
	// "reason", "errors"} from the error's Params (the submitted fields),
	// Message and Details; every other status is styleString.
	styleUser
	// styleKnowledge: the external knowledge writes (docs/decisions.md, "External knowledge").
	// 404 is a bare JSON string ("not found"); every other status
	// {"error": "<message>"}.
	styleKnowledge
	// styleKnowledgeBatch: the external knowledge batch. 400 is {"error",
	// "index", "user_name"} from the error's Record (both null when the error
	// is about the whole batch); every other status is styleKnowledge.
	styleKnowledgeBatch
	// styleString400: a 400 (on lists, a bad page or per_page) is a bare
	// string as docs/decisions.md, "Lists and paging" gives it, every other status
	// styleObject (the webhook lists).
	styleString400
	// styleSCIM: /scim/v2. Every status is SCIM's error message
	// (respondSCIMError, docs/scim.md, "Errors").
	styleSCIM
)

const errorStyleKey = "learngate.errorStyle"

// withErrorStyle makes the errors of the routes it guards take style s.
func withErrorStyle(s errorStyle) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Set(errorStyleKey, s)
		c.Next()
	}
}

// badRequestPrefix starts the 400 messages of the routes withBadRequestPrefix
// guards (docs/decisions.md, "Error bodies").
const badRequestPrefix = "Bad request: "

const badRequestPrefixKey = "learngate.badRequestPrefix"

// withBadRequestPrefix makes respondError start the message of an Invalid
// error with "Bad request: " on the routes it guards, in whatever body
// shape their error style gives: the spec's users, topic, pathway and
// external knowledge routes and the lists say it, the other routes do not.
// Errors carry the bare message; this is the one place the prefix is added.
func withBadRequestPrefix() gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Set(badRequestPrefixKey, true)
		c.Next()
	}
}

// respondError writes err as the response: its status from statusOf and its
// body in the route's style. Errors that are not *learngate.Error, and
// Internal ones, become 500 {"error":"internal error"} and are logged once
// with the request id; their text never reaches the client.
func respondError(c *gin.Context, err error) {
	if c.Request.Context().Err() != nil && errors.Is(err, context.Canceled) {
		// The client went away: nobody reads the answer and nothing failed
		// on our side, so it is no internal error (status 499, as nginx
		// logs it).
		logger(c).Info("client closed the request", "request_id", requestID(c))
		c.AbortWithStatus(statusClientClosed)
		return
	}
	if learngate.IsCode(err, learngate.Unavailable) {
		// A dependency is down or busy (the database, a Citus worker, a
		// tenant's final switch to another worker): the client may try
		// again shortly, on any route.
		c.Header("Retry-After", unavailableRetryAfter)
	}
	if isSCIM(c) {
		respondSCIMError(c, err)
		return
	}
	code := learngate.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok || code == learngate.Internal {
		logger(c).Error("internal error", "request_id", requestID(c), "err", err)
		c.AbortWithStatusJSON(http.StatusInternalServerError, gin.H{"error": "internal error"})
		return
	}
	if code == learngate.Unavailable {
		logger(c).Warn("dependency unavailable", "request_id", requestID(c), "err", err)
		c.AbortWithStatusJSON(status, gin.H{"error": "service unavailable"})
		return
	}
	var e *learngate.Error
	errors.As(err, &e)
	if code == learngate.Invalid && c.GetBool(badRequestPrefixKey) {
		prefixed := *e
		prefixed.Message = badRequestPrefix + e.Message
		e = &prefixed
	}
	// A body over MaxBodyBytes gets one body shape on every route, whether
	// its size was declared (requireJSON) or found while reading it
	// (docs/reliability.md, B2).
	if code == learngate.TooLarge {
		c.AbortWithStatusJSON(status, gin.H{"error": e.Message})
		return
	}
	style, _ := c.Get(errorStyleKey)
	switch style {
	case styleUser:
		if code == learngate.Unprocessable {
			c.AbortWithStatusJSON(status, userUnprocessableBody(e))
			return
		}
		c.AbortWithStatusJSON(status, e.Message)
	case styleString:
		c.AbortWithStatusJSON(status, e.Message)
	case styleKnowledgeBatch, styleKnowledge:
		switch {
		case code == learngate.NotFound:
			c.AbortWithStatusJSON(status, e.Message)
		case code == learngate.Invalid && style == styleKnowledgeBatch:
			c.AbortWithStatusJSON(status, knowledgeBatchErrorBody(e))
		default:
			c.AbortWithStatusJSON(status, gin.H{"error": e.Message})
		}
	case styleString400:
		if code == learngate.Invalid {
			c.AbortWithStatusJSON(status, e.Message)
			return
		}
		c.AbortWithStatusJSON(status, gin.H{"error": e.Message})
	case styleErrors:
		messages := e.Details
		if len(messages) == 0 {
			messages = []string{e.Message}
		}
		c.AbortWithStatusJSON(status, gin.H{"errors": messages})
	default:
		c.AbortWithStatusJSON(status, gin.H{"error": e.Message})
	}
}

// userUnprocessable is the spec's 422 body of the user endpoints, in the
// spec's field order.
type userUnprocessable struct {
	UserName any            `json:"user_name"`
	Email    any            `json:"email"`
	Params   map[string]any `json:"params"`
	Reason   string         `json:"reason"`
	Errors   []string       `json:"errors"`
}

// userUnprocessableBody builds the 422 body from e: user_name and email as
// submitted (null when not), params (the submitted fields, {} when none),
// reason (the first sentence) and errors (all of them).
func userUnprocessableBody(e *learngate.Error) userUnprocessable {
	params := e.Params
	if params == nil {
		params = map[string]any{}
	}
	errs := e.Details
	if len(errs) == 0 {
		errs = []string{e.Message}
	}
	return userUnprocessable{UserName: params["user_name"], Email: params["email"], Params: params, Reason: e.Message, Errors: errs}
}

// knowledgeBatchError is the 400 body of the external knowledge batch
// (docs/decisions.md, "External knowledge"): the failing record's error, its 0-based index
// and its user_name as sent; index and user_name are null when the error is
// about the whole batch, user_name when the record sent none.
type knowledgeBatchError struct {
	Error    string  `json:"error"`
	Index    *int    `json:"index"`
	UserName *string `json:"user_name"`
}

func knowledgeBatchErrorBody(e *learngate.Error) knowledgeBatchError {
	body := knowledgeBatchError{Error: e.Message}
	if e.Record != nil {
		index := e.Record.Index
		body.Index, body.UserName = &index, e.Record.UserName
	}
	return body
}

const loggerKey = "learngate.logger"

// logger returns the request's logger (set by the logging middleware).
func logger(c *gin.Context) *slog.Logger {
	if l, ok := c.Get(loggerKey); ok {
		return l.(*slog.Logger)
	}
	return slog.Default()
}
