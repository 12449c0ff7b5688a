// Package idempotency is the Idempotency-Key step of the API chains
// (docs/api.md, "Retrying safely: Idempotency-Key"; docs/decisions.md,
// "Idempotency-Key"): the Public API and SCIM put it last in their chains,
// each with its own refusal (Refusal).
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
	"learngate/input"
	"learngate/store"
)

// Idempotent requests (docs/api.md, "Retrying safely: Idempotency-Key";
// docs/decisions.md, "Idempotency-Key").
const (
	// KeyHeader carries the client's key; every answer given once the key
	// was looked at echoes it.
	KeyHeader = "Idempotency-Key"
	// ReplayedHeader marks an answer replayed from a key.
	ReplayedHeader = "Idempotent-Replayed"
	// maxIdempotencyKeyLength is the longest key accepted.
	maxIdempotencyKeyLength = 255
)

// The messages of the key's own refusals, the same on every route.
const (
	invalidKeyMessage    = "invalid Idempotency-Key"
	keyMismatchMessage   = "Idempotency-Key was used with a different request"
	keyInProgressMessage = "a request with this Idempotency-Key is in progress"
)

// Refusal answers one of the key's own refusals (status and message)
// in the shape of the application that uses the step: RefuseJSON on
// /papi, SCIM's error message on /scim/v2. It does not go through respondError:
// the user routes' style would make the 400 a bare string and the 422 the
// user body, and SCIM's mapping would make the 409 "uniqueness" and the
// 422 a 400, while the statuses are the key's contract on every route.
type Refusal func(c *gin.Context, status int, message string)

// RefuseJSON answers a key's refusal as {"error": message}, whatever the
// route's error style (the body docs/api.md gives them on /papi).
func RefuseJSON(c *gin.Context, status int, message string) {
	c.AbortWithStatusJSON(status, gin.H{"error": message})
}

// Step is the chain step after RequireJSON: a POST, PUT or PATCH
// with an Idempotency-Key runs at most once per key and tenant. It checks
// the key (400), reads the body and claims the key with the request's
// fingerprint (store.ClaimIdempotencyKey): a request seen before is
// replayed, or refused with 422 (another request) or 409 (still running);
// else the handler runs on a request-transaction handle (WithRequestTx)
// with its answer buffered. A 2xx answer is stored in that transaction,
// which then commits, and only then sent; any other answer rolls the
// transaction back and releases the key. Requests without the header, and
// other methods, pass through untouched.
func Step(refuseKey Refusal) gin.HandlerFunc {
	return func(c *gin.Context) { claimKey(c, refuseKey) }
}

// claimKey is the idempotency step of one request.
func claimKey(c *gin.Context, refuseKey Refusal) {
	switch c.Request.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		c.Next()
		return
	}
	values := c.Request.Header.Values(KeyHeader)
	if len(values) == 0 {
		c.Next()
		return
	}
	key := values[0]
	if len(values) > 1 || !validIdempotencyKey(key) {
		// Echoed as error messages quote a client's value: at most
		// input.MaxQuoted characters (a 100,000-character key is not sent back).
		c.Writer.Header().Set(KeyHeader, input.Quote(key)) // even when empty (c.Header would drop it)
		refuseKey(c, http.StatusBadRequest, invalidKeyMessage)
		return
	}
	c.Writer.Header().Set(KeyHeader, key)
	body, err := httpx.ReadBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.Request.Body = httpx.HoldBody(body)

	ctx := c.Request.Context()
	tdb := httpx.TenantDB(c)
	claim, err := store.ClaimIdempotencyKey(ctx, tdb, key, Fingerprint(c.Request, body))
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	switch claim.Outcome {
	case store.ClaimReplay:
		replay(c, claim.Stored)
		return
	case store.ClaimMismatch:
		refuseKey(c, http.StatusUnprocessableEntity, keyMismatchMessage)
		return
	case store.ClaimInProgress:
		refuseKey(c, http.StatusConflict, keyInProgressMessage)
		return
	}
	runClaimed(c, tdb, claim, refuseKey)
}

