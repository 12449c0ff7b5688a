package httpx

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"mime"
	"net/http"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/store"
)

// MaxBodyBytes is the largest request body accepted (docs/decisions.md, "Bodies and hostile input").
const MaxBodyBytes = 10 << 20

const (
	requestIDKey = "learngate.requestID"
	tenantKey    = "learngate.tenant"
	tenantDBKey  = "learngate.tenantDB"
)

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// ValidRequestID reports whether id is a request id RequestLog keeps from
// a caller (X-Request-Id): 1 to 64 letters, digits, '.', '_' or '-'.
func ValidRequestID(id string) bool { return requestIDPattern.MatchString(id) }

// RequestID returns the request's id.
func RequestID(c *gin.Context) string { return c.GetString(requestIDKey) }

// SetTenant makes t the tenant the request was resolved to (the learner
// pages resolve theirs themselves).
func SetTenant(c *gin.Context, t learngate.Tenant) { c.Set(tenantKey, t) }

// TenantOf returns the tenant the request was resolved to, if any.
func TenantOf(c *gin.Context) (learngate.Tenant, bool) {
	t, ok := c.Get(tenantKey)
	if !ok {
		return learngate.Tenant{}, false
	}
	return t.(learngate.Tenant), true
}

// CurrentTenant returns the tenant the request was resolved to.
func CurrentTenant(c *gin.Context) learngate.Tenant {
	t, _ := c.Get(tenantKey)
	return t.(learngate.Tenant)
}

// SetTenantDB makes tdb the request's tenant-scoped database handle (the
// idempotency step's request transaction).
func SetTenantDB(c *gin.Context, tdb *store.TenantDB) { c.Set(tenantDBKey, tdb) }

// TenantDB returns the request's tenant-scoped database handle.
func TenantDB(c *gin.Context) *store.TenantDB {
	t, _ := c.Get(tenantDBKey)
	return t.(*store.TenantDB)
}

// RequestLog gives each request an id (the caller's X-Request-Id when it is
// sane, else a new one), echoes it, and writes one log line and the metrics
// when the request is done.
func (g *Gate) RequestLog(listener string) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		id := c.GetHeader("X-Request-Id")
		if !ValidRequestID(id) {
			id = newRequestID()
		}
		c.Set(requestIDKey, id)
		c.Set(loggerKey, g.Logger)
		c.Header("X-Request-Id", id)
		c.Next()

		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		status := c.Writer.Status()
		elapsed := time.Since(start)
		g.Metrics.observe(c, listener, route, status, elapsed)
		// client_ip is the caller's address: X-Forwarded-For is believed
		// only from LEARNGATE_TRUSTED_PROXIES (gin's ClientIP).
		attrs := []any{"request_id", id, "method", c.Request.Method, "route", route, "status", status,
			"duration_ms", float64(elapsed.Microseconds()) / 1000, "client_ip", c.ClientIP()}
		if t, ok := c.Get(tenantKey); ok {
			attrs = append(attrs, "tenant", t.(learngate.Tenant).Slug)
		}
		g.Logger.LogAttrs(c.Request.Context(), slog.LevelInfo, "request", argsToAttrs(attrs)...)
	}
}

func argsToAttrs(args []any) []slog.Attr {
	attrs := make([]slog.Attr, 0, len(args)/2)
	for i := 0; i+1 < len(args); i += 2 {
		attrs = append(attrs, slog.Any(args[i].(string), args[i+1]))
	}
	return attrs
}

func newRequestID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ResolveTenant finds the tenant from the Host header: 404 for unknown hosts.
func (g *Gate) ResolveTenant(c *gin.Context) {
	t, err := g.Registry.Resolve(c.Request.Context(), c.Request.Host)
	if learngate.IsCode(err, learngate.NotFound) {
		RespondError(c, learngate.Errorf(learngate.NotFound, "unknown organisation"))
		return
	}
	if err != nil {
		RespondError(c, err)
		return
	}
	c.Set(tenantKey, t)
	c.Next()
}

