package handlers

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

// requestID returns the request's id.
func requestID(c *gin.Context) string { return c.GetString(requestIDKey) }

// currentTenant returns the tenant the request was resolved to.
func currentTenant(c *gin.Context) learngate.Tenant {
	t, _ := c.Get(tenantKey)
	return t.(learngate.Tenant)
}

// tenantDB returns the request's tenant-scoped database handle.
func tenantDB(c *gin.Context) *store.TenantDB {
	t, _ := c.Get(tenantDBKey)
	return t.(*store.TenantDB)
}

// requestLog gives each request an id (the caller's X-Request-Id when it is
// sane, else a new one), echoes it, and writes one log line and the metrics
// when the request is done.
func (s *Server) requestLog(listener string) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		id := c.GetHeader("X-Request-Id")
		if !requestIDPattern.MatchString(id) {
			id = newRequestID()
		}
		c.Set(requestIDKey, id)
		c.Set(loggerKey, s.Logger)
		c.Header("X-Request-Id", id)
		c.Next()

		route := c.FullPath()
		if route == "" {
			route = "unmatched"
		}
		status := c.Writer.Status()
		elapsed := time.Since(start)
		s.Metrics.observe(c, listener, route, status, elapsed)
		// client_ip is the caller's address: X-Forwarded-For is believed
		// only from LEARNGATE_TRUSTED_PROXIES (gin's ClientIP).
		attrs := []any{"request_id", id, "method", c.Request.Method, "route", route, "status", status,
			"duration_ms", float64(elapsed.Microseconds()) / 1000, "client_ip", c.ClientIP()}
		if t, ok := c.Get(tenantKey); ok {
			attrs = append(attrs, "tenant", t.(learngate.Tenant).Slug)
		}
		s.Logger.LogAttrs(c.Request.Context(), slog.LevelInfo, "request", argsToAttrs(attrs)...)
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

// resolveTenant finds the tenant from the Host header: 404 for unknown hosts.
func (s *Server) resolveTenant(c *gin.Context) {
	t, err := s.Registry.Resolve(c.Request.Context(), c.Request.Host)
	if learngate.IsCode(err, learngate.NotFound) {
		respondError(c, learngate.Errorf(learngate.NotFound, "unknown organisation"))
		return
	}
	if err != nil {
		respondError(c, err)
		return
	}
	c.Set(tenantKey, t)
	c.Next()
}

// authenticate checks the API key (header `Authorization: <key>` or
// `Bearer <key>`, or query api_key): 401 {"error":"unauthorized"} for every
// cause. Wrong keys are counted per client IP (throttleAuthFailure); once
// an IP is over its limit it is on this node's blocklist and its failures
// get 429 instead of 401 until the limit lets it through again. The key is
// always checked first: the limit slows failures only, and a valid key is
// never refused because of other requests from the same address
// (docs/api.md, "Authentication"). A wrong key costs no database query: the
// registry holds each tenant's active key hashes in memory.
func (s *Server) authenticate(c *gin.Context) {
	ctx := c.Request.Context()
	failKey := "authfail:" + clientBucket(c.ClientIP())
	key := apiKey(c.Request)
	t := currentTenant(c)
	if err := s.Registry.Authenticate(ctx, t, key); err != nil {
		if !learngate.IsCode(err, learngate.Unauthorized) {
			respondError(c, err)
			return
		}
		if blocked, retryAfter := s.blocklist.Blocked(failKey); blocked {
			s.Metrics.rateLimited.Inc()
			abortRateLimited(c, retryAfter)
			return
		}
		if key != "" {
			s.throttleAuthFailure(ctx, failKey)
		}
		s.Metrics.authFailures.Inc()
		respondError(c, learngate.Errorf(learngate.Unauthorized, "unauthorized"))
		return
	}
	c.Next()
}

// tenantHandle gives an authenticated request its tenant's database handle
// (tenantDB), the only way handlers reach the tenant's data.
func (s *Server) tenantHandle(c *gin.Context) {
	tdb, err := s.DB.Tenant(currentTenant(c).Schema)
	if err != nil {
		respondError(c, err)
		return
	}
	c.Set(tenantDBKey, tdb)
	c.Next()
}

// clientBucket is the client address that wrong keys are counted against:
// the address itself for IPv4, its /64 for IPv6, since one host commonly
// holds a whole /64 and could otherwise spread its guesses over 2^64
// addresses (docs/reliability.md, B7).
func clientBucket(ip string) string {
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

// rateLimit applies the tenant's sliding-window limit and sets the
// X-RateLimit-* headers on every response that gets this far.
func (s *Server) rateLimit(c *gin.Context) {
	t := currentTenant(c)
	s.applyLimit(c, "tenant:"+strconv.FormatInt(t.ID, 10), t.RateLimitPerMinute)
}

func abortRateLimited(c *gin.Context, retryAfter int64) {
	if retryAfter < 1 {
		retryAfter = 1
	}
	c.Header("Retry-After", strconv.FormatInt(retryAfter, 10))
	respondError(c, &rateLimitedError{retryAfter: retryAfter})
}

// requireJSON refuses POST and PUT bodies that are not application/json
// (406) and bodies over MaxBodyBytes (413). A request without a body needs
// no Content-Type: the operations that take none (rotate a webhook secret,
// test it, retry a delivery) are called without one (docs/api.md, "JSON").
func (s *Server) requireJSON(c *gin.Context) {
	m := c.Request.Method
	if (m == http.MethodPost || m == http.MethodPut) && hasBody(c.Request) {
		mt, _, err := mime.ParseMediaType(c.GetHeader("Content-Type"))
		if err != nil || mt != "application/json" {
			respondError(c, learngate.Errorf(learngate.NotAcceptable, "Content-Type must be application/json"))
			return
		}
	}
	s.limitBody(c)
}

// hasBody reports whether r carries a body: a Content-Length over 0, or
// a length not told in advance (chunked Transfer-Encoding, or an HTTP/2
// stream without Content-Length, both ContentLength -1).
func hasBody(r *http.Request) bool {
	return r.ContentLength != 0 || slices.Contains(r.TransferEncoding, "chunked")
}

// limitBody caps the request body at MaxBodyBytes and lets its decoding
// take room from the process's decoding budget (holdDecodeBudget), given
// back when the handler is done.
func (s *Server) limitBody(c *gin.Context) {

	if c.Request.ContentLength > MaxBodyBytes {
		respondError(c, learngate.Errorf(learngate.TooLarge, "request body too large"))
		return
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes)
	c.Set(decodeBudgetKey, s.decodeBudget)
	defer releaseDecodeBudget(c, s.decodeBudget)
	c.Next()
}

// onPapi runs mw only for /papi paths, so that unmatched /papi paths still
// go through the whole chain before their 404.
func onPapi(mw gin.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.URL.Path == "/papi" || strings.HasPrefix(c.Request.URL.Path, "/papi/") {
			mw(c)
			return
		}
		c.Next()
	}
}
