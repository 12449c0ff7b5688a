package papi

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/store"
)

// catalogRequest is the body of POST /papi/<kind> for the name-only catalogs.
type catalogRequest struct {
	Name string `json:"name"`
}

// listCatalog answers GET /papi/<kind>: one page of the catalog in the list
// envelope, oldest first.
func (a *API) listCatalog(kind learngate.CatalogKind) gin.HandlerFunc {
	return func(c *gin.Context) {
		page, err := a.parsePage(c)
		if err != nil {
			httpx.RespondError(c, err)
			return
		}
		items, total, err := store.ListCatalog(c.Request.Context(), httpx.TenantDB(c), kind, page)
		if err != nil {
			httpx.RespondError(c, err)
			return
		}
		respondList(c, a, items, total, page)
	}
}

// createCatalogItem answers POST /papi/<kind>: 201 {"id","name"}; 400 for a
// bad body or name; 422 when the name is taken in any letter case.
func (a *API) createCatalogItem(kind learngate.CatalogKind) gin.HandlerFunc {
	return func(c *gin.Context) {
		var req catalogRequest
		if err := httpx.DecodeStrict(c, &req); err != nil {
			httpx.RespondError(c, err)
			return
		}
		item, err := store.CreateCatalogItem(c.Request.Context(), httpx.TenantDB(c), kind, req.Name)
		if err != nil {
			httpx.RespondError(c, err)
			return
		}
		c.JSON(http.StatusCreated, item)
	}
}

// deleteCatalogItem answers DELETE /papi/<kind>/{id}: 204, or 404.
func (a *API) deleteCatalogItem(kind learngate.CatalogKind) gin.HandlerFunc {
	return func(c *gin.Context) {
		id, err := pathID(c)
		if err != nil {
			httpx.RespondError(c, err)
			return
		}
		if err := store.DeleteCatalogItem(c.Request.Context(), httpx.TenantDB(c), kind, id); err != nil {
			httpx.RespondError(c, err)
			return
		}
		c.Status(http.StatusNoContent)
	}
}

// customFieldRequest is the body of POST /papi/custom_fields.
type customFieldRequest struct {
	Name      string   `json:"name"`
	FieldType string   `json:"field_type"`
	Options   []string `json:"options"`
}

// listCustomFields answers GET /papi/custom_fields in the list envelope.
func (a *API) listCustomFields(c *gin.Context) {
	page, err := a.parsePage(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	fields, total, err := store.ListCustomFields(c.Request.Context(), httpx.TenantDB(c), page)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	respondList(c, a, fields, total, page)
}

// createCustomField answers POST /papi/custom_fields: 201 with the field;
// 400 for a bad body or field; 422 for a taken name or a 21st field.
func (a *API) createCustomField(c *gin.Context) {
	var req customFieldRequest
	if err := httpx.DecodeStrict(c, &req); err != nil {
		httpx.RespondError(c, err)
		return
	}
	in := learngate.NewCustomField{Name: req.Name, FieldType: req.FieldType, Options: req.Options}
	field, err := store.CreateCustomField(c.Request.Context(), httpx.TenantDB(c), in)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, field)
}

// deleteCustomField answers DELETE /papi/custom_fields/{id}: 204, or 404.
func (a *API) deleteCustomField(c *gin.Context) {
	id, err := pathID(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	if err := store.DeleteCustomField(c.Request.Context(), httpx.TenantDB(c), id); err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// pathID reads the :id path parameter; an id that is not a positive integer
// addresses nothing, so it is NotFound.
func pathID(c *gin.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, learngate.Errorf(learngate.NotFound, "not found")
	}
	return id, nil
}
