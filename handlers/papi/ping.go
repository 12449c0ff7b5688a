package papi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
)

// ping answers GET /papi/ping with the organisation's slug: the whole chain
// (tenant, key, rate limit) without touching tenant data.
func (a *API) ping(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"organisation": httpx.CurrentTenant(c).Slug})
}
