package httpx

import (
	"context"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
)

// Limits beside the tenant's own (docs/decisions.md, "Rate limits" and
// "Certificate downloads and their limit"): certificate
// downloads per client IP, and failed keys per client IP.

// ApplyLimit counts the request against key's limit per minute, sets the
// X-RateLimit-* headers and answers 429 when the limit is reached.
func (g *Gate) ApplyLimit(c *gin.Context, key string, limit int64) {
	r := g.Limiter.Allow(c.Request.Context(), key, limit)
	c.Header("X-RateLimit-Limit", strconv.FormatInt(r.Limit, 10))
	c.Header("X-RateLimit-Remaining", strconv.FormatInt(r.Remaining, 10))
	c.Header("X-RateLimit-Reset", strconv.FormatInt(r.Reset, 10))
	if !r.Allowed {
		g.Metrics.RateLimited.Inc()
		AbortRateLimited(c, r.RetryAfter)
		return
	}
	c.Next()
}

// DownloadLimit limits certificate downloads, which carry no API key, per
// client IP (per /64 for IPv6) and tenant: they never use the tenant's own
// quota, so nobody without the tenant's key can make its integrations
// receive 429. Its X-RateLimit-* headers describe this limit.
func (g *Gate) DownloadLimit(c *gin.Context) {
	limit := g.DownloadsPerMinute
	if limit <= 0 {
		limit = DefaultDownloadsPerMinute
	}
	key := "download:" + strconv.FormatInt(CurrentTenant(c).ID, 10) + ":" + ClientBucket(c.ClientIP())
	g.ApplyLimit(c, key, limit)
}

// ThrottleAuthFailure counts one failed key of the client failKey names
// and blocks the client on this node once it is over the limit. The count
// is shared across nodes; when the shared store fails it is kept on this
// node instead, so that the throttle never fails open.
func (g *Gate) ThrottleAuthFailure(ctx context.Context, failKey string) {
	r := g.Limiter.Record(ctx, failKey, g.AuthFailuresPerMinute)
	if r.FailedOpen {
		r = g.localFailures.Record(ctx, failKey, g.AuthFailuresPerMinute)
	}
	if !r.Allowed {
		g.blocklist.Block(failKey, g.Now().Add(time.Duration(r.RetryAfter)*time.Second))
	}
}
