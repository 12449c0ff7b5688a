package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate/tenant"
)

// usersStart is when every users test begins: 2025-06-01T09:30:00Z.
var usersStart = time.Date(2025, 6, 1, 9, 30, 0, 0, time.UTC)

// usersEnv is a node whose clock stands still, with tenant acme (time zone
// Pacific/Auckland) that the tests fill and tenant other that must never
// see acme's users.
type usersEnv struct {
	h     *harness
	clock *manualClock
	acme  catalogTenant
	other catalogTenant
}

func newUsersEnv(t *testing.T) *usersEnv {
	t.Helper()
	clock := manualClockAt(usersStart)
	h := newHarness(t, harnessOptions{Now: clock.Now})
	e := &usersEnv{h: h, clock: clock}
	e.acme = e.tenant(t, "acme", "Pacific/Auckland")
	e.other = e.tenant(t, "other", "UTC")
	return e
}

// tenant onboards slug with time zone tz and a rate limit no test reaches.
func (e *usersEnv) tenant(t *testing.T, slug, tz string) catalogTenant {
	t.Helper()
	limit := int64(tenant.MaxRateLimit)
	_, key, err := e.h.registry.Create(context.Background(), tenant.NewTenantInput{Slug: slug, Timezone: tz, RateLimitPerMinute: &limit})
	if err != nil {
		t.Fatalf("create tenant %s: %v", slug, err)
	}
	return catalogTenant{h: e.h, host: slug + ".learngate.localhost", key: key}
}

// seedCatalog gives acme roles, groups, goals and one custom field of each type.
func (e *usersEnv) seedCatalog(t *testing.T) {
	t.Helper()
	for path, names := range map[string][]string{
		"/papi/roles":  {"Manager", "Trainer", "Auditor"},
		"/papi/groups": {"sales", "Berlin", "Alpha"},
		"/papi/goals":  {"Grow", "Learn Go"},
	} {
		for _, name := range names {
			e.acme.call(t, http.MethodPost, path, fmt.Sprintf(`{"name":%q}`, name), http.StatusCreated, "")
		}
	}
	for _, f := range []string{
		`{"name":"City","field_type":"string"}`,
		`{"name":"Age","field_type":"number"}`,
		`{"name":"Start","field_type":"date"}`,
		`{"name":"Skills","field_type":"list","options":["Go","SQL","Docker"]}`,
	} {
		e.acme.call(t, http.MethodPost, "/papi/custom_fields", f, http.StatusCreated, "")
	}
}

// assertIsolated checks that tenant other sees no users and not userName.
func (e *usersEnv) assertIsolated(t *testing.T, userName string) {
	t.Helper()
	e.other.call(t, http.MethodGet, "/papi/users", "", http.StatusOK, catalogEmptyList)
	e.other.call(t, http.MethodGet, "/papi/users/"+userName, "", http.StatusNotFound, `"not found"`)
}

// userTableCounts returns the row counts of acme's users, user_roles,
// user_groups, user_goals and user_custom_values.
func (e *usersEnv) userTableCounts(t *testing.T) [5]int {
	t.Helper()
	n := e.acmeRowCounts(t, "users", "user_roles", "user_groups", "user_goals", "user_custom_values")
	return [5]int(n)
}

