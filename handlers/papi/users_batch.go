package papi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/input"
	"learngate/records"
	"learngate/store"
)

// batchInvitePolicies are the values of send_invitations.
var batchInvitePolicies = []string{store.InviteNew, store.InviteAll, store.InviteNone}

// batchSaveUsers answers POST /papi/users/batch_save (docs/api.md,
// "Users"): 200 with the batch user result; 400 as a JSON string, with
// nothing saved, for a body without a people array, with no people or more
// than 100, or with a bad send_invitations.
func (a *API) batchSaveUsers(c *gin.Context) {
	body, err := decodeUserBody(c)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	people, err := batchPeople(body)
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	invite := store.InviteNone
	if v, ok := body["send_invitations"]; ok && !input.IsClear(v) {
		if invite, err = input.OneOf("send_invitations", v, batchInvitePolicies); err != nil {
			httpx.RespondError(c, err)
			return
		}
	}
	rows := records.UserBatchRows(people, httpx.CurrentTenant(c).Timezone)
	result, err := store.BatchSaveUsers(c.Request.Context(), httpx.TenantDB(c), rows, invite, a.gate.Now())
	if err != nil {
		httpx.RespondError(c, err)
		return
	}
	c.JSON(http.StatusOK, result)
}

// batchPeople returns the people array of a batch body: Invalid when it is
// missing, not an array, empty or longer than store.MaxBatchUsers.
func batchPeople(body map[string]any) ([]any, error) {
	v, ok := body["people"]
	if !ok || v == nil {
		return nil, learngate.Errorf(learngate.Invalid, "Missing parameter 'people'")
	}
	people, ok := v.([]any)
	if !ok {
		return nil, input.IllegalValue("people", v)
	}
	switch {
	case len(people) == 0:
		return nil, learngate.Errorf(learngate.Invalid, "'people' must hold at least one person")
	case len(people) > store.MaxBatchUsers:
		return nil, learngate.Errorf(learngate.Invalid, "'people' may hold at most %d people, %d given",
			store.MaxBatchUsers, len(people))
	}
	return people, nil
}
