package ops

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
	"learngate/tenant"
)

// A tenant's sign-in configuration through the ops API (docs/decisions.md,
// "Sign-in"): PUT, GET and DELETE /ops/v1/tenants/{slug}/sso. The client
// secret is written, never shown again.

// ssoRequest is the body of PUT /ops/v1/tenants/{slug}/sso.
type ssoRequest struct {
	Protocol      string   `json:"protocol"`
	Issuer        string   `json:"issuer"`
	ClientID      string   `json:"client_id"`
	ClientSecret  *string  `json:"client_secret"`
	Scopes        []string `json:"scopes"`
	Match         *string  `json:"match"`
	JIT           *bool    `json:"jit"`
	PasswordLogin *bool    `json:"password_login"`
	MetadataXML   string   `json:"metadata_xml"`
	MetadataURL   string   `json:"metadata_url"`
	// PasswordTrustedNetworks, EndIdPSession and NameIDFormat: section 19
	// (docs/sign-in.md).
	PasswordTrustedNetworks []string `json:"password_trusted_networks"`
	EndIdPSession           *bool    `json:"end_idp_session"`
	NameIDFormat            string   `json:"name_id_format"`
}

// putSSO sets a tenant's sign-in configuration: 200 with it.
func (a *API) putSSO(c *gin.Context) {
	var req ssoRequest
	if err := httpx.DecodeStrict(c, &req); err != nil {
		httpx.RespondError(c, err)
		return
	}
	cfg, err := a.deps.Tenants.SetSSO(c.Request.Context(), c.Param("slug"), tenant.SSOInput{
		Protocol: req.Protocol, Issuer: req.Issuer, ClientID: req.ClientID, ClientSecret: req.ClientSecret,
		Scopes: req.Scopes, Match: req.Match, JIT: req.JIT, PasswordLogin: req.PasswordLogin,
		MetadataXML: req.MetadataXML, MetadataURL: req.MetadataURL,
		PasswordTrustedNetworks: req.PasswordTrustedNetworks, EndIdPSession: req.EndIdPSession, NameIDFormat: req.NameIDFormat,
	})
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, tenant.ViewSSO(cfg))
}

// showSSO answers a tenant's sign-in configuration; 404 when none is set.
func (a *API) showSSO(c *gin.Context) {
	cfg, err := a.deps.Tenants.ShowSSO(c.Request.Context(), c.Param("slug"))
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, tenant.ViewSSO(cfg))
}

// deleteSSO removes a tenant's sign-in configuration: 204.
func (a *API) deleteSSO(c *gin.Context) {
	if err := a.deps.Tenants.RemoveSSO(c.Request.Context(), c.Param("slug")); err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
