package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/jmoiron/sqlx"

	"learngate/handlers/httpx"
	"learngate/handlers/papi"
)

// probeRow is a row of the test-only probe table every tenant schema gets.
type probeRow struct {
	ID     int    `db:"id" json:"id"`
	Owner  string `db:"owner" json:"owner"`
	Secret string `db:"secret" json:"secret"`
}

// createProbeTable gives the tenant slug a probe table with rows 1..3 that
// name their owner.
func createProbeTable(t testing.TB, h *harness, slug string) {
	t.Helper()
	ctx := context.Background()
	tn, err := h.registry.Show(ctx, slug)
	if err != nil {
		t.Fatalf("show %s: %v", slug, err)
	}
	tdb, err := h.db.Tenant(tn.Schema)
	if err != nil {
		t.Fatalf("tenant handle of %s: %v", slug, err)
	}
	err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE probe (id int PRIMARY KEY, owner text NOT NULL, secret text NOT NULL)`); err != nil {
			return err
		}
		for id := 1; id <= 3; id++ {
			if _, err := tx.ExecContext(ctx, `INSERT INTO probe (id, owner, secret) VALUES ($1, $2, $3)`,
				id, slug, fmt.Sprintf("%s-secret-%d", slug, id)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("create probe table for %s: %v", slug, err)
	}
}

// probeBody is the exact answer of GET /papi/probe for tenant slug.
func probeBody(slug, schema string) string {
	return fmt.Sprintf(`{"rows":[`+
		`{"id":1,"owner":%[1]q,"secret":"%[1]s-secret-1"},`+
		`{"id":2,"owner":%[1]q,"secret":"%[1]s-secret-2"},`+
		`{"id":3,"owner":%[1]q,"secret":"%[1]s-secret-3"}],"search_path":%[2]q}`, slug, schema)
}

// probeRouter is the real public router plus a test-only GET /papi/probe
// behind the real chain, reading the probe table through the request's
// tenant handle. It names the serving connection in X-Backend-Pid.
func probeRouter(t testing.TB, h *harness) *gin.Engine {
	t.Helper()
	r, err := h.server.PublicRouter()
	if err != nil {
		t.Fatalf("public router: %v", err)
	}
	s := h.server
	r.GET("/papi/probe", append(papi.New(s.Gate, &s.Papi).Chain(), func(c *gin.Context) {
		ctx := c.Request.Context()
		var (
			rows []probeRow
			pid  int
			path string
		)
		err := httpx.TenantDB(c).ReadTx(ctx, func(tx *sqlx.Tx) error {
			if err := tx.GetContext(ctx, &pid, `SELECT pg_backend_pid()`); err != nil {
				return err
			}
			if err := tx.GetContext(ctx, &path, `SELECT current_setting('search_path')`); err != nil {
				return err
			}
			return tx.SelectContext(ctx, &rows, `SELECT id, owner, secret FROM probe ORDER BY id`)
		})
		if err != nil {
			httpx.RespondError(c, err)
			return
		}
		c.Header("X-Backend-Pid", strconv.Itoa(pid))
		c.JSON(http.StatusOK, gin.H{"rows": rows, "search_path": path})
	})...)
	return r
}

func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	const poolSize = 3
	h.db.SetMaxOpenConns(poolSize)
	ctx := context.Background()

	type probeTenant struct {
		slug, host, key, body string
	}
	var tenants []probeTenant
	for _, slug := range []string{"alpha", "beta"} {
		key := h.createTenant(slug)
		setTenantRateLimit(t, h, slug, 100_000)
		createProbeTable(t, h, slug)
		tn, err := h.registry.Show(ctx, slug)
		if err != nil {
			t.Fatalf("show %s: %v", slug, err)
		}
		tenants = append(tenants, probeTenant{slug: slug, host: slug + ".learngate.localhost", key: key, body: probeBody(slug, tn.Schema)})
	}
	router := probeRouter(t, h)

	backends := map[string]bool{} // pg_backend_pid of every connection that served a probe
	if !t.Run("concurrent requests see only their tenant's rows", func(t *testing.T) {
		const total = 240
		results := make([]*httptest.ResponseRecorder, total)
		var wg sync.WaitGroup
		startGate := make(chan struct{})
		for i := range total {
			wg.Go(func() {
				<-startGate
				tn := tenants[i%len(tenants)]
				results[i] = do(router, request{host: tn.host, path: "/papi/probe", headers: map[string]string{"Authorization": tn.key}})
			})
		}
		close(startGate)
		wg.Wait()
		for i, w := range results {
			assertResponse(t, w, http.StatusOK, tenants[i%len(tenants)].body)
			backends[w.Header().Get("X-Backend-Pid")] = true
		}
		if len(backends) > poolSize {
			t.Fatalf("probes ran on %d connections, want at most the pool size %d", len(backends), poolSize)
		}
	}) {
		return
	}

	t.Run("pooled connections keep the default search_path", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		// Holding the whole pool at once inspects every connection it has.
		for i := range poolSize {
			conn, err := h.db.Pool().Conn(ctx)
			if err != nil {
				t.Fatalf("connection %d: %v", i+1, err)
			}
			defer conn.Close()
			var pid int
			var path string
			if err := conn.QueryRowContext(ctx, `SELECT pg_backend_pid(), current_setting('search_path')`).Scan(&pid, &path); err != nil {
				t.Fatalf("connection %d: %v", i+1, err)
			}
			if !backends[strconv.Itoa(pid)] {
				t.Errorf("connection %d (backend %d) served no probe; the pool was not reused", i+1, pid)
			}
			if path != `"$user", public` {
				t.Errorf("connection %d (backend %d): search_path = %q, want the default %q", i+1, pid, path, `"$user", public`)
			}
		}
	})

	t.Run("a key of one tenant on another tenant's host", func(t *testing.T) {
		alpha, beta := tenants[0], tenants[1]
		for _, r := range []request{
			{host: beta.host, path: "/papi/probe", headers: map[string]string{"Authorization": alpha.key}},
			{host: beta.host, path: "/papi/probe", headers: map[string]string{"Authorization": "Bearer " + alpha.key}},
			{host: beta.host, path: "/papi/probe?api_key=" + url.QueryEscape(alpha.key)},
		} {
			assertResponse(t, do(router, r), http.StatusUnauthorized, unauthorizedBody)
		}
	})
}
