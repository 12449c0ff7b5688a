package scimapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	filter "github.com/scim2/filter-parser/v2"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/records"
	"learngate/scim"
	"learngate/store"
)

// SCIM Users (docs/scim.md). Every write translates the SCIM document into
// a Public API user body (scim.UserBody) and goes through records.ParseUser
// and the store's user save: one set of rules for SCIM and the API.

// scimListUsers answers GET /scim/v2/Users.
func (a *API) scimListUsers(c *gin.Context) {
	q, err := parseSCIMList(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	users, total, err := store.ListSCIMUsers(c.Request.Context(), httpx.TenantDB(c), q.filter, q.startIndex, q.count)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	docs := make([]scimUserDoc, len(users))
	for i, u := range users {
		docs[i] = a.scimUser(c, u, q.projection)
	}
	scimJSON(c, http.StatusOK, ListResponse[scimUserDoc]{Schemas: []string{scim.ListResponseSchema},
		TotalResults: total, StartIndex: q.startIndex, ItemsPerPage: len(docs), Resources: docs})
}

// scimShowUser answers GET /scim/v2/Users/{id}.
func (a *API) scimShowUser(c *gin.Context) {
	id, ok := scimPathID(c)
	if !ok {
		return
	}
	u, err := store.GetSCIMUser(c.Request.Context(), httpx.TenantDB(c), id)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	scimJSON(c, http.StatusOK, a.scimUser(c, u, parseProjection(c)))
}

// scimCreateUser answers POST /scim/v2/Users: 201 with the user and its
// Location; a user deleted through SCIM comes back.
func (a *API) scimCreateUser(c *gin.Context) {
	body, err := decodeSCIMBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	w, err := scim.UserBody(scim.User.Normalize(body), true)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	in, err := records.ParseUser(w.Body, true, "", httpx.CurrentTenant(c).Timezone)
	if err != nil {
		httpx.RespondError(c, scimUserError(err))
		return
	}
	u, _, err := store.CreateSCIMUser(c.Request.Context(), httpx.TenantDB(c), in,
		store.SCIMUserExtras{ExternalID: w.ExternalID, ManagerID: w.ManagerID}, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, scimUserError(err))
		return
	}
	doc := a.scimUser(c, u, parseProjection(c))
	c.Header("Location", doc.Meta.Location)
	scimJSON(c, http.StatusCreated, doc)
}

// scimReplaceUser answers PUT /scim/v2/Users/{id}: the mapped attributes
// the body leaves out are cleared where the API allows it.
func (a *API) scimReplaceUser(c *gin.Context) {
	id, body, ok := scimTarget(c)
	if !ok {
		return
	}
	doc := scim.User.Normalize(body)
	a.saveSCIMUser(c, id, func(store.SCIMUser) (map[string]any, bool, error) { return doc, false, nil })
}

// scimPatchUser answers PATCH /scim/v2/Users/{id}: the operations apply to
// the user as it stands, all or none; 200 with the user.
func (a *API) scimPatchUser(c *gin.Context) {
	id, body, ok := scimTarget(c)
	if !ok {
		return
	}
	ops, err := scim.ParsePatchOp(body)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	a.saveSCIMUser(c, id, func(cur store.SCIMUser) (map[string]any, bool, error) {
		doc, err := a.scimUserMap(c, cur)
		if err != nil {
			return nil, false, err
		}
		if err := scim.User.Apply(doc, ops); err != nil {
			return nil, false, err
		}
		// A manager_email that names no visible user has no SCIM id to
		// show; a PATCH that leaves the manager alone keeps it.
		return doc, cur.ManagerID == nil, nil
	})
}

