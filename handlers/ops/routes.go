package ops

import (
	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Routes adds the ops API to r, whose chain checks the ops token (Auth)
// and bounds bodies (httpx.Gate.LimitBody).
func (a *API) Routes(r gin.IRouter) {
	r.GET("/metrics", gin.WrapH(promhttp.HandlerFor(a.deps.Metrics, promhttp.HandlerOpts{})))

	v1 := r.Group("/ops/v1", opsPathParams)
	v1.POST("/tenants", a.createTenant)
	v1.GET("/tenants", a.listTenants)
	v1.GET("/tenants/:slug", a.showTenant)
	v1.PATCH("/tenants/:slug", a.updateTenant)
	v1.DELETE("/tenants/:slug", a.deleteTenant)
	v1.POST("/tenants/:slug/domains", a.addDomain)
	v1.DELETE("/tenants/:slug/domains/:domain", a.removeDomain)
	v1.POST("/tenants/:slug/api_keys", a.createKey)
	v1.GET("/tenants/:slug/api_keys", a.listKeys)
	v1.DELETE("/tenants/:slug/api_keys/:id", a.revokeKey)
	v1.PUT("/tenants/:slug/sso", a.putSSO)
	v1.GET("/tenants/:slug/sso", a.showSSO)
	v1.DELETE("/tenants/:slug/sso", a.deleteSSO)
	v1.POST("/tenants/:slug/move", a.moveTenant)
	v1.GET("/tenants/:slug/moves/:id", a.showMove)
	v1.GET("/tls/ask", a.TLSAsk)
}

// TLSAskRoutes adds the TLS ask listener's one route to r: GET /tls/ask
// without the ops token (Caddy's on-demand TLS cannot send one).
func (a *API) TLSAskRoutes(r gin.IRouter) {
	r.GET("/tls/ask", a.TLSAsk)
}