// runClaimed runs the rest of the chain for a request that holds claim,
// on a request-transaction handle and with its answer buffered; see
// idempotency. A panic rolls back and releases the key before it goes on
// to the recovery.
func runClaimed(c *gin.Context, tdb *store.TenantDB, claim store.IdempotencyClaim, refuseKey Refusal) {
	ctx := c.Request.Context()
	rtdb := tdb.WithRequestTx()
	httpx.SetTenantDB(c, rtdb)
	out := c.Writer
	buf := &bufferedWriter{ResponseWriter: out, status: http.StatusOK}
	c.Writer = buf
	settled := false
	defer func() {
		c.Writer = out
		httpx.SetTenantDB(c, tdb)
		if !settled { // a panic
			rtdb.RollbackRequest()
			releaseKey(c, tdb, claim)
		}
	}()
	c.Next()

	settled = true
	c.Writer = out
	if buf.status >= 200 && buf.status < 300 {
		err := store.CompleteIdempotentRequest(ctx, rtdb, claim, store.StoredResponse{
			Status: buf.status, ContentType: out.Header().Get("Content-Type"),
			Location: out.Header().Get("Location"), Body: buf.body.Bytes(),
		})
		if err == nil {
			buf.send()
			return
		}
		releaseKey(c, tdb, claim)
		out.Header().Del("Location")
		if ctx.Err() != nil { // the client went away and took the transaction with it
			err = errors.Join(ctx.Err(), err)
		}
		if errors.Is(err, store.ErrClaimLost) {
			refuseKey(c, http.StatusConflict, keyInProgressMessage)
			return
		}
		httpx.RespondError(c, err)
		return
	}
	rtdb.RollbackRequest()
	releaseKey(c, tdb, claim)
	buf.send()
}

// releaseKey deletes the request's claim, even when its client went away,
// so that a retry runs again; a failure is logged (the claim's lease then
// frees the key).
func releaseKey(c *gin.Context, tdb *store.TenantDB, claim store.IdempotencyClaim) {
	if err := store.ReleaseIdempotencyKey(context.WithoutCancel(c.Request.Context()), tdb, claim); err != nil {
		httpx.Logger(c).Warn("release idempotency key", "request_id", httpx.RequestID(c), "err", err)
	}
}

// replay sends a stored answer byte for byte, marked Idempotent-Replayed.
func replay(c *gin.Context, r store.StoredResponse) {
	h := c.Writer.Header()
	if r.ContentType != "" {
		h.Set("Content-Type", r.ContentType)
	}
	if r.Location != "" {
		h.Set("Location", r.Location)
	}
	h.Set(ReplayedHeader, "true")
	c.Abort()
	c.Writer.WriteHeader(r.Status)
	_, _ = c.Writer.Write(r.Body)
}

// validIdempotencyKey reports whether key is 1 to 255 printable ASCII
// characters (space to tilde).
func validIdempotencyKey(key string) bool {
	if len(key) == 0 || len(key) > maxIdempotencyKeyLength {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

// Fingerprint is the SHA-256 of the request's method, path (as
// sent, with its parameters), query string and the SHA-256 of its body.
// The query's api_key parameter is left out, so that a retry made with a
// rotated key is the same request; the other parameters are taken sorted
// by name.
func Fingerprint(r *http.Request, body []byte) []byte {
	query := r.URL.RawQuery
	if query != "" {
		if values, err := url.ParseQuery(query); err == nil {
			values.Del("api_key")
			query = values.Encode()
		}
	}
	bodySum := sha256.Sum256(body)
	h := sha256.New()
	for _, part := range []string{r.Method, r.URL.EscapedPath(), query} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(bodySum[:])
	return h.Sum(nil)
}

// bufferedWriter holds a handler's answer until the request transaction
// has committed (idempotency); headers go straight to the real writer's
// header map, which nothing sends before send.
type bufferedWriter struct {
	gin.ResponseWriter
	status  int
	written bool
	body    bytes.Buffer
}

// WriteHeader records the status.
func (w *bufferedWriter) WriteHeader(code int) {
	if code > 0 && !w.written {
		w.status = code
	}
}

// WriteHeaderNow marks the header as written; nothing is sent yet.
func (w *bufferedWriter) WriteHeaderNow() { w.written = true }

// Write buffers b.
func (w *bufferedWriter) Write(b []byte) (int, error) {
	w.written = true
	return w.body.Write(b)
}

// WriteString buffers s.
func (w *bufferedWriter) WriteString(s string) (int, error) {
	w.written = true
	return w.body.WriteString(s)
}

// Status returns the recorded status.
func (w *bufferedWriter) Status() int { return w.status }

// Size returns the bytes buffered, -1 before anything was written.
func (w *bufferedWriter) Size() int {
	if !w.written {
		return -1
	}
	return w.body.Len()
}

// Written reports whether the handler wrote its answer.
func (w *bufferedWriter) Written() bool { return w.written }

// Flush does nothing: the answer leaves in one piece (send).
func (w *bufferedWriter) Flush() {}

// send writes the buffered answer to the real writer.
func (w *bufferedWriter) send() {
	w.ResponseWriter.WriteHeader(w.status)
	w.ResponseWriter.WriteHeaderNow()
	if w.body.Len() > 0 {
		_, _ = w.ResponseWriter.Write(w.body.Bytes())
	}
}