// acmeRowCounts returns how many rows each of tables holds in acme's schema.
func (e *usersEnv) acmeRowCounts(t *testing.T, tables ...string) []int {
	t.Helper()
	ctx := context.Background()
	tn, err := e.h.registry.Show(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	tdb, err := e.h.db.Tenant(tn.Schema)
	if err != nil {
		t.Fatal(err)
	}
	n := make([]int, len(tables))
	err = tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		for i, table := range tables {
			if err := tx.GetContext(ctx, &n[i], `SELECT count(*) FROM `+table); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("count rows of %v: %v", tables, err)
	}
	return n
}

// assertUserCounts checks acme's row counts (see userTableCounts).
func (e *usersEnv) assertUserCounts(t *testing.T, want [5]int) {
	t.Helper()
	if got := e.userTableCounts(t); got != want {
		t.Fatalf("rows in users, user_roles, user_groups, user_goals, user_custom_values = %v, want %v", got, want)
	}
}

// kv is a JSON object whose fields are written in the order given.
type kv []struct {
	k string
	v any
}

// userFieldOrder is the user object's fixed fields in the spec's order.
var userFieldOrder = []string{
	"user_name", "first_name", "last_name", "email", "manager_email", "manager_2_email", "manager_3_email",
	"manager_4_email", "manager_5_email", "mentor_email", "lms_learner_id", "lms_reference", "org_admin", "creator",
	"team_leader", "created_at", "updated_at", "current_sign_in_at", "admin_type", "org_admin_access",
	"deactivate_scheduled_date", "reactivate_scheduled_date", "language", "created_by", "timezone",
	"user_notifications_enabled", "team_leader_report_frequency", "learner_report_frequency",
	"assessor_report_frequency", "default_landing_page", "login", "type", "active", "platform_champion",
	"role_1", "role_2", "role_3", "role_4", "role_5", "groups", "goals",
}

// seededCustom are the X- fields of a seeded tenant, in field order.
var seededCustom = []string{"X-City", "X-Age", "X-Start", "X-Skills"}

// ts formats a test time as the API writes timestamps.
func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05+00:00") }

// wantUser is the exact JSON of a user of acme: the defaults of a user
// created at usersStart, changed by fields, then the custom fields named in
// custom (null unless fields set them).
func wantUser(custom []string, fields map[string]any) string {
	values := map[string]any{
		"manager_email": nil, "manager_2_email": nil, "manager_3_email": nil, "manager_4_email": nil,
		"manager_5_email": nil, "mentor_email": "", "lms_learner_id": "", "lms_reference": "", "org_admin": false,
		"creator": false, "team_leader": false, "created_at": ts(usersStart), "updated_at": ts(usersStart),
		"current_sign_in_at": nil, "admin_type": nil, "org_admin_access": "none",
		"deactivate_scheduled_date": nil, "reactivate_scheduled_date": nil, "language": "en", "created_by": "api",
		"timezone": "Pacific/Auckland", "user_notifications_enabled": true, "team_leader_report_frequency": nil,
		"learner_report_frequency": nil, "assessor_report_frequency": nil, "default_landing_page": "Default",
		"login": "internal", "type": "Staff", "active": true, "platform_champion": false,
		"role_1": nil, "role_2": nil, "role_3": nil, "role_4": nil, "role_5": nil, "groups": "", "goals": "",
	}
	for k, v := range fields {
		values[k] = v
	}
	obj := kv{}
	for _, k := range userFieldOrder {
		obj = append(obj, struct {
			k string
			v any
		}{k, values[k]})
	}
	for _, k := range custom {
		obj = append(obj, struct {
			k string
			v any
		}{k, values[k]})
	}
	return obj.String()
}

// String writes the object as JSON.
func (o kv) String() string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.k)
		var v []byte
		if raw, ok := f.v.(json.RawMessage); ok {
			v = raw
		} else {
			v, _ = json.Marshal(f.v)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

// listBody is the exact list envelope of records (JSON objects) at the default page size.
func listBody(total, page, perPage int, records ...string) string {
	pages := (total + perPage - 1) / perPage
	recs := "[]"
	if len(records) > 0 {
		recs = "[" + strings.Join(records, ",") + "]"
	}
	return fmt.Sprintf(`{"total_records":%d,"max_per_page":%d,"current_page":%d,"total_pages":%d,"records":%s}`,
		total, perPage, page, pages, recs)
}

// jsonBody marshals an object built in a test.
func jsonBody(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// with returns a copy of base with the given fields set (a nil value
// deletes the field; use json.RawMessage("null") to send null).
func with(base map[string]any, fields map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(fields))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range fields {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}