// Authenticate checks the API key (header `Authorization: <key>` or
// `Bearer <key>`, or query api_key): 401 {"error":"unauthorized"} for every
// cause. Wrong keys are counted per client IP (throttleAuthFailure); once
// an IP is over its limit it is on this node's blocklist and its failures
// get 429 instead of 401 until the limit lets it through again. The key is
// always checked first: the limit slows failures only, and a valid key is
// never refused because of other requests from the same address
// (docs/api.md, "Authentication"). A wrong key costs no database query: the
// registry holds each tenant's active key hashes in memory.
func (g *Gate) Authenticate(c *gin.Context) {
	ctx := c.Request.Context()
	failKey := "authfail:" + ClientBucket(c.ClientIP())
	key := apiKey(c.Request)
	t := CurrentTenant(c)
	if err := g.Registry.Authenticate(ctx, t, key); err != nil {
		if !learngate.IsCode(err, learngate.Unauthorized) {
			RespondError(c, err)
			return
		}
		if blocked, retryAfter := g.blocklist.Blocked(failKey); blocked {
			g.Metrics.RateLimited.Inc()
			AbortRateLimited(c, retryAfter)
			return
		}
		if key != "" {
			g.ThrottleAuthFailure(ctx, failKey)
		}
		g.Metrics.authFailures.Inc()
		RespondError(c, learngate.Errorf(learngate.Unauthorized, "unauthorized"))
		return
	}
	c.Next()
}

// TenantHandle gives an authenticated request its tenant's database handle
// (tenantDB), the only way handlers reach the tenant's data.
func (g *Gate) TenantHandle(c *gin.Context) {
	tdb, err := g.DB.Tenant(CurrentTenant(c).Schema)
	if err != nil {
		RespondError(c, err)
		return
	}
	c.Set(tenantDBKey, tdb)
	c.Next()
}

// ClientBucket is the client address that wrong keys are counted against:
// the address itself for IPv4, its /64 for IPv6, since one host commonly
// holds a whole /64 and could otherwise spread its guesses over 2^64
// addresses (docs/reliability.md, B7).
func ClientBucket(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil || !addr.Is6() || addr.Is4In6() {
		return ip
	}
	prefix, err := addr.WithZone("").Prefix(64)
	if err != nil {
		return ip
	}
	return prefix.String()
}

// apiKey reads the key from the Authorization header (raw or Bearer) or the
// api_key query parameter.
func apiKey(r *http.Request) string {
	if h := strings.TrimSpace(r.Header.Get("Authorization")); h != "" {
		if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
			return strings.TrimSpace(h[7:])
		}
		return h
	}
	return r.URL.Query().Get("api_key")
}

// RateLimit applies the tenant's sliding-window limit and sets the
// X-RateLimit-* headers on every response that gets this far.
func (g *Gate) RateLimit(c *gin.Context) {
	t := CurrentTenant(c)
	g.ApplyLimit(c, "tenant:"+strconv.FormatInt(t.ID, 10), t.RateLimitPerMinute)
}

// AbortRateLimited refuses the request with 429 and its Retry-After, in
// the route group's shape (RateLimitedError).
func AbortRateLimited(c *gin.Context, retryAfter int64) {
	if retryAfter < 1 {
		retryAfter = 1
	}
	c.Header("Retry-After", strconv.FormatInt(retryAfter, 10))
	RespondError(c, &RateLimitedError{RetryAfter: retryAfter})
}

// RequireJSON refuses POST and PUT bodies that are not application/json
// (406) and bodies over MaxBodyBytes (413). A request without a body needs
// no Content-Type: the operations that take none (rotate a webhook secret,
// test it, retry a delivery) are called without one (docs/api.md, "JSON").
func (g *Gate) RequireJSON(c *gin.Context) {
	m := c.Request.Method
	if (m == http.MethodPost || m == http.MethodPut) && HasBody(c.Request) {
		mt, _, err := mime.ParseMediaType(c.GetHeader("Content-Type"))
		if err != nil || mt != "application/json" {
			RespondError(c, learngate.Errorf(learngate.NotAcceptable, "Content-Type must be application/json"))
			return
		}
	}
	g.LimitBody(c)
}

// HasBody reports whether r carries a body: a Content-Length over 0, or
// a length not told in advance (chunked Transfer-Encoding, or an HTTP/2
// stream without Content-Length, both ContentLength -1).
func HasBody(r *http.Request) bool {
	return r.ContentLength != 0 || slices.Contains(r.TransferEncoding, "chunked")
}

// LimitBody caps the request body at MaxBodyBytes and lets its decoding
// take room from the process's decoding budget (holdDecodeBudget), given
// back when the handler is done.
func (g *Gate) LimitBody(c *gin.Context) {

	if c.Request.ContentLength > MaxBodyBytes {
		RespondError(c, learngate.Errorf(learngate.TooLarge, "request body too large"))
		return
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes)
	c.Set(decodeBudgetKey, g.decodeBudget)
	defer releaseDecodeBudget(c, g.decodeBudget)
	c.Next()
}

// OnPath runs mw only for the paths under prefix (prefix itself
// included) and passes the others on: the unmatched paths' chain runs each
// application's steps on its own paths before their 404.
func OnPath(prefix string, mw gin.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		if p := c.Request.URL.Path; p == prefix || strings.HasPrefix(p, prefix+"/") {
			mw(c)
			return
		}
		c.Next()
	}
}
