package handlers

import (
	"net/http"
	"testing"

	"learngate/store/storetest"
)

// TestOpsMoveRefusals: every way a move can be refused, with the route's
// body, and nothing queued. On a single PostgreSQL no tenant can move (422
// naming why); on a Citus cluster the node must be one of its workers and
// not the tenant's own. make e2e-citus moves tenants for real.
func TestOpsMoveRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.opsCreate(`{"slug":"acme"}`)

	for _, tt := range []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"no body", "/ops/v1/tenants/acme/move", `{}`, 400, `{"error":"node is required (\"host:port\" of a worker node)"}`},
		{"empty node", "/ops/v1/tenants/acme/move", `{"node":""}`, 400, `{"error":"node is required (\"host:port\" of a worker node)"}`},
		{"unknown field", "/ops/v1/tenants/acme/move", `{"node":"a:1","to":"b"}`, 400, `{"error":"unknown field \"to\""}`},
		{"unknown tenant", "/ops/v1/tenants/nobody/move", `{"node":"127.0.0.1:5451"}`, 404, `{"error":"tenant nobody not found"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assertResponse(t, h.opsCall(http.MethodPost, tt.path, tt.body), tt.status, tt.want)
		})
	}
	t.Run("not a worker", func(t *testing.T) {
		want := `{"error":"the database is a single PostgreSQL, not a Citus cluster: tenants cannot move"}`
		if storetest.Citus(t) {
			want = `{"error":"node 'nowhere:1' is not a worker node of the cluster"}`
		}
		assertResponse(t, h.opsCall(http.MethodPost, "/ops/v1/tenants/acme/move", `{"node":"nowhere:1"}`), 422, want)
	})
	for _, id := range []string{"1", "0", "x", "99999999999999999999"} {
		t.Run("no move "+id, func(t *testing.T) {
			assertResponse(t, h.opsCall(http.MethodGet, "/ops/v1/tenants/acme/moves/"+id, ""), 404,
				`{"error":"move `+id+` of tenant acme not found"}`)
		})
	}
	t.Run("no move of another tenant", func(t *testing.T) {
		assertResponse(t, h.opsCall(http.MethodGet, "/ops/v1/tenants/nobody/moves/1", ""), 404, `{"error":"tenant nobody not found"}`)
	})
}
