package handlers

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/store"
)

// listWebhookDeliveries answers GET /papi/webhooks/{id}/deliveries: the
// endpoint's deliveries of the last 30 days, newest first, in the list
// envelope, each with its attempts; 404 for no such endpoint.
func (s *Server) listWebhookDeliveries(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		respondError(c, err)
		return
	}
	page, err := parsePage(c)
	if err != nil {
		respondError(c, err)
		return
	}
	ds, total, err := store.ListWebhookDeliveries(c.Request.Context(), tenantDB(c), id, page)
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, newListEnvelope(ds, total, page))
}

// retryWebhookDelivery answers POST
// /papi/webhooks/{id}/deliveries/{delivery_id}/retry: the delivery is
// attempted again at once (same event, same webhook-id); 202 with it. 404
// when the endpoint or the delivery is not the tenant's, 409 when the
// endpoint is disabled.
func (s *Server) retryWebhookDelivery(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		respondError(c, err)
		return
	}
	deliveryID, err := strconv.ParseInt(c.Param("delivery_id"), 10, 64)
	if err != nil || deliveryID < 1 {
		respondError(c, learngate.Errorf(learngate.NotFound, "not found"))
		return
	}
	d, err := store.RetryWebhookDelivery(c.Request.Context(), tenantDB(c), id, deliveryID, s.Now())
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusAccepted, d)
}
