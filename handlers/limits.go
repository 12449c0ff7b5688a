package handlers

import (
	"context"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
)

// Limits beside the tenant's own (docs/decisions.md, "Rate limits" and
// "Certificate downloads and their limit"): certificate
// downloads per client IP, and failed keys per client IP.

// applyLimit counts the request against key's limit per minute, sets the
// X-RateLimit-* headers and answers 429 when the limit is reached.
func (s *Server) applyLimit(c *gin.Context, key string, limit int64) {
	r := s.Limiter.Allow(c.Request.Context(), key, limit)
	c.Header("X-RateLimit-Limit", strconv.FormatInt(r.Limit, 10))
	c.Header("X-RateLimit-Remaining", strconv.FormatInt(r.Remaining, 10))
	c.Header("X-RateLimit-Reset", strconv.FormatInt(r.Reset, 10))
	if !r.Allowed {
		s.Metrics.rateLimited.Inc()
		abortRateLimited(c, r.RetryAfter)
		return
	}
	c.Next()
}

// downloadLimit limits certificate downloads, which carry no API key, per
// client IP (per /64 for IPv6) and tenant: they never use the tenant's own
// quota, so nobody without the tenant's key can make its integrations
// receive 429. Its X-RateLimit-* headers describe this limit.
func (s *Server) downloadLimit(c *gin.Context) {
	limit := s.DownloadsPerMinute
	if limit <= 0 {
		limit = DefaultDownloadsPerMinute
	}
	key := "download:" + strconv.FormatInt(currentTenant(c).ID, 10) + ":" + clientBucket(c.ClientIP())
	s.applyLimit(c, key, limit)
}

// throttleAuthFailure counts one failed key of the client failKey names
// and blocks the client on this node once it is over the limit. The count
// is shared across nodes; when the shared store fails it is kept on this
// node instead, so that the throttle never fails open.
func (s *Server) throttleAuthFailure(ctx context.Context, failKey string) {
	r := s.Limiter.Record(ctx, failKey, s.AuthFailuresPerMinute)
	if r.FailedOpen {
		r = s.localFailures.Record(ctx, failKey, s.AuthFailuresPerMinute)
	}
	if !r.Allowed {
		s.blocklist.Block(failKey, s.Now().Add(time.Duration(r.RetryAfter)*time.Second))
	}
}
