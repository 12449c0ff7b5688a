package scimapi

import (
	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
	"learngate/handlers/idempotency"
)

// Routes adds SCIM to r: discovery needs no key; the resources go through
// the chain (with SCIM's media types) and the Idempotency-Key.
func (a *API) Routes(r gin.IRouter) {
	discovery := r.Group("/scim/v2", httpx.WithResponder(respondSCIMError), a.gate.ResolveTenant)
	discovery.GET("/ServiceProviderConfig", a.scimServiceProviderConfig)
	discovery.GET("/ResourceTypes", a.scimResourceTypes)
	discovery.GET("/ResourceTypes/:id", a.scimResourceType)
	discovery.GET("/Schemas", a.scimSchemas)
	discovery.GET("/Schemas/:id", a.scimSchema)

	api := r.Group("/scim/v2", append(a.chain(), idempotency.Step(refuseSCIMKey))...)
	api.GET("/Users", a.scimListUsers)
	api.POST("/Users", a.scimCreateUser)
	api.GET("/Users/:id", a.scimShowUser)
	api.PUT("/Users/:id", a.scimReplaceUser)
	api.PATCH("/Users/:id", a.scimPatchUser)
	api.DELETE("/Users/:id", a.scimDeleteUser)
	api.GET("/Groups", a.scimListGroups)
	api.POST("/Groups", a.scimCreateGroup)
	api.GET("/Groups/:id", a.scimShowGroup)
	api.PUT("/Groups/:id", a.scimReplaceGroup)
	api.PATCH("/Groups/:id", a.scimPatchGroup)
	api.DELETE("/Groups/:id", a.scimDeleteGroup)
}
