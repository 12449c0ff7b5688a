package handlers

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"learngate"
	"learngate/input"
	"learngate/store"
)

// batchInvitePolicies are the values of send_invitations.
var batchInvitePolicies = []string{store.InviteNew, store.InviteAll, store.InviteNone}

// batchSaveUsers answers POST /papi/users/batch_save (docs/api.md,
// "Users"): 200 with the batch user result; 400 as a JSON string, with
// nothing saved, for a body without a people array, with no people or more
// than 100, or with a bad send_invitations.
func (s *Server) batchSaveUsers(c *gin.Context) {
	body, err := decodeUserBody(c)
	if err != nil {
		respondError(c, err)
		return
	}
	people, err := batchPeople(body)
	if err != nil {
		respondError(c, err)
		return
	}
	invite := store.InviteNone
	if v, ok := body["send_invitations"]; ok && !input.IsClear(v) {
		if invite, err = input.OneOf("send_invitations", v, batchInvitePolicies); err != nil {
			respondError(c, err)
			return
		}
	}
	rows := UserBatchRows(people, currentTenant(c).Timezone)
	result, err := store.BatchSaveUsers(c.Request.Context(), tenantDB(c), rows, invite, s.Now())
	if err != nil {
		respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, result)
}

// batchPeople returns the people array of a batch body: Invalid when it is
// missing, not an array, empty or longer than store.MaxBatchUsers.
func batchPeople(body map[string]any) ([]any, error) {
	v, ok := body["people"]
	if !ok || v == nil {
		return nil, learngate.Errorf(learngate.Invalid, "Bad request: Missing parameter 'people'")
	}
	people, ok := v.([]any)
	if !ok {
		return nil, input.IllegalValue("people", v)
	}
	switch {
	case len(people) == 0:
		return nil, learngate.Errorf(learngate.Invalid, "Bad request: 'people' must hold at least one person")
	case len(people) > store.MaxBatchUsers:
		return nil, learngate.Errorf(learngate.Invalid, "Bad request: 'people' may hold at most %d people, %d given",
			store.MaxBatchUsers, len(people))
	}
	return people, nil
}

// batchRow reads one person of a batch. Its fields are parsed by
// parseUserFields, as for POST /users (a new user) or PUT /users (an
// existing one), once the store knows which it is. Parse runs inside the
// store's transaction and hashes nothing: a new password's hash is read
// from *hash, which UserBatchRows fills before the store is called.
func batchRow(person any, tenantTZ string, hash *string) store.BatchRow {
	fields, ok := person.(map[string]any)
	if !ok {
		return store.BatchRow{Err: learngate.Errorf(learngate.Invalid, "Each person must be a JSON object")}
	}
	row := store.BatchRow{}
	row.Email, _ = fields["email"].(string)
	name, present := fields["user_name"]
	text, isText := name.(string)
	row.UserName = text
	if !present || !isText || strings.TrimSpace(text) == "" {
		row.Err = input.IllegalValue("user_name", name)
		return row
	}
	// A name PostgreSQL cannot hold (a NUL) is this row's error, before
	// the store looks the batch's names up.
	if _, err := input.Text("user_name", name); err != nil {
		row.Err = err
		return row
	}
	row.Parse = func(creating bool, current string) (store.UserInput, error) {
		in, password, err := parseUserFields(fields, creating, current, tenantTZ)
		if err != nil || password == "" {
			return in, err
		}
		if *hash == "" {
			return store.UserInput{}, fmt.Errorf("batch user %q: password not hashed", current)
		}
		in.PasswordHash = hash
		return in, nil
	}
	row.Enrolments = parseEnrolmentFields(fields)
	return row
}

// batchPassword is the valid new password of a batch person, "" when it
// sends none (or one its row will refuse).
func batchPassword(person any) string {
	fields, _ := person.(map[string]any)
	v, ok := fields["password"]
	if !ok {
		return ""
	}
	s, valid, err := acceptedPassword(v)
	if err != nil || !valid {
		return ""
	}
	return s
}
