package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// TestThroughPgBouncer runs learngate through a real PgBouncer in
// transaction pooling mode, with LEARNGATE_DATABASE_URL pointing at it
// and no LEARNGATE_DATABASE_DIRECT_URL: migrate, two tenants created (one
// by the CLI, one by POST /ops/v1/tenants), migrate again once they exist,
// concurrent API requests of both tenants (each sees only its own rows),
// and the worker working a certificate job.
func TestThroughPgBouncer(t *testing.T) {
	direct := cliEnv(t)
	t.Setenv("LEARNGATE_DATABASE_URL", storetest.StartPgBouncer(t, direct))
	t.Setenv("LEARNGATE_OPS_TOKEN", "pgbouncer-test-token")
	mustRun(t, "migrate", "-q")
	m := createdPattern.FindStringSubmatch(mustRun(t, "tenant", "create", "acme"))
	if m == nil {
		t.Fatal("tenant create printed no key")
	}
	keys := map[string]string{"acme": m[3]}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := openApp(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	srv := newServer(a, a.blobs)
	public, err := srv.PublicRouter()
	if err != nil {
		t.Fatal(err)
	}
	ops := srv.OpsRouter()
	req := httptest.NewRequest(http.MethodPost, "/ops/v1/tenants", strings.NewReader(`{"slug":"globex"}`))
	req.Header.Set("Authorization", "Bearer pgbouncer-test-token")
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	ops.ServeHTTP(w, req)
	var created struct {
		APIKey string `json:"api_key"`
	}
	if w.Code != http.StatusCreated || json.Unmarshal(w.Body.Bytes(), &created) != nil || created.APIKey == "" {
		t.Fatalf("POST /ops/v1/tenants: %d %s", w.Code, w.Body.String())
	}
	keys["globex"] = created.APIKey
	mustRun(t, "migrate", "-q")

	call := func(slug, method, path, body string) (int, string) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Host = slug + ".learngate.localhost"
		req.Header.Set("Authorization", keys[slug])
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		public.ServeHTTP(w, req)
		return w.Code, w.Body.String()
	}
	t.Run("tenant isolation under concurrent requests", func(t *testing.T) {
		const workers, each = 4, 8
		var wg sync.WaitGroup
		for slug := range keys {
			for g := range workers {
				wg.Go(func() {
					for i := range each {
						name := fmt.Sprintf("%s-%d-%d", slug, g, i)
						if code, body := call(slug, http.MethodPost, "/papi/roles", `{"name":"`+name+`"}`); code != http.StatusCreated {
							t.Errorf("%s: POST /papi/roles: %d %s", slug, code, body)
							return
						}
						code, body := call(slug, http.MethodGet, "/papi/roles?per_page=100", "")
						var page struct {
							Records []struct {
								Name string `json:"name"`
							} `json:"records"`
						}
						if code != http.StatusOK || json.Unmarshal([]byte(body), &page) != nil {
							t.Errorf("%s: GET /papi/roles: %d %s", slug, code, body)
							return
						}
						for _, r := range page.Records {
							if !strings.HasPrefix(r.Name, slug+"-") {
								t.Errorf("%s sees the role %q of another tenant", slug, r.Name)
							}
						}
					}
				})
			}
		}
		wg.Wait()
		for slug := range keys {
			code, body := call(slug, http.MethodGet, "/papi/roles?per_page=1", "")
			if want := fmt.Sprintf(`"total_records":%d,`, workers*each); code != http.StatusOK || !strings.Contains(body, want) {
				t.Errorf("%s: GET /papi/roles: %d %s, want %s", slug, code, body, want)
			}
		}
	})

	t.Run("worker", func(t *testing.T) {
		tn, err := a.db.TenantBySlug(ctx, "globex")
		if err != nil {
			t.Fatal(err)
		}
		tdb, err := a.db.Tenant(tn.Schema)
		if err != nil {
			t.Fatal(err)
		}
		name := "ann"
		u, err := store.CreateUser(ctx, tdb, learngate.UserInput{UserName: &name, FirstName: &name, LastName: &name,
			Email: ptrTo("ann@example.com"), Timezone: ptrTo("UTC")}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		id := storetest.SeedConqueredEnrolment(t, tdb, u.ID, "Fire safety", time.Now().Add(-time.Hour))
		job, err := store.RequestCertificate(ctx, tdb, store.EnrolmentRef{Kind: store.TopicCertificate, ID: id}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		workerCtx, stop := context.WithCancel(ctx)
		defer stop()
		done := make(chan error, 1)
		go func() {
			cmd := rootCommand()
			cmd.SetArgs([]string{"worker"})
			done <- cmd.ExecuteContext(workerCtx)
		}()
		waitUntil(t, 30*time.Second, "certificate made", func() bool {
			got, err := store.GetCertificateJob(ctx, tdb, job.JobID, time.Now())
			if err != nil || got.Status == store.CertificateFailed {
				t.Fatalf("job %+v, %v", got, err)
			}
			return got.Status == store.CertificateComplete
		})
		stop()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("learngate worker: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("learngate worker did not stop")
		}
	})
}
