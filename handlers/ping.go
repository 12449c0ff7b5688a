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

// readyz answers 200 when the database and Redis answer, else 503.
func (s *Server) readyz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
	defer cancel()
	if err := s.Ready(ctx); err != nil {
		s.Logger.Warn("not ready", "err", err)
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": "service unavailable"})
		return
	}
	c.JSON(http.StatusOK, gin.H{"status": "ready"})
}

// notFound answers unmatched paths.
func notFound(c *gin.Context) {
	c.AbortWithStatusJSON(http.StatusNotFound, gin.H{"error": "not found"})
}
