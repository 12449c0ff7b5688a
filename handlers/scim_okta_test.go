package handlers

import (
	"net/http"
	"testing"
	"time"

	"learngate/handlers/scimapi"
)

// Okta's user sequence (its SCIM 2.0 guide): lookup, create with a
// password and locale, full PUT, deactivate with a value object; and the
// filters of RFC 7644 §3.4.2.2 on the attributes learngate maps.
func TestSCIMOktaUserSequenceAndFilters(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	e.registerUserHook(t)
	scimExpect(t, e.acme, http.MethodGet, filterPath("/scim/v2/Users", `userName eq "test.user@okta.local"`)+"&startIndex=1&count=100", "", http.StatusOK, scimEmptyList)
	u := wantSCIMUser{id: "1", externalID: "00ujl29u0le5T6Aj10h7", userName: "test.user@okta.local", given: "Test", family: "User",
		email: "test.user@okta.local", active: true, userType: "Staff", lang: "en", tz: "Pacific/Auckland",
		created: "2025-06-01T09:30:00Z", modified: "2025-06-01T09:30:00Z"}
	scimExpect(t, e.acme, http.MethodPost, "/scim/v2/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],
		"userName":"test.user@okta.local","name":{"givenName":"Test","familyName":"User"},
		"emails":[{"primary":true,"value":"test.user@okta.local","type":"work"}],"displayName":"Test User","locale":"en-US",
		"externalId":"00ujl29u0le5T6Aj10h7","groups":[],"password":"1mz050nq","active":true}`, http.StatusCreated, u.json())
	if hash := e.passwordHash(t, "test.user@okta.local"); hash != nil {
		t.Fatal("a SCIM password was stored")
	}

	// Full PUT: attributes left out are cleared (externalId; timezone back to the organisation's).
	e.clock.advance(time.Minute)
	e.acme.call(t, http.MethodPut, "/papi/users/test.user@okta.local", `{"timezone":"Europe/Berlin","lms_learner_id":"L1"}`, http.StatusOK, "")
	put := u
	put.externalID, put.family, put.lang, put.userType, put.modified = "", "Userson", "fr", "Employee", "2025-06-01T09:31:00Z"
	scimExpect(t, e.acme, http.MethodPut, "/scim/v2/Users/1", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"id":"1",
		"userName":"test.user@okta.local","name":{"givenName":"Test","familyName":"Userson"},"userType":"employee",
		"emails":[{"primary":true,"value":"test.user@okta.local","type":"work"}],"preferredLanguage":"fr_CA","active":true,
		"meta":{"resourceType":"User"}}`, http.StatusOK, put.json())
	papiUser := e.acme.getJSON(t, "/papi/users/test.user@okta.local", http.StatusOK)
	if papiUser["timezone"] != "Pacific/Auckland" || papiUser["lms_learner_id"] != "" || papiUser["last_name"] != "Userson" {
		t.Fatalf("/papi user after a full PUT = %v", papiUser)
	}

	// Deactivate the Okta way, with a value object and no path.
	put.active = false
	scimExpect(t, e.acme, http.MethodPatch, "/scim/v2/Users/1", `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
		"Operations":[{"op":"replace","value":{"active":false}}]}`, http.StatusOK, put.json())

	// RFC 7644 §3.4.2.2 filters on mapped attributes, and their errors.
	one, none := scimListOf(1, put.json()), scimEmptyList
	for _, c := range []struct{ filter, want string }{
		{`userName Eq "TEST.USER@okta.local"`, one},
		{`name.familyName co "SON"`, one},
		{`userName sw "test."`, one},
		{`urn:ietf:params:scim:schemas:core:2.0:User:userName sw "T"`, one},
		{`userName ew ".local"`, one},
		{`externalId pr`, none},
		{`meta.lastModified gt "2025-06-01T09:30:30Z"`, one},
		{`meta.lastModified lt "2025-06-01T09:30:30Z"`, none},
		{`meta.created ge "2025-06-01T09:30:00Z" and meta.created le "2025-06-01T09:30:00Z"`, one},
		{`userType eq "Employee" and (emails co "okta.local" or emails.value co "example.org")`, one},
		{`userType ne "Employee" and not (emails co "okta.local" or emails.value co "example.org")`, none},
		{`userType eq "Employee" and (emails.type eq "work")`, one},
		{`userType eq "Employee" and emails[type eq "work" and value co "@okta.local"]`, one},
		{`active eq false and preferredLanguage eq "fr"`, one},
		{`id eq "1" or id eq "x"`, one},
		{`not (id ne "1")`, one},
	} {
		t.Run(c.filter, func(t *testing.T) {
			scimExpect(t, e.acme, http.MethodGet, filterPath("/scim/v2/Users", c.filter), "", http.StatusOK, c.want)
			scimExpect(t, e.other, http.MethodGet, filterPath("/scim/v2/Users", c.filter), "", http.StatusOK, scimEmptyList)
		})
	}
	for _, c := range []struct{ filter, want string }{
		{`title pr`, scimErr("400", "invalidFilter", "the filter names an attribute learngate does not filter on: title")},
		{`emails[type eq "work"] or ims[type eq "xmpp" and value co "@foo.com"]`, scimErr("400", "invalidFilter", "the filter names an attribute learngate does not filter on: ims")},
		{`active eq "yes"`, scimErr("400", "invalidFilter", `active cannot be compared with eq yes`)},
		{`meta.created gt "yesterday"`, scimErr("400", "invalidFilter", "meta.created must be compared with a date-time such as 2011-05-13T04:42:34Z")},
		{`userName eq`, ""},
	} {
		w := scimCall(e.acme, http.MethodGet, filterPath("/scim/v2/Users", c.filter), "")
		if c.want == "" {
			var body scimapi.ErrorBody
			decode(t, w, &body)
			if w.Code != http.StatusBadRequest || body.SCIMType != "invalidFilter" || body.Status != "400" {
				t.Fatalf("filter %q: %d %s", c.filter, w.Code, w.Body.String())
			}
			continue
		}
		assertResponse(t, w, http.StatusBadRequest, c.want)
	}
	e.assertEvents(t, "user.created", "user.updated", "user.updated", "user.deactivated")
}