// saveSCIMUser replaces user id with the document build returns
// (keepManager: an absent manager leaves manager_email as it is) and
// answers 200 with the user.
func (a *API) saveSCIMUser(c *gin.Context, id int64, build func(store.SCIMUser) (map[string]any, bool, error)) {
	tz := httpx.CurrentTenant(c).Timezone
	u, err := store.ReplaceSCIMUser(c.Request.Context(), httpx.TenantDB(c), id, func(cur store.SCIMUser) (learngate.UserInput, store.SCIMUserExtras, error) {
		doc, keepManager, err := build(cur)
		if err != nil {
			return learngate.UserInput{}, store.SCIMUserExtras{}, err
		}
		w, err := scim.UserBody(doc, false)
		if err != nil {
			return learngate.UserInput{}, store.SCIMUserExtras{}, err
		}
		if keepManager && w.ManagerID == nil {
			delete(w.Body, "manager_email")
		}
		in, err := records.ParseUser(w.Body, true, "", tz)
		return in, store.SCIMUserExtras{ExternalID: w.ExternalID, ManagerID: w.ManagerID}, err
	}, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, scimUserError(err))
		return
	}
	scimJSON(c, http.StatusOK, a.scimUser(c, u, parseProjection(c)))
}

// scimDeleteUser answers DELETE /scim/v2/Users/{id}: 204; the user is
// deactivated and gone from SCIM.
func (a *API) scimDeleteUser(c *gin.Context) {
	id, ok := scimPathID(c)
	if !ok {
		return
	}
	if err := store.DeleteSCIMUser(c.Request.Context(), httpx.TenantDB(c), id, a.gate.Now()); err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// scimPathID reads the {id} of a resource path; an id learngate never
// gives is answered 404 here (ok false).
func scimPathID(c *gin.Context) (int64, bool) {
	id, ok := scim.ParseID(c.Param("id"))
	if !ok {
		httpx.RespondError(c, learngate.Errorf(learngate.NotFound, "not found"))
	}
	return id, ok
}

// scimTarget reads what a replace or a patch works on: the resource id of
// the path (404 when it is none) and the body (decodeSCIMBody). Each
// refusal is answered; ok is false then.
func scimTarget(c *gin.Context) (int64, map[string]any, bool) {
	id, ok := scimPathID(c)
	if !ok {
		return 0, nil, false
	}
	body, err := decodeSCIMBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return 0, nil, false
	}
	return id, body, true
}

// decodeSCIMBody reads a SCIM request body: one JSON object (400
// invalidSyntax otherwise).
func decodeSCIMBody(c *gin.Context) (map[string]any, error) {
	raw, err := httpx.ReadBody(c)
	if err != nil {
		return nil, err
	}
	bad := &learngate.Error{Code: learngate.Invalid, Message: "the body must be one JSON object", SCIMType: scim.InvalidSyntax}
	trimmed := bytes.Trim(raw, httpx.JSONSpace)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, bad
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	v, err := httpx.DecodeTree(dec)
	if err != nil || dec.More() {
		return nil, bad
	}
	return v.(map[string]any), nil
}

// scimListQuery is a list request's parameters.
type scimListQuery struct {
	filter            filter.Expression
	startIndex, count int
	projection        projection
}

// parseSCIMList reads filter, startIndex (1-based; below 1 is 1) and count
// (default and maximum scim.MaxResults; below 0 is 0). A filter that does
// not parse is 400 invalidFilter; a startIndex or count that is no integer
// 400 invalidValue.
func parseSCIMList(c *gin.Context) (scimListQuery, error) {
	q := scimListQuery{startIndex: 1, count: scim.MaxResults, projection: parseProjection(c)}
	if raw, ok := c.GetQuery("filter"); ok {
		expr, err := scim.ParseFilter(raw)
		if err != nil {
			return q, err
		}
		q.filter = expr
	}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"startIndex", &q.startIndex}, {"count", &q.count}} {
		v := strings.TrimSpace(c.Query(p.name))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return q, scim.Errorf(scim.InvalidValue, "%s must be an integer", p.name)
		}
		*p.dst = n
	}
	q.startIndex = max(q.startIndex, 1)
	q.count = min(max(q.count, 0), scim.MaxResults)
	return q, nil
}
