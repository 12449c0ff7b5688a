package httpx

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// Healthz answers 200 while the process is up.
func Healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// Readyz answers 200 {"database":"up","redis":"up"|"down"|"none"} while
// PostgreSQL answers, else 503 (docs/decisions.md, "Gateway"). Redis being down
// does not fail readiness, since requests are still served; it is logged
// and counted (learngate_readiness_redis_down_total). "none": no Redis is
// configured. On a Citus cluster with worker nodes down the body also has
// "database_nodes_down": ["host:port", ...] (counted in
// learngate_readiness_database_nodes_down_total).
func (g *Gate) Readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	if err := g.Ready(ctx); err != nil {
		g.Logger.Warn("not ready", "err", err)
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": "service unavailable"})
		return
	}
	redis := "none"
	if g.RedisReady != nil {
		redis = "up"
		if err := g.RedisReady(ctx); err != nil {
			redis = "down"
			g.Metrics.readyRedisDown.Inc()
			g.Logger.Warn("ready, but Redis does not answer", "err", err)
		}
	}
	body := gin.H{"database": "up", "redis": redis}
	if g.NodesDown != nil {
		// On a Citus cluster, a worker node that is down fails only the
		// tenants placed on it (503 with Retry-After): this node still
		// serves every other, so it stays ready and names the node.
		down, err := g.NodesDown(ctx)
		if err != nil {
			g.Logger.Warn("ready, but the worker nodes could not be checked", "err", err)
		}
		if len(down) > 0 {
			g.Metrics.readyNodesDown.Add(float64(len(down)))
			g.Logger.Warn("ready, but database worker nodes are down", "nodes", down)
			body["database_nodes_down"] = down
		}
	}
	c.JSON(http.StatusOK, body)
}

// Recovered turns a panic into a logged 500, answered by the route's
// Responder (ErrPanicked).
func (g *Gate) Recovered(c *gin.Context, err any) {
	g.Logger.Error("panic", "request_id", RequestID(c), "panic", err)
	RespondError(c, ErrPanicked)
}

// hstsPolicy is the Strict-Transport-Security of every answer under https:
// browsers then reach the host over https alone for a year. Without
// includeSubDomains: a tenant's custom domain speaks for itself only.
const hstsPolicy = "max-age=31536000"

// StrictTransport adds Strict-Transport-Security to every answer of the
// public listener when its public scheme is https (docs/decisions.md,
// "Strict-Transport-Security"): the learner pages, /docs and their
// redirects and error pages above all, the API's answers too (clients
// other than browsers ignore it). Under http it does nothing: the header
// means nothing there, and would pin a local host to https.
func StrictTransport(https bool) gin.HandlerFunc {
	return func(c *gin.Context) {
		if https {
			c.Header("Strict-Transport-Security", hstsPolicy)
		}
		c.Next()
	}
}
