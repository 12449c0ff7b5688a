package scimapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
	"learngate/scim"
	"learngate/store"
)

// SCIM Groups (docs/scim.md): the tenant's groups catalog; members are
// the users' groups.

// scimListGroups answers GET /scim/v2/Groups; members are loaded only
// when they are returned (excludedAttributes=members skips them).
func (a *API) scimListGroups(c *gin.Context) {
	q, err := parseSCIMList(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	groups, total, err := store.ListSCIMGroups(c.Request.Context(), httpx.TenantDB(c), q.filter, q.startIndex, q.count,
		q.projection.keep("members"))
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	docs := make([]scimGroupDoc, len(groups))
	for i, g := range groups {
		docs[i] = a.scimGroup(c, g, q.projection)
	}
	scimJSON(c, http.StatusOK, ListResponse[scimGroupDoc]{Schemas: []string{scim.ListResponseSchema},
		TotalResults: total, StartIndex: q.startIndex, ItemsPerPage: len(docs), Resources: docs})
}

// scimShowGroup answers GET /scim/v2/Groups/{id}.
func (a *API) scimShowGroup(c *gin.Context) {
	id, ok := scimPathID(c)
	if !ok {
		return
	}
	p := parseProjection(c)
	g, err := store.GetSCIMGroup(c.Request.Context(), httpx.TenantDB(c), id, p.keep("members"))
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	scimJSON(c, http.StatusOK, a.scimGroup(c, g, p))
}

// scimCreateGroup answers POST /scim/v2/Groups: 201 with the group and
// its Location.
func (a *API) scimCreateGroup(c *gin.Context) {
	body, err := decodeSCIMBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	g, err := scim.GroupReplace(body)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	group, err := store.CreateSCIMGroup(c.Request.Context(), httpx.TenantDB(c), *g.DisplayName, g.ExternalID, g.Members.Add, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	doc := a.scimGroup(c, group, parseProjection(c))
	c.Header("Location", doc.Meta.Location)
	scimJSON(c, http.StatusCreated, doc)
}

// scimReplaceGroup answers PUT /scim/v2/Groups/{id}: name, externalId and
// members become the body's.
func (a *API) scimReplaceGroup(c *gin.Context) {
	id, body, ok := scimTarget(c)
	if !ok {
		return
	}
	g, err := scim.GroupReplace(body)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	a.updateSCIMGroup(c, id, g)
}

// scimPatchGroup answers PATCH /scim/v2/Groups/{id}: the operations are
// folded into one change, applied in one transaction (the membership in
// one statement); 200 with the group.
func (a *API) scimPatchGroup(c *gin.Context) {
	id, body, ok := scimTarget(c)
	if !ok {
		return
	}
	ops, err := scim.ParsePatchOp(body)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	g, err := scim.GroupChange(ops)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	a.updateSCIMGroup(c, id, g)
}

func (a *API) updateSCIMGroup(c *gin.Context, id int64, g scim.GroupPatch) {
	group, err := store.UpdateSCIMGroup(c.Request.Context(), httpx.TenantDB(c), id, store.SCIMGroupChange{
		Name: g.DisplayName, SetExternalID: g.SetExternalID, ExternalID: g.ExternalID, Members: g.Members,
	}, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	scimJSON(c, http.StatusOK, a.scimGroup(c, group, parseProjection(c)))
}

// scimDeleteGroup answers DELETE /scim/v2/Groups/{id}: 204; the group
// leaves the catalog and its users.
func (a *API) scimDeleteGroup(c *gin.Context) {
	id, ok := scimPathID(c)
	if !ok {
		return
	}
	if err := store.DeleteSCIMGroup(c.Request.Context(), httpx.TenantDB(c), id); err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
