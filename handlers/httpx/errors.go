package httpx

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
// RespondError writes.
const unavailableRetryAfter = "5"

// StatusOf is the HTTP status of an error code (statusOf), 0 for a code
// that has none.
func StatusOf(code learngate.Code) int { return statusOf[code] }

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
// group it guards (WithResponder): the shared chain never knows which
// application it serves, it hands every error to RespondError, which hands
// it to the group's Responder.
type Responder func(c *gin.Context, err error)

const responderKey = "learngate.responder"

// UseResponder makes RespondError answer the request's errors with r.
func UseResponder(c *gin.Context, r Responder) { c.Set(responderKey, r) }

// WithResponder makes RespondError answer the errors of the routes it
// guards with r.
func WithResponder(r Responder) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Set(responderKey, r)
		c.Next()
	}
}

// RespondError writes err as the response. What every application shares
// happens here: a client that went away gets no answer (499 in the log),
// and an Unavailable error gets a Retry-After. The body is the route
// group's Responder's (WithResponder), RespondPlain where none is set.
func RespondError(c *gin.Context, err error) {
	if c.Request.Context().Err() != nil && errors.Is(err, context.Canceled) {
		// The client went away: nobody reads the answer and nothing failed
		// on our side, so it is no internal error (status 499, as nginx
		// logs it).
		Logger(c).Info("client closed the request", "request_id", RequestID(c))
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
	RespondPlain(c, err)
}

// RespondPlain is the Responder of the routes that set none: {"error":
// "<message>"}.
func RespondPlain(c *gin.Context, err error) {
	status, e, done := SettleError(c, err)
	if done {
		return
	}
	c.AbortWithStatusJSON(status, gin.H{"error": e.Message})
}

// SettleError answers what every JSON Responder answers alike and reports
// done: a rate-limited request (429 with its retry_after_seconds), an
// Internal or unknown error (500 {"error":"internal error"}, logged once
// with the request id; its text never reaches the client) and an
// Unavailable one (503 {"error":"service unavailable"}, logged). Else it
// returns err's status (statusOf) and its *learngate.Error for the
// Responder to shape.
func SettleError(c *gin.Context, err error) (int, *learngate.Error, bool) {
	var limited *RateLimitedError
	if errors.As(err, &limited) {
		c.AbortWithStatusJSON(http.StatusTooManyRequests, gin.H{"error": "Rate limit exceeded", "retry_after_seconds": limited.RetryAfter})
		return 0, nil, true
	}
	code := learngate.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok || code == learngate.Internal {
		LogInternal(c, err)
		c.AbortWithStatusJSON(http.StatusInternalServerError, gin.H{"error": "internal error"})
		return 0, nil, true
	}
	if code == learngate.Unavailable {
		Logger(c).Warn("dependency unavailable", "request_id", RequestID(c), "err", err)
		c.AbortWithStatusJSON(status, gin.H{"error": "service unavailable"})
		return 0, nil, true
	}
	var e *learngate.Error
	errors.As(err, &e)
	return status, e, false
}

// LogInternal logs an internal error once with the request id; a panic
// (ErrPanicked) was logged by recovered already.
func LogInternal(c *gin.Context, err error) {
	if !errors.Is(err, ErrPanicked) {
		Logger(c).Error("internal error", "request_id", RequestID(c), "err", err)
	}
}

// ErrPanicked is the error recovered hands the route's Responder after a
// panic, which it has logged.
var ErrPanicked = errors.New("handler panicked")

// RateLimitedError is a request refused by a rate limit (abortRateLimited):
// 429, its Retry-After already set.
type RateLimitedError struct {
	// RetryAfter is the seconds the client should wait.
	RetryAfter int64
}

// Error says the request was rate limited.
func (e *RateLimitedError) Error() string { return "rate limit exceeded" }

// NotFound answers unmatched paths.
func NotFound(c *gin.Context) {
	RespondError(c, learngate.Errorf(learngate.NotFound, "not found"))
}

const loggerKey = "learngate.logger"

// Logger returns the request's logger (set by the logging middleware).
func Logger(c *gin.Context) *slog.Logger {
	if l, ok := c.Get(loggerKey); ok {
		return l.(*slog.Logger)
	}
	return slog.Default()
}
