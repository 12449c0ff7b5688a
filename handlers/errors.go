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

// Responder answers an error in the shape of the application whose route
// group it guards (withResponder): the shared chain never knows which
// application it serves, it hands every error to respondError, which hands
// it to the group's Responder.
type Responder func(c *gin.Context, err error)

const responderKey = "learngate.responder"

// withResponder makes respondError answer the errors of the routes it
// guards with r.
func withResponder(r Responder) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Set(responderKey, r)
		c.Next()
	}
}

// respondError writes err as the response. What every application shares
// happens here: a client that went away gets no answer (499 in the log),
// and an Unavailable error gets a Retry-After. The body is the route
// group's Responder's (withResponder), respondPlain where none is set.
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
	if r, ok := c.Get(responderKey); ok {
		r.(Responder)(c, err)
		return
	}
	respondPlain(c, err)
}

// respondPlain is the Responder of the routes that set none: {"error":
// "<message>"}.
func respondPlain(c *gin.Context, err error) {
	status, e, done := settleError(c, err)
	if done {
		return
	}
	c.AbortWithStatusJSON(status, gin.H{"error": e.Message})
}

// settleError answers what every JSON Responder answers alike and reports
// done: a rate-limited request (429 with its retry_after_seconds), an
// Internal or unknown error (500 {"error":"internal error"}, logged once
// with the request id; its text never reaches the client) and an
// Unavailable one (503 {"error":"service unavailable"}, logged). Else it
// returns err's status (statusOf) and its *learngate.Error for the
// Responder to shape.
func settleError(c *gin.Context, err error) (int, *learngate.Error, bool) {
	var limited *rateLimitedError
	if errors.As(err, &limited) {
		c.AbortWithStatusJSON(http.StatusTooManyRequests, gin.H{"error": "Rate limit exceeded", "retry_after_seconds": limited.retryAfter})
		return 0, nil, true
	}
	code := learngate.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok || code == learngate.Internal {
		logInternal(c, err)
		c.AbortWithStatusJSON(http.StatusInternalServerError, gin.H{"error": "internal error"})
		return 0, nil, true
	}
	if code == learngate.Unavailable {
		logger(c).Warn("dependency unavailable", "request_id", requestID(c), "err", err)
		c.AbortWithStatusJSON(status, gin.H{"error": "service unavailable"})
		return 0, nil, true
	}
	var e *learngate.Error
	errors.As(err, &e)
	return status, e, false
}

// logInternal logs an internal error once with the request id; a panic
// (errPanicked) was logged by recovered already.
func logInternal(c *gin.Context, err error) {
	if !errors.Is(err, errPanicked) {
		logger(c).Error("internal error", "request_id", requestID(c), "err", err)
	}
}

// errPanicked is the error recovered hands the route's Responder after a
// panic, which it has logged.
var errPanicked = errors.New("handler panicked")

// rateLimitedError is a request refused by a rate limit (abortRateLimited):
// 429, its Retry-After already set.
type rateLimitedError struct{ retryAfter int64 }

func (e *rateLimitedError) Error() string { return "rate limit exceeded" }

// notFound answers unmatched paths.
func notFound(c *gin.Context) {
	respondError(c, learngate.Errorf(learngate.NotFound, "not found"))
}

const loggerKey = "learngate.logger"

// logger returns the request's logger (set by the logging middleware).
func logger(c *gin.Context) *slog.Logger {
	if l, ok := c.Get(loggerKey); ok {
		return l.(*slog.Logger)
	}
	return slog.Default()
}
