package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"learngate/store/storetest"
)

// opsTenant is a tenant as the ops API shows it.
type opsTenant struct {
	Slug               string    `json:"slug"`
	Name               string    `json:"name"`
	Schema             string    `json:"schema"`
	Timezone           string    `json:"timezone"`
	Status             string    `json:"status"`
	APIEnabled         bool      `json:"api_enabled"`
	RateLimitPerMinute int64     `json:"rate_limit_per_minute"`
	Domains            []string  `json:"domains"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
	DatabaseNode       *string   `json:"database_node"`
}

// opsKey is an API key record as the ops API shows it.
type opsKey struct {
	ID         int64      `json:"id"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

var (
	opsTenantFields = []string{"api_enabled", "created_at", "database_node", "domains", "name", "rate_limit_per_minute",
		"schema", "slug", "status", "timezone", "updated_at"}
	opsKeyFields  = []string{"created_at", "id", "last_used_at", "prefix", "revoked_at"}
	opsSchemaName = regexp.MustCompile(`^tenant_[1-9][0-9]*$`)
	opsNodeAddr   = regexp.MustCompile(`^[^:]+:[1-9][0-9]*$`)
	// opsTimestamp is the form of every timestamp the ops API answers: the
	// Public API's (UTC, whole seconds, +00:00).
	opsTimestamp   = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$`)
	opsAPIKeyText  = regexp.MustCompile(`^lg_[A-Za-z0-9_-]{43}$`)
	opsTestStarted = time.Now()
)

// opsStrictDecode unmarshals raw into v after checking that raw is an
// object holding exactly the fields named.
func opsStrictDecode(t testing.TB, raw []byte, fields []string, v any) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	got := make([]string, 0, len(m))
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, fields) {
		t.Fatalf("fields = %v, want %v in %s", got, fields, raw)
	}
	for _, k := range got {
		var at *string
		if strings.HasSuffix(k, "_at") && json.Unmarshal(m[k], &at) == nil && at != nil && !opsTimestamp.MatchString(*at) {
			t.Fatalf("%s = %q, want the Public API's form 2025-06-01T09:30:00+00:00 in %s", k, *at, raw)
		}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
}

// opsRecent fails unless at is a time taken during this test run.
func opsRecent(t testing.TB, what string, at time.Time) {
	t.Helper()
	if at.Before(opsTestStarted.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
		t.Fatalf("%s = %v, not a time of this test run (started %v)", what, at, opsTestStarted)
	}
}

// opsCheckTenant compares every field of a tenant the ops API returned with
// want; the schema must look like tenant_<id> and the timestamps be recent.
func opsCheckTenant(t testing.TB, raw []byte, want opsTenant) opsTenant {
	t.Helper()
	var got opsTenant
	opsStrictDecode(t, raw, opsTenantFields, &got)
	if !opsSchemaName.MatchString(got.Schema) {
		t.Fatalf("schema = %q, want tenant_<id>", got.Schema)
	}
	opsRecent(t, "created_at", got.CreatedAt)
	opsRecent(t, "updated_at", got.UpdatedAt)
	if got.UpdatedAt.Before(got.CreatedAt) {
		t.Fatalf("updated_at %v before created_at %v", got.UpdatedAt, got.CreatedAt)
	}
	// database_node: null on a single PostgreSQL, a worker's host:port on
	// a Citus cluster (TestOpsDatabaseNode checks which worker).
	if onCitus := storetest.Citus(t); (got.DatabaseNode != nil) != onCitus ||
		got.DatabaseNode != nil && !opsNodeAddr.MatchString(*got.DatabaseNode) {
		t.Fatalf("database_node = %v on Citus %v, want null on a single PostgreSQL, host:port on Citus", got.DatabaseNode, onCitus)
	}
	cmp := got
	cmp.Schema, cmp.CreatedAt, cmp.UpdatedAt, cmp.DatabaseNode = "", time.Time{}, time.Time{}, nil
	if !reflect.DeepEqual(cmp, want) {
		t.Fatalf("tenant = %+v, want %+v (body %s)", cmp, want, raw)
	}
	return got
}

// opsDefaultTenant is the tenant that POST /ops/v1/tenants {"slug": slug} makes.
func opsDefaultTenant(slug string) opsTenant {
	return opsTenant{Slug: slug, Name: slug, Timezone: "UTC", Status: "active", APIEnabled: true,
		RateLimitPerMinute: 300, Domains: []string{}}
}

// opsCreate onboards a tenant through the ops API and returns it and its key.
func (h *harness) opsCreate(body string) (opsTenant, string) {
	h.t.Helper()
	w := h.opsCall(http.MethodPost, "/ops/v1/tenants", body)
	if w.Code != http.StatusCreated {
		h.t.Fatalf("create tenant %s: status %d, body %s", body, w.Code, w.Body.String())
	}
	var resp struct {
		Tenant opsTenant `json:"tenant"`
		APIKey string    `json:"api_key"`
	}
	decode(h.t, w, &resp)
	return resp.Tenant, resp.APIKey
}

// opsKeys lists a tenant's keys, checking every record's fields.
func (h *harness) opsKeys(slug string) []opsKey {
	h.t.Helper()
	w := h.opsCall(http.MethodGet, "/ops/v1/tenants/"+slug+"/api_keys", "")
	if w.Code != http.StatusOK {
		h.t.Fatalf("list keys of %s: status %d, body %s", slug, w.Code, w.Body.String())
	}
	var raws []json.RawMessage
	decode(h.t, w, &raws)
	keys := make([]opsKey, len(raws))
	for i, raw := range raws {
		opsStrictDecode(h.t, raw, opsKeyFields, &keys[i])
		opsRecent(h.t, "created_at", keys[i].CreatedAt)
	}
	return keys
}

// opsSchemaExists reports whether the database holds the schema.
func (h *harness) opsSchemaExists(schema string) bool {
	h.t.Helper()
	var n int
	err := h.db.Pool().Get(&n, `SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1`, schema)
	if err != nil {
		h.t.Fatalf("query schemata: %v", err)
	}
	return n == 1
}

// opsPingOK asserts that key opens GET /papi/ping at host for the tenant slug.
func (h *harness) opsPingOK(t testing.TB, host, key, slug string) {
	t.Helper()
	assertResponse(t, h.papi(http.MethodGet, host, "/papi/ping", key, ""), http.StatusOK, `{"organisation":"`+slug+`"}`)
}

// opsPing asserts that GET /papi/ping at host with key gets status and body.
func (h *harness) opsPing(t testing.TB, host, key string, status int, body string) {
	t.Helper()
	assertResponse(t, h.papi(http.MethodGet, host, "/papi/ping", key, ""), status, body)
}

const (
	opsUnauthorized = `{"error":"unauthorized"}`
	opsUnknownOrg   = `{"error":"unknown organisation"}`
)

func TestOpsAuth(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme", "learn.acme.test")

	routes := []struct{ method, path, body string }{
		{http.MethodGet, "/metrics", ""},
		{http.MethodPost, "/ops/v1/tenants", `{"slug":"intruder"}`},
		{http.MethodGet, "/ops/v1/tenants", ""},
		{http.MethodGet, "/ops/v1/tenants/acme", ""},
		{http.MethodPatch, "/ops/v1/tenants/acme", `{"status":"suspended"}`},
		{http.MethodDelete, "/ops/v1/tenants/acme?confirm=acme", ""},
		{http.MethodPost, "/ops/v1/tenants/acme/domains", `{"domain":"evil.example.org"}`},
		{http.MethodDelete, "/ops/v1/tenants/acme/domains/learn.acme.test", ""},
		{http.MethodPost, "/ops/v1/tenants/acme/api_keys", ""},
		{http.MethodGet, "/ops/v1/tenants/acme/api_keys", ""},
		{http.MethodDelete, "/ops/v1/tenants/acme/api_keys/1", ""},
		{http.MethodGet, "/ops/v1/tls/ask?domain=acme.learngate.localhost", ""},
		{http.MethodGet, "/ops/v1/no-such-route", ""},
	}
	auths := []struct {
		name   string
		header string // "" sends no Authorization header
	}{
		{"no token", ""},
		{"wrong token", "Bearer wrong-token-0123456789"},
		{"token without Bearer", testOpsToken},
		{"token with a suffix", "Bearer " + testOpsToken + "x"},
		{"token prefix", "Bearer " + testOpsToken[:len(testOpsToken)-1]},
		{"empty bearer", "Bearer "},
		{"basic scheme", "Basic " + testOpsToken},
	}
	for _, a := range auths {
		t.Run(a.name, func(t *testing.T) {
			for _, r := range routes {
				headers := map[string]string{"Content-Type": "application/json"}
				if a.header != "" {
					headers["Authorization"] = a.header
				}
				w := do(h.ops, request{method: r.method, path: r.path, body: r.body, headers: headers})
				if w.Code != http.StatusUnauthorized || w.Body.String() != opsUnauthorized {
					t.Errorf("%s %s: status %d body %s, want 401 %s", r.method, r.path, w.Code, w.Body.String(), opsUnauthorized)
				}
			}
		})
	}

	t.Run("nothing changed", func(t *testing.T) {
		w := h.opsCall(http.MethodGet, "/ops/v1/tenants", "")
		var ts []json.RawMessage
		decode(t, w, &ts)
		if len(ts) != 1 {
			t.Fatalf("tenants = %s, want only acme", w.Body.String())
		}
		want := opsDefaultTenant("acme")
		want.Domains = []string{"learn.acme.test"}
		opsCheckTenant(t, ts[0], want)
		if keys := h.opsKeys("acme"); len(keys) != 1 || keys[0].RevokedAt != nil {
			t.Fatalf("keys = %+v, want the one active key", keys)
		}
		h.opsPingOK(t, "learn.acme.test", key, "acme")
	})

	t.Run("valid token is admitted on every route", func(t *testing.T) {
		// Read-only routes only, so the check above stays meaningful.
		for _, path := range []string{"/metrics", "/ops/v1/tenants", "/ops/v1/tenants/acme",
			"/ops/v1/tenants/acme/api_keys", "/ops/v1/tls/ask?domain=acme.learngate.localhost"} {
			if w := h.opsCall(http.MethodGet, path, ""); w.Code != http.StatusOK {
				t.Errorf("GET %s: status %d, body %s", path, w.Code, w.Body.String())
			}
		}
	})
}

func TestOpsCreateTenant(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})

	t.Run("defaults", func(t *testing.T) {
		w := h.opsCall(http.MethodPost, "/ops/v1/tenants", `{"slug":"acme"}`)
		if w.Code != http.StatusCreated {
			t.Fatalf("status = %d, body %s", w.Code, w.Body.String())
		}
		var resp map[string]json.RawMessage
		opsStrictDecode(t, w.Body.Bytes(), []string{"api_key", "tenant"}, &resp)
		got := opsCheckTenant(t, resp["tenant"], opsDefaultTenant("acme"))
		var key string
		if err := json.Unmarshal(resp["api_key"], &key); err != nil || !opsAPIKeyText.MatchString(key) {
			t.Fatalf("api_key = %s, want lg_ and 43 base64url characters", resp["api_key"])
		}
		if !h.opsSchemaExists(got.Schema) {
			t.Fatalf("schema %s was not created", got.Schema)
		}
		h.opsPingOK(t, "acme.learngate.localhost", key, "acme")
		h.opsPingOK(t, "ACME.learn.example.com.:443", key, "acme")

		w = h.opsCall(http.MethodGet, "/ops/v1/tenants/acme", "")
		shown := opsCheckTenant(t, w.Body.Bytes(), opsDefaultTenant("acme"))
		if shown.Schema != got.Schema || !shown.CreatedAt.Equal(got.CreatedAt) {
			t.Fatalf("shown tenant %+v differs from the created one %+v", shown, got)
		}
	})

	t.Run("every field", func(t *testing.T) {
		w := h.opsCall(http.MethodPost, "/ops/v1/tenants", `{"slug":"globex","name":"Globex Corp",
			"timezone":"Europe/Berlin","api_enabled":true,"rate_limit_per_minute":60,
			"custom_domains":["Learn.Globex.Test.","academy.globex.test"]}`)
		if w.Code != http.StatusCreated {
			t.Fatalf("status = %d, body %s", w.Code, w.Body.String())
		}
		var resp struct {
			Tenant json.RawMessage `json:"tenant"`
			APIKey string          `json:"api_key"`
		}
		decode(t, w, &resp)
		// The create response lists the domains as given (normalised); GET
		// lists them sorted. Only the set is compared here.
		var domains struct{ Domains []string }
		decode(t, w, &struct{ Tenant any }{&domains})
		slices.Sort(domains.Domains)
		if want := []string{"academy.globex.test", "learn.globex.test"}; !slices.Equal(domains.Domains, want) {
			t.Fatalf("domains = %v, want %v", domains.Domains, want)
		}
		var tn map[string]any
		if err := json.Unmarshal(resp.Tenant, &tn); err != nil {
			t.Fatal(err)
		}
		tn["domains"] = domains.Domains
		sorted, _ := json.Marshal(tn)
		opsCheckTenant(t, sorted, opsTenant{Slug: "globex", Name: "Globex Corp", Timezone: "Europe/Berlin",
			Status: "active", APIEnabled: true, RateLimitPerMinute: 60,
			Domains: []string{"academy.globex.test", "learn.globex.test"}})
		h.opsPingOK(t, "globex.learngate.localhost", resp.APIKey, "globex")
		h.opsPingOK(t, "learn.globex.test", resp.APIKey, "globex")
		h.opsPingOK(t, "academy.globex.test:8443", resp.APIKey, "globex")
		w = h.papi(http.MethodGet, "learn.globex.test", "/papi/ping", resp.APIKey, "")
		if got := w.Header().Get("X-RateLimit-Limit"); got != "60" {
			t.Fatalf("X-RateLimit-Limit = %q, want 60", got)
		}

		w = h.opsCall(http.MethodGet, "/ops/v1/tenants/globex", "")
		opsCheckTenant(t, w.Body.Bytes(), opsTenant{Slug: "globex", Name: "Globex Corp", Timezone: "Europe/Berlin",
			Status: "active", APIEnabled: true, RateLimitPerMinute: 60,
			Domains: []string{"academy.globex.test", "learn.globex.test"}})
	})

	t.Run("api disabled", func(t *testing.T) {
		tn, key := h.opsCreate(`{"slug":"initech","api_enabled":false}`)
		if tn.APIEnabled {
			t.Fatalf("api_enabled = true, want false")
		}
		h.opsPing(t, "initech.learngate.localhost", key, http.StatusUnauthorized, opsUnauthorized)
	})

	t.Run("keys belong to their tenant", func(t *testing.T) {
		_, key := h.opsCreate(`{"slug":"umbrella"}`)
		h.opsPing(t, "acme.learngate.localhost", key, http.StatusUnauthorized, opsUnauthorized)
	})
}

func TestOpsCreateTenantInvalid(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.createTenant("acme")
	before := h.opsCall(http.MethodGet, "/ops/v1/tenants", "").Body.String()

	tests := []struct {
		name string
		body string
		want string
	}{
		{"invalid slug", `{"slug":"Bad_Slug"}`,
			`{"error":"invalid slug \"Bad_Slug\": 3 to 63 lower-case letters, digits or hyphens, starting with a letter"}`},
		{"slug too short", `{"slug":"ab"}`,
			`{"error":"invalid slug \"ab\": 3 to 63 lower-case letters, digits or hyphens, starting with a letter"}`},
		{"slug ending in a hyphen", `{"slug":"acme-"}`,
			`{"error":"invalid slug \"acme-\": 3 to 63 lower-case letters, digits or hyphens, starting with a letter"}`},
		{"missing slug", `{"name":"Nameless"}`,
			`{"error":"invalid slug \"\": 3 to 63 lower-case letters, digits or hyphens, starting with a letter"}`},
		{"reserved slug", `{"slug":"admin"}`, `{"error":"slug \"admin\" is reserved"}`},
		{"bad timezone", `{"slug":"newco","timezone":"Mars/Olympus"}`, `{"error":"invalid timezone \"Mars/Olympus\""}`},
		{"local timezone", `{"slug":"newco","timezone":"Local"}`, `{"error":"invalid timezone \"Local\""}`},
		{"blank name", `{"slug":"newco","name":"   "}`, `{"error":"name must be 1 to 200 characters"}`},
		{"rate limit 0", `{"slug":"newco","rate_limit_per_minute":0}`,
			`{"error":"rate_limit_per_minute must be between 1 and 1000000"}`},
		{"rate limit too high", `{"slug":"newco","rate_limit_per_minute":1000001}`,
			`{"error":"rate_limit_per_minute must be between 1 and 1000000"}`},
		{"bad domain", `{"slug":"newco","custom_domains":["not a domain"]}`, `{"error":"invalid domain \"not a domain\""}`},
		{"domain without a dot", `{"slug":"newco","custom_domains":["localhost"]}`, `{"error":"invalid domain \"localhost\""}`},
		{"ip address domain", `{"slug":"newco","custom_domains":["192.0.2.1"]}`, `{"error":"invalid domain \"192.0.2.1\""}`},
		{"domain under a base domain", `{"slug":"newco","custom_domains":["x.learngate.localhost"]}`,
			`{"error":"domain \"x.learngate.localhost\" is under the service's base domain learngate.localhost"}`},
		{"domain under the second base domain", `{"slug":"newco","custom_domains":["Acme.Learn.Example.com"]}`,
			`{"error":"domain \"Acme.Learn.Example.com\" is under the service's base domain learn.example.com"}`},
		{"domain listed twice", `{"slug":"newco","custom_domains":["a.newco.test","A.newco.test."]}`,
			`{"error":"domain \"A.newco.test.\" is listed twice"}`},
		{"unknown field", `{"slug":"newco","colour":"red"}`, `{"error":"unknown field \"colour\""}`},
		{"malformed JSON", `{"slug":"newco"`, `{"error":"malformed JSON"}`},
		{"syntax error", `{slug:newco}`, `{"error":"malformed JSON"}`},
		{"empty body", ``, `{"error":"request body must be a JSON object"}`},
		{"blank body", " \n", `{"error":"request body must be a JSON object"}`},
		{"array body", `[]`, `{"error":"request body must be a JSON object"}`},
		{"two objects", `{"slug":"newco"} {"slug":"other"}`, `{"error":"request body must hold one JSON object"}`},
		{"wrong type", `{"slug":"newco","rate_limit_per_minute":"x"}`,
			`{"error":"invalid value for \"rate_limit_per_minute\": expected int64"}`},
		{"wrong type for a bool", `{"slug":"newco","api_enabled":"yes"}`,
			`{"error":"invalid value for \"api_enabled\": expected bool"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertResponse(t, h.opsCall(http.MethodPost, "/ops/v1/tenants", tt.body), http.StatusBadRequest, tt.want)
		})
	}
	if after := h.opsCall(http.MethodGet, "/ops/v1/tenants", "").Body.String(); after != before {
		t.Fatalf("tenant list changed by invalid requests:\n%s\nwas\n%s", after, before)
	}
	var n int
	if err := h.db.Pool().Get(&n, `SELECT count(*) FROM public.tenants`); err != nil || n != 1 {
		t.Fatalf("tenants rows = %d (%v), want 1", n, err)
	}
}