// The SCIM chain: SCIM's error shape for an unknown host, a missing key,
// a wrong Content-Type and an unmatched path; discovery without a key.
func TestSCIMChainAndDiscovery(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	w := do(e.h.public, request{path: "/scim/v2/Users", host: "nobody.learngate.localhost", headers: map[string]string{"Authorization": "Bearer " + e.acme.key}})
	assertResponse(t, w, http.StatusNotFound, scimErr("404", "", "unknown organisation"))
	w = do(e.h.public, request{path: "/scim/v2/Users", host: e.acme.host, headers: map[string]string{"Authorization": "Bearer " + e.other.key}})
	assertResponse(t, w, http.StatusUnauthorized, scimErr("401", "", "unauthorized"))
	w = do(e.h.public, request{method: http.MethodPost, path: "/scim/v2/Users", host: e.acme.host, body: `{}`,
		headers: map[string]string{"Authorization": "Bearer " + e.acme.key, "Content-Type": "text/plain"}})
	assertResponse(t, w, http.StatusNotAcceptable, scimErr("406", "", "Content-Type must be application/scim+json or application/json"))
	// application/json is accepted too; a bad body is invalidSyntax, a missing name invalidValue.
	w = do(e.h.public, request{method: http.MethodPost, path: "/scim/v2/Users", host: e.acme.host, body: `[1]`,
		headers: map[string]string{"Authorization": e.acme.key, "Content-Type": "application/json"}})
	assertResponse(t, w, http.StatusBadRequest, scimErr("400", "invalidSyntax", "the body must be one JSON object"))
	scimExpect(t, e.acme, http.MethodGet, "/scim/v2/Users/abc", "", http.StatusNotFound, scimErr("404", "", "not found"))
	scimExpect(t, e.acme, http.MethodGet, "/scim/v2/Users?count=x", "", http.StatusBadRequest, scimErr("400", "invalidValue", "count must be an integer"))

	// Discovery needs no key; its locations are absolute.
	w = do(e.h.public, request{path: "/scim/v2/ResourceTypes/User", host: e.acme.host})
	assertResponse(t, w, http.StatusOK, `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],"id":"User","name":"User",
		"endpoint":"/Users","description":"A learner or other user of the organisation.","schema":"urn:ietf:params:scim:schemas:core:2.0:User",
		"schemaExtensions":[{"schema":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User","required":false}],
		"meta":{"resourceType":"ResourceType","location":"http://acme.learngate.localhost/scim/v2/ResourceTypes/User"}}`)
	var config struct {
		Patch  struct{ Supported bool }
		Filter struct {
			Supported  bool
			MaxResults int
		}
		Bulk, Sort, Etag, ChangePassword struct{ Supported bool }
		AuthenticationSchemes            []struct{ Type string }
	}
	w = do(e.h.public, request{path: "/scim/v2/ServiceProviderConfig", host: e.acme.host})
	decode(t, w, &config)
	if w.Code != http.StatusOK || !config.Patch.Supported || !config.Filter.Supported || config.Filter.MaxResults != 100 ||
		config.Bulk.Supported || config.Sort.Supported || config.Etag.Supported || config.ChangePassword.Supported ||
		len(config.AuthenticationSchemes) != 1 || config.AuthenticationSchemes[0].Type != "oauthbearertoken" {
		t.Fatalf("ServiceProviderConfig = %d %s", w.Code, w.Body.String())
	}
	var schemas scimapi.ListResponse[map[string]any]
	w = do(e.h.public, request{path: "/scim/v2/Schemas", host: e.acme.host})
	decode(t, w, &schemas)
	if schemas.TotalResults != 3 || len(schemas.Resources) != 3 {
		t.Fatalf("Schemas = %s", w.Body.String())
	}
	w = do(e.h.public, request{path: "/scim/v2/Schemas/urn:nothing", host: e.acme.host})
	assertResponse(t, w, http.StatusNotFound, scimErr("404", "", "not found"))

	// An unmatched /scim/v2 path goes through the SCIM chain to a SCIM 404
	// (on the router itself: the document has no such path to check it against).
	raw, err := e.h.server.PublicRouter()
	if err != nil {
		t.Fatal(err)
	}
	w = do(raw, request{path: "/scim/v2/Bulk", host: e.acme.host})
	assertResponse(t, w, http.StatusUnauthorized, scimErr("401", "", "unauthorized"))
	w = do(raw, request{path: "/scim/v2/Bulk", host: e.acme.host, headers: map[string]string{"Authorization": "Bearer " + e.acme.key}})
	assertResponse(t, w, http.StatusNotFound, scimErr("404", "", "not found"))
	if w.Header().Get("Content-Type") != "application/scim+json" || w.Header().Get("X-RateLimit-Limit") == "" {
		t.Fatalf("unmatched SCIM path headers = %v", w.Header())
	}
	w = do(raw, request{path: "/papi/nothing", host: e.acme.host, headers: map[string]string{"Authorization": e.acme.key}})
	assertResponse(t, w, http.StatusNotFound, `{"error":"not found"}`)
}
