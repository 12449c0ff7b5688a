package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// scimBenchUsers is the tenant size of BenchmarkSCIM:
// LEARNGATE_BENCH_SCIM_USERS, by default 100,000 (1,000,000 is asked for:
// its load takes about a minute).
func scimBenchUsers(b *testing.B) int {
	n := 100_000
	if v := os.Getenv("LEARNGATE_BENCH_SCIM_USERS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 2000 {
			b.Fatalf("LEARNGATE_BENCH_SCIM_USERS: %q is no size of at least 2000", v)
		}
	}
	return n
}

// BenchmarkSCIM measures, at concurrency 1 through the whole router (no
// contract check) on a tenant of scimBenchUsers users loaded with one
// INSERT ... SELECT generate_series and analysed, the p50 of: the lookup
// identity systems make before every create (GET /scim/v2/Users?filter=
// userName eq "..."), a create (POST /scim/v2/Users), and a group PATCH
// adding 1,000 members in one request.
func BenchmarkSCIM(b *testing.B) {
	h := newHarness(b, harnessOptions{})
	key := h.createTenant("bench")
	if _, err := h.registry.Update(b.Context(), "bench", raisedLimit(1_000_000)); err != nil {
		b.Fatal(err)
	}
	router, err := h.server.PublicRouter()
	if err != nil {
		b.Fatal(err)
	}
	tn, err := h.registry.Show(context.Background(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	tdb, err := h.db.Tenant(tn.Schema)
	if err != nil {
		b.Fatal(err)
	}
	n := scimBenchUsers(b)
	start := time.Now()
	err = tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`INSERT INTO users (user_name, first_name, last_name, email, timezone, scim_external_id, created_at, updated_at)
			SELECT 'user' || g, 'First ' || g, 'Last ' || g, 'user' || g || '@example.com', 'Europe/Berlin', 'ext-' || g,
				timestamptz '2020-01-01' + g * interval '1 second', timestamptz '2020-01-01' + g * interval '1 second'
			FROM generate_series(1, $1) g`, n)
		return err
	})
	if err != nil {
		b.Fatalf("seed: %v", err)
	}
	if _, err := h.db.Pool().Exec(`VACUUM ANALYZE ` + tn.Schema + `.users`); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d users loaded and analysed in %v", n, time.Since(start).Round(time.Millisecond))

	send := func(method, path, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Host = "bench.learngate.localhost"
		req.Header.Set("Authorization", "Bearer "+key)
		if body != "" {
			req.Header.Set("Content-Type", "application/scim+json")
		}
		return serve(router, req)
	}
	b.Run("filter-userName", func(b *testing.B) {
		timeSCIM(b, func(i int) (time.Duration, bool) {
			name := fmt.Sprintf("USER%d", (i*7919)%n+1)
			path := "/scim/v2/Users?filter=" + url.QueryEscape(`userName eq "`+name+`"`)
			t0 := time.Now()
			w := send(http.MethodGet, path, "")
			return time.Since(t0), w.Code == http.StatusOK && strings.Contains(w.Body.String(), `"totalResults":1,`)
		})
	})
	seq := 0 // b.Run runs each function more than once: names stay new
	b.Run("create", func(b *testing.B) {
		timeSCIM(b, func(int) (time.Duration, bool) {
			seq++
			i := seq
			body := fmt.Sprintf(`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"new%d@example.com",`+
				`"name":{"givenName":"New","familyName":"User"},"emails":[{"value":"new%d@example.com","type":"work","primary":true}],`+
				`"active":true,"externalId":"new-%d"}`, i, i, i)
			t0 := time.Now()
			w := send(http.MethodPost, "/scim/v2/Users", body)
			return time.Since(t0), w.Code == http.StatusCreated
		})
	})
	patch := func(b *testing.B) {
		timeSCIM(b, func(int) (time.Duration, bool) {
			seq++
			w := send(http.MethodPost, "/scim/v2/Groups", fmt.Sprintf(`{"displayName":"Group %d"}`, seq))
			if w.Code != http.StatusCreated {
				return 0, false
			}
			location := w.Header().Get("Location")
			members := make([]string, 1000)
			for j := range members {
				members[j] = fmt.Sprintf(`{"value":"%d"}`, (seq*1000+j)%n+1)
			}
			body := `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"add","path":"members","value":[` +
				strings.Join(members, ",") + `]}]}`
			t0 := time.Now()
			w = send(http.MethodPatch, location[strings.Index(location, "/scim/v2/"):], body)
			return time.Since(t0), w.Code == http.StatusOK && strings.Count(w.Body.String(), `"display":"user`) == 1000
		})
	}
	b.Run("group-patch-1000-members", patch)
	// With an endpoint subscribed to user.updated: 1,000 events, each
	// with the user as the API shows it.
	req := httptest.NewRequest(http.MethodPost, "/papi/webhooks",
		strings.NewReader(`{"url":"https://hooks.example.com/learngate","events":["user.updated"]}`))
	req.Host, req.Header["Authorization"], req.Header["Content-Type"] = "bench.learngate.localhost", []string{key}, []string{"application/json"}
	if w := serve(router, req); w.Code != http.StatusCreated {
		b.Fatalf("webhook: %d %s", w.Code, w.Body)
	}
	b.Run("group-patch-1000-members-webhook", patch)
}

// timeSCIM runs b.N timed requests (each returns its duration and whether
// it was answered as it should be) and reports their p50 in ms.
func timeSCIM(b *testing.B, run func(i int) (time.Duration, bool)) {
	b.Helper()
	durations := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		d, ok := run(i)
		if !ok {
			b.Fatalf("request %d was not answered as expected", i)
		}
		durations = append(durations, d)
	}
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
}
