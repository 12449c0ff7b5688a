package handlers

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestSCIMRecreatedUserHasNoGroups (issue 27, finding 7): a user deleted
// through SCIM and created again with the same userName starts with no
// group memberships, through SCIM (the user's groups, the group's
// members) and through /papi alike; the group itself stays. Its events are
// those of a revival; the other tenant sees none of it.
func TestSCIMRecreatedUserHasNoGroups(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.registerUserHook(t)
	ann := `{"userName":"ann","name":{"givenName":"Ann","familyName":"Lee"},"emails":[{"value":"ann@example.com"}]}`
	scimExpect(t, e.acme, http.MethodPost, "/scim/v2/Users", ann, http.StatusCreated, "")
	scimExpect(t, e.acme, http.MethodPost, "/scim/v2/Groups", `{"displayName":"Sales","members":[{"value":"1"}]}`, http.StatusCreated, "")
	groupsOf := func(path string) string {
		t.Helper()
		var body map[string]any
		decode(t, scimExpect(t, e.acme, http.MethodGet, path, "", http.StatusOK, ""), &body)
		return fmt.Sprint(body["groups"], body["members"])
	}
	if got := groupsOf("/scim/v2/Users/1"); got != "[map[display:Sales value:1]] <nil>" {
		t.Fatalf("before: user groups %s", got)
	}

	e.clock.advance(time.Minute)
	scimExpect(t, e.acme, http.MethodDelete, "/scim/v2/Users/1", "", http.StatusNoContent, "")
	e.clock.advance(time.Minute)
	var back map[string]any
	decode(t, scimExpect(t, e.acme, http.MethodPost, "/scim/v2/Users", ann, http.StatusCreated, ""), &back)
	if back["id"] != "1" || back["groups"] != nil {
		t.Fatalf("re-created: id %v, groups %v; want 1 and none", back["id"], back["groups"])
	}
	if got := groupsOf("/scim/v2/Users/1"); got != "<nil> <nil>" {
		t.Fatalf("user groups after re-creation: %s", got)
	}
	if got := groupsOf("/scim/v2/Groups/1"); got != "<nil> []" {
		t.Fatalf("group members after re-creation: %s", got)
	}
	if got := e.acme.getJSON(t, "/papi/users/ann", http.StatusOK)["groups"]; got != "" {
		t.Fatalf("/papi groups after re-creation: %v", got)
	}
	if got := e.acme.getJSON(t, "/papi/groups", http.StatusOK)["total_records"]; got != 1.0 {
		t.Fatalf("groups after re-creation: %v, want 1 (the group stays)", got)
	}
	e.assertSCIMIsolated(t, "1", "1")
	e.assertEvents(t, "user.created", "user.updated", "user.deactivated", "user.reactivated")
}
