package papi

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/store"
)

// Webhooks (docs/decisions.md, "Webhooks"). Errors are {"error": "..."}; a bad page or per_page on the lists is
// the bare JSON string of docs/decisions.md, "Lists and paging" (StyleString400).

// createWebhookRequest is the body of POST /papi/webhooks.
type createWebhookRequest struct {
	URL         *string  `json:"url"`
	Events      []string `json:"events"`
	Description *string  `json:"description"`
}

// updateWebhookRequest is the body of PUT /papi/webhooks/{id}: every field
// is optional and only the given ones change.
type updateWebhookRequest struct {
	URL         *string  `json:"url"`
	Events      []string `json:"events"`
	Description *string  `json:"description"`
	Enabled     *bool    `json:"enabled"`
}

// listWebhooks answers GET /papi/webhooks: the tenant's endpoints, oldest
// first, in the list envelope, without their secrets.
func (a *API) listWebhooks(c *gin.Context) {
	page, err := a.parsePage(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	hooks, total, err := store.ListWebhooks(c.Request.Context(), httpx.TenantDB(c), page, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	respondList(c, a, hooks, total, page)
}

// createWebhook answers POST /papi/webhooks: 201 with the endpoint and its
// secret (shown this once); 400 for a bad url, events or description; 422
// past the number of endpoints a tenant may have.
func (a *API) createWebhook(c *gin.Context) {
	var req createWebhookRequest
	if err := httpx.DecodeStrict(c, &req); err != nil {
		httpx.RespondError(c, err)
		return
	}
	in := learngate.WebhookInput{URL: req.URL, Events: req.Events, Description: req.Description}
	hook, err := store.CreateWebhook(c.Request.Context(), httpx.TenantDB(c), in, a.deps.WebhookPolicy, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, hook)
}

// showWebhook answers GET /papi/webhooks/{id}: the endpoint without its
// secret, or 404.
func (a *API) showWebhook(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	hook, err := store.GetWebhook(c.Request.Context(), httpx.TenantDB(c), id, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, hook)
}

// updateWebhook answers PUT /papi/webhooks/{id}: the given fields change
// ("enabled": false disables the endpoint, true enables it again); 200 with
// the endpoint, 400 as createWebhook, 404.
func (a *API) updateWebhook(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	var req updateWebhookRequest
	if err := httpx.DecodeStrict(c, &req); err != nil {
		httpx.RespondError(c, err)
		return
	}
	in := learngate.WebhookInput{URL: req.URL, Events: req.Events, Description: req.Description, Enabled: req.Enabled}
	hook, err := store.UpdateWebhook(c.Request.Context(), httpx.TenantDB(c), id, in, a.deps.WebhookPolicy, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, hook)
}

// deleteWebhook answers DELETE /papi/webhooks/{id}: 204, or 404. The
// endpoint's deliveries go with it.
func (a *API) deleteWebhook(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	if err := store.DeleteWebhook(c.Request.Context(), httpx.TenantDB(c), id); err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// rotateWebhookSecret answers POST /papi/webhooks/{id}/rotate_secret: 200
// with the endpoint and its new secret (shown this once); the old secret
// keeps signing for 24 hours. 404 for no such endpoint.
func (a *API) rotateWebhookSecret(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	if err := httpx.DecodeNoBody(c); err != nil {
		httpx.RespondError(c, err)
		return
	}
	hook, err := store.RotateWebhookSecret(c.Request.Context(), httpx.TenantDB(c), id, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, hook)
}

// testWebhook answers POST /papi/webhooks/{id}/test: a ping event is queued
// for this endpoint only; 202 with its delivery. 404 for no such endpoint,
// 409 when it is disabled.
func (a *API) testWebhook(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	if err := httpx.DecodeNoBody(c); err != nil {
		httpx.RespondError(c, err)
		return
	}
	d, err := store.TestWebhook(c.Request.Context(), httpx.TenantDB(c), id, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusAccepted, d)
}

// listWebhookDeliveries answers GET /papi/webhooks/{id}/deliveries: the
// endpoint's deliveries of the last 30 days, newest first, in the list
// envelope, each with its attempts; 404 for no such endpoint.
func (a *API) listWebhookDeliveries(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	page, err := a.parsePage(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	ds, total, err := store.ListWebhookDeliveries(c.Request.Context(), httpx.TenantDB(c), id, page)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	respondList(c, a, ds, total, page)
}

// retryWebhookDelivery answers POST
// /papi/webhooks/{id}/deliveries/{delivery_id}/retry: the delivery is
// attempted again at once (same event, same webhook-id); 202 with it. 404
// when the endpoint or the delivery is not the tenant's, 409 when the
// endpoint is disabled.
func (a *API) retryWebhookDelivery(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	if err := httpx.DecodeNoBody(c); err != nil {
		httpx.RespondError(c, err)
		return
	}
	deliveryID, err := strconv.ParseInt(c.Param("delivery_id"), 10, 64)
	if err != nil || deliveryID < 1 {
		httpx.RespondError(c, learngate.Errorf(learngate.NotFound, "not found"))
		return
	}
	d, err := store.RetryWebhookDelivery(c.Request.Context(), httpx.TenantDB(c), id, deliveryID, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusAccepted, d)
}