func TestOpsCreateTenantConflict(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme", "learn.acme.test")
	tenantsBefore := h.opsCall(http.MethodGet, "/ops/v1/tenants", "").Body.String()
	schemasBefore := h.opsTenantSchemas()

	tests := []struct {
		name string
		body string
		want string
	}{
		{"slug taken", `{"slug":"acme"}`, `{"error":"slug already taken"}`},
		{"slug taken with other domains", `{"slug":"acme","custom_domains":["fresh.acme.test"]}`, `{"error":"slug already taken"}`},
		{"domain taken", `{"slug":"globex","custom_domains":["learn.acme.test"]}`, `{"error":"domain already taken"}`},
		{"domain taken in another spelling", `{"slug":"globex","custom_domains":["new.globex.test","LEARN.acme.test."]}`,
			`{"error":"domain already taken"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertResponse(t, h.opsCall(http.MethodPost, "/ops/v1/tenants", tt.body), http.StatusConflict, tt.want)
		})
	}

	t.Run("nothing half-created", func(t *testing.T) {
		if after := h.opsCall(http.MethodGet, "/ops/v1/tenants", "").Body.String(); after != tenantsBefore {
			t.Fatalf("tenant list changed:\n%s\nwas\n%s", after, tenantsBefore)
		}
		if after := h.opsTenantSchemas(); !slices.Equal(after, schemasBefore) {
			t.Fatalf("tenant schemas = %v, were %v", after, schemasBefore)
		}
		for _, q := range []string{`SELECT count(*) FROM public.tenants`, `SELECT count(*) FROM public.api_keys`} {
			var n int
			if err := h.db.Pool().Get(&n, q); err != nil || n != 1 {
				t.Fatalf("%s = %d (%v), want 1", q, n, err)
			}
		}
		assertResponse(t, h.opsCall(http.MethodGet, "/ops/v1/tenants/globex", ""), http.StatusNotFound,
			`{"error":"tenant globex not found"}`)
		h.opsPing(t, "new.globex.test", key, http.StatusNotFound, opsUnknownOrg)
		h.opsPingOK(t, "learn.acme.test", key, "acme")
	})

	t.Run("the slug is free after the failure", func(t *testing.T) {
		tn, key := h.opsCreate(`{"slug":"globex","custom_domains":["new.globex.test"]}`)
		if !slices.Equal(tn.Domains, []string{"new.globex.test"}) {
			t.Fatalf("domains = %v", tn.Domains)
		}
		h.opsPingOK(t, "new.globex.test", key, "globex")
	})
}

// opsTenantSchemas lists the database's tenant schemas.
func (h *harness) opsTenantSchemas() []string {
	h.t.Helper()
	var s []string
	err := h.db.Pool().Select(&s, `SELECT schema_name FROM information_schema.schemata
		WHERE schema_name LIKE 'tenant\_%' ORDER BY schema_name`)
	if err != nil {
		h.t.Fatalf("list schemas: %v", err)
	}
	return s
}

func TestOpsListAndShowTenants(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})

	t.Run("empty", func(t *testing.T) {
		assertResponse(t, h.opsCall(http.MethodGet, "/ops/v1/tenants", ""), http.StatusOK, `[]`)
	})

	h.opsCreate(`{"slug":"zeta","name":"Zeta","custom_domains":["zeta.test"]}`)
	h.opsCreate(`{"slug":"alpha","timezone":"America/New_York","rate_limit_per_minute":10}`)
	h.opsCreate(`{"slug":"mid-co","api_enabled":false}`)

	alpha := opsDefaultTenant("alpha")
	alpha.Timezone, alpha.RateLimitPerMinute = "America/New_York", 10
	mid := opsDefaultTenant("mid-co")
	mid.APIEnabled = false
	zeta := opsDefaultTenant("zeta")
	zeta.Name, zeta.Domains = "Zeta", []string{"zeta.test"}

	t.Run("list sorted by slug", func(t *testing.T) {
		w := h.opsCall(http.MethodGet, "/ops/v1/tenants", "")
		if w.Code != http.StatusOK {
			t.Fatalf("status = %d, body %s", w.Code, w.Body.String())
		}
		var raws []json.RawMessage
		decode(t, w, &raws)
		want := []opsTenant{alpha, mid, zeta}
		if len(raws) != len(want) {
			t.Fatalf("got %d tenants, want %d: %s", len(raws), len(want), w.Body.String())
		}
		schemas := map[string]bool{}
		for i := range want {
			got := opsCheckTenant(t, raws[i], want[i])
			schemas[got.Schema] = true
		}
		if len(schemas) != 3 {
			t.Fatalf("schemas are not distinct: %v", schemas)
		}
	})

	t.Run("show", func(t *testing.T) {
		for _, want := range []opsTenant{alpha, mid, zeta} {
			w := h.opsCall(http.MethodGet, "/ops/v1/tenants/"+want.Slug, "")
			if w.Code != http.StatusOK {
				t.Fatalf("show %s: status %d, body %s", want.Slug, w.Code, w.Body.String())
			}
			opsCheckTenant(t, w.Body.Bytes(), want)
		}
	})

	t.Run("show unknown", func(t *testing.T) {
		assertResponse(t, h.opsCall(http.MethodGet, "/ops/v1/tenants/nope", ""), http.StatusNotFound,
			`{"error":"tenant nope not found"}`)
	})
}

func TestOpsUpdateTenant(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	created, key := h.opsCreate(`{"slug":"acme","custom_domains":["learn.acme.test"]}`)
	want := opsDefaultTenant("acme")
	want.Domains = []string{"learn.acme.test"}

	changes := []struct {
		name   string
		body   string
		change func(*opsTenant)
	}{
		{"name", `{"name":"Acme Learning"}`, func(t *opsTenant) { t.Name = "Acme Learning" }},
		{"timezone", `{"timezone":"Asia/Tokyo"}`, func(t *opsTenant) { t.Timezone = "Asia/Tokyo" }},
		{"api_enabled", `{"api_enabled":false}`, func(t *opsTenant) { t.APIEnabled = false }},
		{"api_enabled back", `{"api_enabled":true}`, func(t *opsTenant) { t.APIEnabled = true }},
		{"rate_limit_per_minute", `{"rate_limit_per_minute":42}`, func(t *opsTenant) { t.RateLimitPerMinute = 42 }},
		{"status suspended", `{"status":"suspended"}`, func(t *opsTenant) { t.Status = "suspended" }},
		{"status active", `{"status":"active"}`, func(t *opsTenant) { t.Status = "active" }},
		{"several at once", `{"name":"Acme","timezone":"UTC","rate_limit_per_minute":300}`,
			func(t *opsTenant) { t.Name, t.Timezone, t.RateLimitPerMinute = "Acme", "UTC", 300 }},
		{"empty patch", `{}`, func(*opsTenant) {}},
	}
	for _, tt := range changes {
		t.Run(tt.name, func(t *testing.T) {
			tt.change(&want)
			w := h.opsCall(http.MethodPatch, "/ops/v1/tenants/acme", tt.body)
			if w.Code != http.StatusOK {
				t.Fatalf("status = %d, body %s", w.Code, w.Body.String())
			}
			got := opsCheckTenant(t, w.Body.Bytes(), want)
			if got.Schema != created.Schema || !got.CreatedAt.Equal(created.CreatedAt) {
				t.Fatalf("schema/created_at changed: %+v, created %+v", got, created)
			}
			opsCheckTenant(t, h.opsCall(http.MethodGet, "/ops/v1/tenants/acme", "").Body.Bytes(), want)
		})
	}

	invalid := []struct {
		name string
		body string
		want string
	}{
		{"invalid status", `{"status":"deleted"}`, `{"error":"status must be active or suspended"}`},
		{"provisioning status", `{"status":"provisioning"}`, `{"error":"status must be active or suspended"}`},
		{"invalid timezone", `{"timezone":"Nowhere/City"}`, `{"error":"invalid timezone \"Nowhere/City\""}`},
		{"empty timezone", `{"timezone":""}`, `{"error":"invalid timezone \"\""}`},
		{"rate limit 0", `{"rate_limit_per_minute":0}`, `{"error":"rate_limit_per_minute must be between 1 and 1000000"}`},
		{"negative rate limit", `{"rate_limit_per_minute":-5}`, `{"error":"rate_limit_per_minute must be between 1 and 1000000"}`},
		{"empty name", `{"name":""}`, `{"error":"name must be 1 to 200 characters"}`},
		{"null api_enabled type", `{"api_enabled":"no"}`, `{"error":"invalid value for \"api_enabled\": expected bool"}`},
		{"slug is not patchable", `{"slug":"other"}`, `{"error":"unknown field \"slug\""}`},
		{"empty body", ``, `{"error":"request body must be a JSON object"}`},
	}
	for _, tt := range invalid {
		t.Run(tt.name, func(t *testing.T) {
			assertResponse(t, h.opsCall(http.MethodPatch, "/ops/v1/tenants/acme", tt.body), http.StatusBadRequest, tt.want)
			opsCheckTenant(t, h.opsCall(http.MethodGet, "/ops/v1/tenants/acme", "").Body.Bytes(), want)
		})
	}

	t.Run("unknown slug", func(t *testing.T) {
		assertResponse(t, h.opsCall(http.MethodPatch, "/ops/v1/tenants/nope", `{"name":"Nope"}`), http.StatusNotFound,
			`{"error":"tenant nope not found"}`)
	})

	t.Run("api disabled refuses the key", func(t *testing.T) {
		h.opsPingOK(t, "acme.learngate.localhost", key, "acme")
		opsAssertStatus(t, h.opsCall(http.MethodPatch, "/ops/v1/tenants/acme", `{"api_enabled":false}`), http.StatusOK)
		h.opsPing(t, "acme.learngate.localhost", key, http.StatusUnauthorized, opsUnauthorized)
		h.opsPing(t, "learn.acme.test", key, http.StatusUnauthorized, opsUnauthorized)
		opsAssertStatus(t, h.opsCall(http.MethodPatch, "/ops/v1/tenants/acme", `{"api_enabled":true}`), http.StatusOK)
		h.opsPingOK(t, "acme.learngate.localhost", key, "acme")
	})

	t.Run("suspension refuses the key until reactivated", func(t *testing.T) {
		opsAssertStatus(t, h.opsCall(http.MethodPatch, "/ops/v1/tenants/acme", `{"status":"suspended"}`), http.StatusOK)
		h.opsPing(t, "acme.learngate.localhost", key, http.StatusUnauthorized, opsUnauthorized)
		h.opsPing(t, "learn.acme.test", key, http.StatusUnauthorized, opsUnauthorized)
		opsAssertStatus(t, h.opsCall(http.MethodPatch, "/ops/v1/tenants/acme", `{"status":"active"}`), http.StatusOK)
		h.opsPingOK(t, "acme.learngate.localhost", key, "acme")
		h.opsPingOK(t, "learn.acme.test", key, "acme")
	})

	t.Run("rate limit takes effect at once", func(t *testing.T) {
		for _, limit := range []string{"7", "1000"} {
			opsAssertStatus(t, h.opsCall(http.MethodPatch, "/ops/v1/tenants/acme", `{"rate_limit_per_minute":`+limit+`}`), http.StatusOK)
			w := h.papi(http.MethodGet, "acme.learngate.localhost", "/papi/ping", key, "")
			if w.Code != http.StatusOK || w.Header().Get("X-RateLimit-Limit") != limit {
				t.Fatalf("after limit %s: status %d, X-RateLimit-Limit %q", limit, w.Code, w.Header().Get("X-RateLimit-Limit"))
			}
		}
	})
}

// opsAssertStatus checks only a response's status.
func opsAssertStatus(t testing.TB, w *httptest.ResponseRecorder, status int) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status = %d, want %d; body %s", w.Code, status, w.Body.String())
	}
}

func TestOpsDomains(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	otherKey := h.createTenant("globex")

	t.Run("add", func(t *testing.T) {
		h.opsPing(t, "learn.acme.test", key, http.StatusNotFound, opsUnknownOrg)
		w := h.opsCall(http.MethodPost, "/ops/v1/tenants/acme/domains", `{"domain":"Learn.Acme.Test."}`)
		if w.Code != http.StatusCreated {
			t.Fatalf("status = %d, body %s", w.Code, w.Body.String())
		}
		want := opsDefaultTenant("acme")
		want.Domains = []string{"learn.acme.test"}
		opsCheckTenant(t, w.Body.Bytes(), want)
		h.opsPingOK(t, "learn.acme.test", key, "acme")
		h.opsPingOK(t, "LEARN.acme.test.:443", key, "acme")
		h.opsPing(t, "learn.acme.test", otherKey, http.StatusUnauthorized, opsUnauthorized)
	})

	t.Run("add a second", func(t *testing.T) {
		w := h.opsCall(http.MethodPost, "/ops/v1/tenants/acme/domains", `{"domain":"academy.acme.test"}`)
		want := opsDefaultTenant("acme")
		want.Domains = []string{"academy.acme.test", "learn.acme.test"}
		opsAssertStatus(t, w, http.StatusCreated)
		opsCheckTenant(t, w.Body.Bytes(), want)
	})

	rejected := []struct {
		name   string
		path   string
		body   string
		status int
		want   string
	}{
		{"taken by another tenant", "/ops/v1/tenants/globex/domains", `{"domain":"learn.acme.test"}`,
			http.StatusConflict, `{"error":"domain already taken"}`},
		{"taken in another spelling", "/ops/v1/tenants/globex/domains", `{"domain":"LEARN.ACME.TEST."}`,
			http.StatusConflict, `{"error":"domain already taken"}`},
		{"already the tenant's own", "/ops/v1/tenants/acme/domains", `{"domain":"learn.acme.test"}`,
			http.StatusConflict, `{"error":"domain already taken"}`},
		{"invalid domain", "/ops/v1/tenants/globex/domains", `{"domain":"bad domain"}`,
			http.StatusBadRequest, `{"error":"invalid domain \"bad domain\""}`},
		{"under a base domain", "/ops/v1/tenants/globex/domains", `{"domain":"acme.learngate.localhost"}`,
			http.StatusBadRequest, `{"error":"domain \"acme.learngate.localhost\" is under the service's base domain learngate.localhost"}`},
		{"a base domain itself", "/ops/v1/tenants/globex/domains", `{"domain":"learn.example.com"}`,
			http.StatusBadRequest, `{"error":"domain \"learn.example.com\" is under the service's base domain learn.example.com"}`},
		{"missing domain", "/ops/v1/tenants/globex/domains", `{}`,
			http.StatusBadRequest, `{"error":"invalid domain \"\""}`},
		{"unknown field", "/ops/v1/tenants/globex/domains", `{"domains":["x.test"]}`,
			http.StatusBadRequest, `{"error":"unknown field \"domains\""}`},
		{"unknown tenant", "/ops/v1/tenants/nope/domains", `{"domain":"nope.test"}`,
			http.StatusNotFound, `{"error":"tenant nope not found"}`},
	}
	for _, tt := range rejected {
		t.Run(tt.name, func(t *testing.T) {
			assertResponse(t, h.opsCall(http.MethodPost, tt.path, tt.body), tt.status, tt.want)
		})
	}
	t.Run("rejections changed nothing", func(t *testing.T) {
		opsCheckTenant(t, h.opsCall(http.MethodGet, "/ops/v1/tenants/globex", "").Body.Bytes(), opsDefaultTenant("globex"))
		h.opsPingOK(t, "learn.acme.test", key, "acme")
	})

	t.Run("remove", func(t *testing.T) {
		w := h.opsCall(http.MethodDelete, "/ops/v1/tenants/acme/domains/learn.acme.test", "")
		opsAssertStatus(t, w, http.StatusNoContent)
		if w.Body.Len() != 0 {
			t.Fatalf("204 with body %q", w.Body.String())
		}
		h.opsPing(t, "learn.acme.test", key, http.StatusNotFound, opsUnknownOrg)
		h.opsPingOK(t, "academy.acme.test", key, "acme")
		want := opsDefaultTenant("acme")
		want.Domains = []string{"academy.acme.test"}
		opsCheckTenant(t, h.opsCall(http.MethodGet, "/ops/v1/tenants/acme", "").Body.Bytes(), want)
	})

	removeRejected := []struct {
		name string
		path string
		want string
	}{
		{"already removed", "/ops/v1/tenants/acme/domains/learn.acme.test", `{"error":"domain learn.acme.test not found"}`},
		{"another tenant's domain", "/ops/v1/tenants/globex/domains/academy.acme.test", `{"error":"domain academy.acme.test not found"}`},
		{"never added", "/ops/v1/tenants/acme/domains/other.test", `{"error":"domain other.test not found"}`},
		{"unknown tenant", "/ops/v1/tenants/nope/domains/academy.acme.test", `{"error":"tenant nope not found"}`},
	}
	for _, tt := range removeRejected {
		t.Run("remove "+tt.name, func(t *testing.T) {
			assertResponse(t, h.opsCall(http.MethodDelete, tt.path, ""), http.StatusNotFound, tt.want)
		})
	}
	t.Run("another tenant's domain stays", func(t *testing.T) {
		h.opsPingOK(t, "academy.acme.test", key, "acme")
	})

	t.Run("a removed domain can be added elsewhere", func(t *testing.T) {
		w := h.opsCall(http.MethodPost, "/ops/v1/tenants/globex/domains", `{"domain":"learn.acme.test"}`)
		opsAssertStatus(t, w, http.StatusCreated)
		h.opsPingOK(t, "learn.acme.test", otherKey, "globex")
		h.opsPing(t, "learn.acme.test", key, http.StatusUnauthorized, opsUnauthorized)
	})
}

func TestOpsAPIKeys(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	oldKey := h.createTenant("acme")
	otherKey := h.createTenant("globex")

	var first opsKey
	t.Run("the first key is listed", func(t *testing.T) {
		keys := h.opsKeys("acme")
		if len(keys) != 1 || keys[0].Prefix != oldKey[:11] || keys[0].LastUsedAt != nil || keys[0].RevokedAt != nil {
			t.Fatalf("keys = %+v, want one unused key with prefix %s", keys, oldKey[:11])
		}
		first = keys[0]
	})

	var created opsKey
	var newKey string
	t.Run("create", func(t *testing.T) {
		w := h.opsCall(http.MethodPost, "/ops/v1/tenants/acme/api_keys", "")
		opsAssertStatus(t, w, http.StatusCreated)
		var resp struct {
			opsKey
			APIKey string `json:"api_key"`
		}
		opsStrictDecode(t, w.Body.Bytes(), append([]string{"api_key"}, opsKeyFields...), &resp)
		created, newKey = resp.opsKey, resp.APIKey
		if !opsAPIKeyText.MatchString(newKey) || newKey == oldKey {
			t.Fatalf("api_key = %q", newKey)
		}
		if created.Prefix != newKey[:11] || !strings.HasPrefix(newKey, created.Prefix) {
			t.Fatalf("prefix = %q, key %q", created.Prefix, newKey)
		}
		if created.ID <= first.ID || created.LastUsedAt != nil || created.RevokedAt != nil {
			t.Fatalf("created key = %+v, first %+v", created, first)
		}
		opsRecent(t, "created_at", created.CreatedAt)
		if !strings.Contains(w.Body.String(), `"last_used_at":null`) || !strings.Contains(w.Body.String(), `"revoked_at":null`) {
			t.Fatalf("body %s lacks null last_used_at/revoked_at", w.Body.String())
		}
	})

	t.Run("both keys work", func(t *testing.T) {
		h.opsPingOK(t, "acme.learngate.localhost", oldKey, "acme")
		h.opsPingOK(t, "acme.learngate.localhost", newKey, "acme")
		h.opsPing(t, "globex.learngate.localhost", newKey, http.StatusUnauthorized, opsUnauthorized)
	})

	t.Run("list", func(t *testing.T) {
		h.registry.FlushUsage(context.Background())
		w := h.opsCall(http.MethodGet, "/ops/v1/tenants/acme/api_keys", "")
		for _, secret := range []string{oldKey, newKey, oldKey[11:20], "hash"} {
			if strings.Contains(w.Body.String(), secret) {
				t.Fatalf("key list %s shows %q", w.Body.String(), secret)
			}
		}
		keys := h.opsKeys("acme")
		if len(keys) != 2 {
			t.Fatalf("keys = %+v, want 2", keys)
		}
		for i, want := range []opsKey{first, created} {
			got := keys[i]
			if got.ID != want.ID || got.Prefix != want.Prefix || !got.CreatedAt.Equal(want.CreatedAt) || got.RevokedAt != nil {
				t.Fatalf("key %d = %+v, want %+v", i, got, want)
			}
			if got.LastUsedAt == nil {
				t.Fatalf("key %d: last_used_at is null after use", i)
			}
			opsRecent(t, "last_used_at", *got.LastUsedAt)
		}
	})

	t.Run("revoke", func(t *testing.T) {
		w := h.opsCall(http.MethodDelete, "/ops/v1/tenants/acme/api_keys/"+opsID(first.ID), "")
		opsAssertStatus(t, w, http.StatusNoContent)
		if w.Body.Len() != 0 {
			t.Fatalf("204 with body %q", w.Body.String())
		}
		h.opsPing(t, "acme.learngate.localhost", oldKey, http.StatusUnauthorized, opsUnauthorized)
		h.opsPingOK(t, "acme.learngate.localhost", newKey, "acme")
		keys := h.opsKeys("acme")
		if len(keys) != 2 || keys[0].RevokedAt == nil || keys[1].RevokedAt != nil {
			t.Fatalf("keys = %+v, want the first revoked", keys)
		}
		opsRecent(t, "revoked_at", *keys[0].RevokedAt)
	})

	otherKeys := h.opsKeys("globex")
	rejected := []struct {
		name   string
		method string
		path   string
		want   string
	}{
		{"revoke again", http.MethodDelete, "/ops/v1/tenants/acme/api_keys/" + opsID(first.ID),
			`{"error":"api key ` + opsID(first.ID) + ` not found"}`},
		{"non-numeric id", http.MethodDelete, "/ops/v1/tenants/acme/api_keys/abc", `{"error":"api key abc not found"}`},
		{"zero id", http.MethodDelete, "/ops/v1/tenants/acme/api_keys/0", `{"error":"api key 0 not found"}`},
		{"unknown id", http.MethodDelete, "/ops/v1/tenants/acme/api_keys/999999", `{"error":"api key 999999 not found"}`},
		{"another tenant's key", http.MethodDelete, "/ops/v1/tenants/acme/api_keys/" + opsID(otherKeys[0].ID),
			`{"error":"api key ` + opsID(otherKeys[0].ID) + ` not found"}`},
		{"revoke for unknown tenant", http.MethodDelete, "/ops/v1/tenants/nope/api_keys/" + opsID(created.ID),
			`{"error":"tenant nope not found"}`},
		{"create for unknown tenant", http.MethodPost, "/ops/v1/tenants/nope/api_keys", `{"error":"tenant nope not found"}`},
		{"list for unknown tenant", http.MethodGet, "/ops/v1/tenants/nope/api_keys", `{"error":"tenant nope not found"}`},
	}
	for _, tt := range rejected {
		t.Run(tt.name, func(t *testing.T) {
			assertResponse(t, h.opsCall(tt.method, tt.path, ""), http.StatusNotFound, tt.want)
		})
	}
	t.Run("rejections revoked nothing", func(t *testing.T) {
		h.opsPingOK(t, "globex.learngate.localhost", otherKey, "globex")
		h.opsPingOK(t, "acme.learngate.localhost", newKey, "acme")
	})
}

// opsID formats an id for a path.
func opsID(n int64) string { return strconv.FormatInt(n, 10) }

func TestOpsDeleteTenant(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme", "learn.acme.test")
	otherKey := h.createTenant("globex")
	acme, _ := h.opsShow("acme")

	rejected := []struct {
		name   string
		path   string
		status int
		want   string
	}{
		{"without confirm", "/ops/v1/tenants/acme", http.StatusBadRequest,
			`{"error":"confirm must repeat the slug to delete tenant acme"}`},
		{"empty confirm", "/ops/v1/tenants/acme?confirm=", http.StatusBadRequest,
			`{"error":"confirm must repeat the slug to delete tenant acme"}`},
		{"wrong confirm", "/ops/v1/tenants/acme?confirm=globex", http.StatusBadRequest,
			`{"error":"confirm must repeat the slug to delete tenant acme"}`},
		{"unknown tenant", "/ops/v1/tenants/nope?confirm=nope", http.StatusNotFound, `{"error":"tenant nope not found"}`},
	}
	for _, tt := range rejected {
		t.Run(tt.name, func(t *testing.T) {
			assertResponse(t, h.opsCall(http.MethodDelete, tt.path, ""), tt.status, tt.want)
			h.opsPingOK(t, "acme.learngate.localhost", key, "acme")
		})
	}

	t.Run("confirmed", func(t *testing.T) {
		if !h.opsSchemaExists(acme.Schema) {
			t.Fatalf("schema %s missing before the delete", acme.Schema)
		}
		w := h.opsCall(http.MethodDelete, "/ops/v1/tenants/acme?confirm=acme", "")
		opsAssertStatus(t, w, http.StatusNoContent)
		if w.Body.Len() != 0 {
			t.Fatalf("204 with body %q", w.Body.String())
		}
		assertResponse(t, h.opsCall(http.MethodGet, "/ops/v1/tenants/acme", ""), http.StatusNotFound, `{"error":"tenant acme not found"}`)
		h.opsPing(t, "acme.learngate.localhost", key, http.StatusNotFound, opsUnknownOrg)
		h.opsPing(t, "learn.acme.test", key, http.StatusNotFound, opsUnknownOrg)
		if h.opsSchemaExists(acme.Schema) {
			t.Fatalf("schema %s still exists", acme.Schema)
		}
		var domains, keys int
		if err := h.db.Pool().Get(&domains, `SELECT count(*) FROM public.tenant_domains`); err != nil || domains != 0 {
			t.Fatalf("domains left: %d (%v)", domains, err)
		}
		if err := h.db.Pool().Get(&keys, `SELECT count(*) FROM public.api_keys WHERE prefix = $1`, key[:11]); err != nil || keys != 0 {
			t.Fatalf("keys left: %d (%v)", keys, err)
		}
		var slugs []string
		opsSlugs(t, h.opsCall(http.MethodGet, "/ops/v1/tenants", ""), &slugs)
		if !slices.Equal(slugs, []string{"globex"}) {
			t.Fatalf("tenants = %v, want [globex]", slugs)
		}
	})

	t.Run("others untouched", func(t *testing.T) {
		h.opsPingOK(t, "globex.learngate.localhost", otherKey, "globex")
	})

	t.Run("delete again", func(t *testing.T) {
		assertResponse(t, h.opsCall(http.MethodDelete, "/ops/v1/tenants/acme?confirm=acme", ""), http.StatusNotFound,
			`{"error":"tenant acme not found"}`)
	})

	t.Run("slug and domain are free again", func(t *testing.T) {
		tn, newKey := h.opsCreate(`{"slug":"acme","custom_domains":["learn.acme.test"]}`)
		if tn.Schema == acme.Schema {
			t.Fatalf("the new tenant reuses schema %s", tn.Schema)
		}
		h.opsPingOK(t, "learn.acme.test", newKey, "acme")
		h.opsPing(t, "learn.acme.test", key, http.StatusUnauthorized, opsUnauthorized)
	})
}

// opsShow reads a tenant through the ops API.
func (h *harness) opsShow(slug string) (opsTenant, int) {
	h.t.Helper()
	w := h.opsCall(http.MethodGet, "/ops/v1/tenants/"+slug, "")
	var tn opsTenant
	if w.Code == http.StatusOK {
		decode(h.t, w, &tn)
	}
	return tn, w.Code
}

// opsSlugs reads the slugs of a tenant list response.
func opsSlugs(t testing.TB, w *httptest.ResponseRecorder, slugs *[]string) {
	t.Helper()
	var ts []opsTenant
	decode(t, w, &ts)
	for _, tn := range ts {
		*slugs = append(*slugs, tn.Slug)
	}
}

func TestOpsTLSAsk(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.createTenant("acme", "learn.acme.test")
	h.createTenant("sleepy", "learn.sleepy.test")
	opsAssertStatus(t, h.opsCall(http.MethodPatch, "/ops/v1/tenants/sleepy", `{"status":"suspended"}`), http.StatusOK)
	h.createTenant("quiet")
	opsAssertStatus(t, h.opsCall(http.MethodPatch, "/ops/v1/tenants/quiet", `{"api_enabled":false}`), http.StatusOK)

	const notFound = `{"error":"not found"}`
	tests := []struct {
		name   string
		domain string
		status int
		want   string
	}{
		{"custom domain", "learn.acme.test", http.StatusOK, `{"domain":"learn.acme.test"}`},
		{"custom domain in another spelling", "Learn.Acme.Test.", http.StatusOK, `{"domain":"learn.acme.test"}`},
		{"slug under the first base domain", "acme.learngate.localhost", http.StatusOK, `{"domain":"acme.learngate.localhost"}`},
		{"slug under the second base domain", "acme.learn.example.com", http.StatusOK, `{"domain":"acme.learn.example.com"}`},
		{"active tenant with the API disabled", "quiet.learngate.localhost", http.StatusOK, `{"domain":"quiet.learngate.localhost"}`},
		{"unknown custom domain", "unknown.example.org", http.StatusNotFound, notFound},
		{"unknown slug", "nope.learngate.localhost", http.StatusNotFound, notFound},
		{"reserved slug", "admin.learngate.localhost", http.StatusNotFound, notFound},
		{"base domain itself", "learngate.localhost", http.StatusNotFound, notFound},
		{"nested under a slug", "x.acme.learngate.localhost", http.StatusNotFound, notFound},
		{"suspended tenant's custom domain", "learn.sleepy.test", http.StatusNotFound, notFound},
		{"suspended tenant's slug domain", "sleepy.learngate.localhost", http.StatusNotFound, notFound},
		{"empty", "", http.StatusNotFound, notFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertResponse(t, h.opsCall(http.MethodGet, "/ops/v1/tls/ask?domain="+tt.domain, ""), tt.status, tt.want)
		})
	}

	t.Run("reactivated tenant", func(t *testing.T) {
		opsAssertStatus(t, h.opsCall(http.MethodPatch, "/ops/v1/tenants/sleepy", `{"status":"active"}`), http.StatusOK)
		assertResponse(t, h.opsCall(http.MethodGet, "/ops/v1/tls/ask?domain=learn.sleepy.test", ""), http.StatusOK,
			`{"domain":"learn.sleepy.test"}`)
	})
}

func TestOpsMetrics(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	opsAssertStatus(t, h.opsCall(http.MethodPatch, "/ops/v1/tenants/acme", `{"rate_limit_per_minute":1}`), http.StatusOK)
	h.opsPingOK(t, "acme.learngate.localhost", key, "acme")
	opsAssertStatus(t, h.papi(http.MethodGet, "acme.learngate.localhost", "/papi/ping", key, ""), http.StatusTooManyRequests)
	h.opsPing(t, "nope.learngate.localhost", key, http.StatusNotFound, opsUnknownOrg)

	w := h.opsCall(http.MethodGet, "/metrics", "")
	opsAssertStatus(t, w, http.StatusOK)
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("Content-Type = %q, want text/plain", ct)
	}
	body := w.Body.String()
	for _, line := range []string{
		`learngate_http_requests_total{listener="public",route="/papi/ping",status="200",tenant="acme"} 1`,
		`learngate_http_requests_total{listener="public",route="/papi/ping",status="429",tenant="acme"} 1`,
		`learngate_http_requests_total{listener="public",route="/papi/ping",status="404",tenant=""} 1`,
		`learngate_http_requests_total{listener="ops",route="/ops/v1/tenants/:slug",status="200",tenant=""} 1`,
		`learngate_ratelimit_rejections_total 1`,
		`learngate_ratelimit_fail_open_total 0`,
		`learngate_auth_failures_total 0`,
	} {
		if !strings.Contains(body, "\n"+line+"\n") {
			t.Errorf("metrics lack the line %q", line)
		}
	}
	for _, name := range []string{"learngate_http_request_duration_seconds_bucket", "go_goroutines", "process_"} {
		if !strings.Contains(body, name) {
			t.Errorf("metrics lack %s", name)
		}
	}
}
