package handlers

import (
	"net/http"
	"reflect"
	"sync"
	"testing"

	"learngate"
	"learngate/handlers/httpx"
	"learngate/store"
)

// recordingHandles is a httpx.TenantHandles that records the schemas asked for
// and, while fail is set, fails as an unreachable database does.
type recordingHandles struct {
	inner httpx.TenantHandles
	mu    sync.Mutex
	asked []string
	fail  bool
}

func (r *recordingHandles) Tenant(schema string) (*store.TenantDB, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, schema)
	if r.fail {
		return nil, learngate.Errorf(learngate.Unavailable, "database down")
	}
	return r.inner.Tenant(schema)
}

// take returns the schemas asked for since the last call.
func (r *recordingHandles) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	asked := r.asked
	r.asked = nil
	return asked
}

// TestTenantHandleStep: the tenant handle is its own step of the chain,
// after the key check (a refused key opens no handle) and before the rate
// limit; each tenant gets a handle of its own schema; a handle that cannot
// be opened is the route's error, not a panic.
func TestTenantHandleStep(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	key := h.createTenant("acme")
	otherKey := h.createTenant("other")
	handles := &recordingHandles{inner: h.db}
	h.server.DB = handles
	acme, err := h.registry.Show(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	other, err := h.registry.Show(t.Context(), "other")
	if err != nil {
		t.Fatal(err)
	}
	const acmeHost, otherHost = "acme.learngate.localhost", "other.learngate.localhost"

	w := h.papi(http.MethodGet, acmeHost, "/papi/roles", otherKey, "")
	assertResponse(t, w, http.StatusUnauthorized, unauthorizedBody)
	if asked := handles.take(); len(asked) != 0 {
		t.Errorf("a refused key opened handles %v", asked)
	}

	if _, err := store.CreateCatalogItem(t.Context(), mustTenant(t, h, acme.Schema), learngate.Roles, "Acme role"); err != nil {
		t.Fatal(err)
	}
	w = h.papi(http.MethodGet, acmeHost, "/papi/roles", key, "")
	assertResponse(t, w, http.StatusOK, `{"total_records":1,"max_per_page":25,"current_page":1,"total_pages":1,"records":[{"id":1,"name":"Acme role"}]}`)
	if asked := handles.take(); !reflect.DeepEqual(asked, []string{acme.Schema}) {
		t.Errorf("acme's request opened %v, want [%s]", asked, acme.Schema)
	}
	w = h.papi(http.MethodGet, otherHost, "/papi/roles", otherKey, "")
	assertResponse(t, w, http.StatusOK, `{"total_records":0,"max_per_page":25,"current_page":1,"total_pages":0,"records":[]}`)
	if asked := handles.take(); !reflect.DeepEqual(asked, []string{other.Schema}) {
		t.Errorf("other's request opened %v, want [%s]", asked, other.Schema)
	}

	handles.mu.Lock()
	handles.fail = true
	handles.mu.Unlock()
	w = h.papi(http.MethodGet, acmeHost, "/papi/roles", key, "")
	assertResponse(t, w, http.StatusServiceUnavailable, `{"error":"service unavailable"}`)
	if w.Header().Get("X-RateLimit-Limit") != "" {
		t.Error("the rate limit ran although the tenant handle failed")
	}
}

// TestServerDBIsNarrow: handlers get nothing of the database but tenant
// handles, so they cannot reach a pool and build SQL.
func TestServerDBIsNarrow(t *testing.T) {
	t.Parallel()
	f, ok := reflect.TypeFor[Server]().FieldByName("DB")
	if !ok {
		t.Fatal("Server has no DB field")
	}
	if f.Type.Kind() != reflect.Interface || f.Type.NumMethod() != 1 || f.Type.Method(0).Name != "Tenant" {
		t.Errorf("Server.DB is %v, want an interface with Tenant only", f.Type)
	}
}

// mustTenant opens the handle of schema on the harness's database.
func mustTenant(t *testing.T, h *harness, schema string) *store.TenantDB {
	t.Helper()
	tdb, err := h.db.Tenant(schema)
	if err != nil {
		t.Fatal(err)
	}
	return tdb
}
