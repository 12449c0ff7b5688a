package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// ping answers GET /papi/ping with the organisation's slug: the whole chain
// (tenant, key, rate limit) without touching tenant data.
func (s *Server) ping(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"organisation": currentTenant(c).Slug})
}

// healthz answers 200 while the process is up.
func (s *Server) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"status": "ok"})
}

// readyz answers 200 {"database":"up","redis":"up"|"down"|"none"} while
// PostgreSQL answers, else 503 (docs/decisions.md, "Gateway"). Redis being down
// does not fail readiness, since requests are still served; it is logged
// and counted (learngate_readiness_redis_down_total). "none": no Redis is
// configured. On a Citus cluster with worker nodes down the body also has
// "database_nodes_down": ["host:port", ...] (counted in
// learngate_readiness_database_nodes_down_total).
func (s *Server) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	if err := s.Ready(ctx); err != nil {
		s.Logger.Warn("not ready", "err", err)
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": "service unavailable"})
		return
	}
	redis := "none"
	if s.RedisReady != nil {
		redis = "up"
		if err := s.RedisReady(ctx); err != nil {
			redis = "down"
			s.Metrics.readyRedisDown.Inc()
			s.Logger.Warn("ready, but Redis does not answer", "err", err)
		}
	}
	body := gin.H{"database": "up", "redis": redis}
	if s.NodesDown != nil {
		// On a Citus cluster, a worker node that is down fails only the
		// tenants placed on it (503 with Retry-After): this node still
		// serves every other, so it stays ready and names the node.
		down, err := s.NodesDown(ctx)
		if err != nil {
			s.Logger.Warn("ready, but the worker nodes could not be checked", "err", err)
		}
		if len(down) > 0 {
			s.Metrics.readyNodesDown.Add(float64(len(down)))
			s.Logger.Warn("ready, but database worker nodes are down", "nodes", down)
			body["database_nodes_down"] = down
		}
	}
	c.JSON(http.StatusOK, body)
}
