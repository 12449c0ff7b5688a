package papi

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"learngate/handlers/httpx"
	"learngate/input"
	"learngate/records"
	"learngate/store"
	"learngate/store/list"
)

// Users (docs/api.md, "Users"; docs/decisions.md, "Users"). Every route is
// behind WithErrorStyle(StyleUser): 400 and 404 are bare JSON strings, 422
// the spec's {user_name, email, params, reason, errors}.

// createUser answers POST /papi/users: 200 with the user object.
func (a *API) createUser(c *gin.Context) {
	body, err := decodeUserBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	in, err := records.ParseUser(body, true, "", httpx.CurrentTenant(c).Timezone)
	if err != nil {
		httpx.RespondError(c, withParams(err, body))
		return
	}
	user, err := store.CreateUser(c.Request.Context(), httpx.TenantDB(c), in, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, withParams(err, body))
		return
	}
	c.JSON(http.StatusOK, user)
}

// showUser answers GET /papi/users/{user_name} (any letter case): the user
// object, or 404 "not found".
func (a *API) showUser(c *gin.Context) {
	userName, err := pathText(c, "user_name")
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	user, err := store.GetUser(c.Request.Context(), httpx.TenantDB(c), userName)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, user)
}

// updateUser answers PUT /papi/users/{user_name}: only the given fields
// change; 200 with the user object, 404 "not found", else as createUser.
func (a *API) updateUser(c *gin.Context) {
	userName, err := pathText(c, "user_name")
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	body, err := decodeUserBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	in, err := records.ParseUser(body, false, userName, httpx.CurrentTenant(c).Timezone)
	if err != nil {
		httpx.RespondError(c, withParams(err, body))
		return
	}
	user, err := store.UpdateUser(c.Request.Context(), httpx.TenantDB(c), userName, in, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, withParams(err, body))
		return
	}
	c.JSON(http.StatusOK, user)
}

// listUsers answers GET /papi/users: newest first, in the list envelope,
// records.Filtered by updated_after, updated_before, active, email and x-<field>.
func (a *API) listUsers(c *gin.Context) {
	page, updated, err := a.parseListQuery(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	f := list.UserFilter{UpdatedFilter: updated}
	if f.Email, err = input.QueryText("email", c.Query("email")); err != nil {
		httpx.RespondError(c, err)
		return
	}
	if f.CustomFields, err = input.CustomFieldFilters(c.Request.URL.Query()); err != nil {
		httpx.RespondError(c, err)
		return
	}
	if v := c.Query("active"); strings.TrimSpace(v) != "" {
		active, err := input.Bool("active", v)
		if err != nil {
			httpx.RespondError(c, err)
			return
		}
		f.Active = &active
	}
	users, total, err := store.ListUsers(c.Request.Context(), httpx.TenantDB(c), f, page)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	respondList(c, a, users, total, page)
}

// queryTime parses a list time filter (docs/decisions.md, "Lists and paging"); nil when
// the parameter is absent or empty.
func queryTime(c *gin.Context, name string) (*time.Time, error) {
	v := c.Query(name)
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	t, err := input.DateTimeUTC(name, v)
	if err != nil {
		return nil, err
	}
	return &t, nil
}
