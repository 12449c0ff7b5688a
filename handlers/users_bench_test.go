package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"golang.org/x/crypto/bcrypt"
)

// benchUsersTenant is a seeded users tenant (see seedCatalog) for benchmarks.
func benchUsersTenant(b *testing.B) catalogTenant {
	b.Helper()
	h := newHarness(b, harnessOptions{})
	key := h.createTenant("bench")
	if _, err := h.registry.Update(b.Context(), "bench", raisedLimit(1_000_000)); err != nil {
		b.Fatal(err)
	}
	ct := catalogTenant{h: h, host: "bench.learngate.localhost", key: key}
	for _, c := range []struct{ path, body string }{
		{"/papi/roles", `{"name":"Trainer"}`}, {"/papi/groups", `{"name":"Sales"}`}, {"/papi/groups", `{"name":"Berlin"}`},
		{"/papi/custom_fields", `{"name":"City","field_type":"string"}`},
		{"/papi/custom_fields", `{"name":"Age","field_type":"number"}`},
		{"/papi/custom_fields", `{"name":"Skills","field_type":"list","options":["Go","SQL"]}`},
	} {
		ct.call(b, http.MethodPost, c.path, c.body, http.StatusCreated, "")
	}
	return ct
}

// timeRequests runs b.N requests made by next through the router and
// reports the median latency and the serial request rate; it returns the
// median.
func timeRequests(b *testing.B, ct catalogTenant, next func(i int) (method, path, body string)) time.Duration {
	b.Helper()
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		method, path, body := next(i)
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Host = ct.host
		req.Header.Set("Authorization", ct.key)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		w := serve(ct.h.public, req)
		durations = append(durations, time.Since(start))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body.String())
		}
	}
	b.StopTimer()
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	median := durations[len(durations)/2]
	b.ReportMetric(float64(median.Microseconds())/1000, "p50-ms")
	var total time.Duration
	for _, d := range durations {
		total += d
	}
	b.ReportMetric(float64(len(durations))/total.Seconds(), "req/s")
	return median
}

// BenchmarkBatchSaveUsersHTTP posts batches of 100 new users, each with two
// groups, one role and three custom fields, through the whole router.
func BenchmarkBatchSaveUsersHTTP(b *testing.B) {
	ct := benchUsersTenant(b)
	timeRequests(b, ct, func(i int) (string, string, string) {
		people := make([]string, 100)
		for j := range people {
			people[j] = fmt.Sprintf(`{"user_name":"u%d-%d","first_name":"F","last_name":"L","email":"u%d-%d@example.com",`+
				`"role_1":"Trainer","groups":"Sales;Berlin","X-City":"Oslo","X-Age":"42","X-Skills":"Go;SQL"}`, i, j, i, j)
		}
		return http.MethodPost, "/papi/users/batch_save", `{"people":[` + strings.Join(people, ",") + `]}`
	})
}

// BenchmarkListUsersHTTP reads GET /papi/users?per_page=100 (page 1 and
// page 50) on a tenant of 10,000 users through the whole router.
func BenchmarkListUsersHTTP(b *testing.B) {
	ct := benchUsersTenant(b)
	tn, err := ct.h.registry.Show(context.Background(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	tdb, err := ct.h.db.Tenant(tn.Schema)
	if err != nil {
		b.Fatal(err)
	}
	err = tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`
			INSERT INTO users (user_name, first_name, last_name, email, timezone, manager_email, created_at, updated_at)
			SELECT 'user' || g, 'First', 'Last', 'user' || g || '@example.com', 'UTC',
				'user' || (g / 10 + 1) || '@example.com', now() - g * interval '1 second', now()
			FROM generate_series(1, 10000) g;
			INSERT INTO user_roles (user_id, position, role_id) SELECT id, 1, 1 FROM users;
			INSERT INTO user_groups (user_id, group_id) SELECT id, 1 FROM users UNION ALL SELECT id, 2 FROM users;
			INSERT INTO user_custom_values (user_id, field_id, value)
				SELECT id, 1, 'Auckland' FROM users UNION ALL SELECT id, 2, '42' FROM users
				UNION ALL SELECT id, 3, 'Go;SQL' FROM users;
			ANALYZE`)
		return err
	})
	if err != nil {
		b.Fatalf("seed: %v", err)
	}
	for _, page := range []int{1, 50} {
		b.Run(fmt.Sprintf("page-%d", page), func(b *testing.B) {
			timeRequests(b, ct, func(int) (string, string, string) {
				return http.MethodGet, fmt.Sprintf("/papi/users?per_page=100&page=%d", page), ""
			})
		})
	}
}

// BenchmarkBatchSaveUsersPasswordsHTTP posts batches of 100 new users
// through the whole router, without and with a password each, and times one
// bcrypt hash at the stored cost. The handler hashes a batch's passwords
// before its transaction on at most GOMAXPROCS goroutines, so a batch with
// passwords should take about a plain batch plus 100 hashes / GOMAXPROCS;
// the "passwords" case reports that estimate (expect-ms) beside its p50.
func BenchmarkBatchSaveUsersPasswordsHTTP(b *testing.B) {
	ct := benchUsersTenant(b)
	batch := func(prefix string, i int, password bool) string {
		people := make([]string, 100)
		for j := range people {
			extra := ""
			if password {
				extra = fmt.Sprintf(`,"password":"Secret-%d-%d-pass"`, i, j)
			}
			people[j] = fmt.Sprintf(`{"user_name":"%s%d-%d","first_name":"F","last_name":"L","email":"%s%d-%d@example.com",`+
				`"role_1":"Trainer","groups":"Sales;Berlin","X-City":"Oslo"%s}`, prefix, i, j, prefix, i, j, extra)
		}
		return `{"people":[` + strings.Join(people, ",") + `]}`
	}
	var plain, hash float64 // p50 ms
	b.Run("one-bcrypt", func(b *testing.B) {
		samples := make([]time.Duration, 0, b.N)
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			if _, err := bcrypt.GenerateFromPassword([]byte("Secret-password"), bcrypt.DefaultCost); err != nil {
				b.Fatal(err)
			}
			samples = append(samples, time.Since(t0))
		}
		slices.Sort(samples)
		hash = float64(samples[len(samples)/2].Microseconds()) / 1000
		b.ReportMetric(hash, "p50-ms")
		b.ReportMetric(float64(bcrypt.DefaultCost), "bcrypt-cost")
	})
	b.Run("plain", func(b *testing.B) {
		median := timeRequests(b, ct, func(i int) (string, string, string) {
			return http.MethodPost, "/papi/users/batch_save", batch(fmt.Sprintf("plain%d-", b.N), i, false)
		})
		plain = float64(median.Microseconds()) / 1000
	})
	b.Run("passwords", func(b *testing.B) {
		procs := runtime.GOMAXPROCS(0)
		timeRequests(b, ct, func(i int) (string, string, string) {
			return http.MethodPost, "/papi/users/batch_save", batch(fmt.Sprintf("pw%d-", b.N), i, true)
		})
		b.ReportMetric(float64(procs), "gomaxprocs")
		b.ReportMetric(float64(runtime.NumCPU()), "cpus")
		b.ReportMetric(plain+100*hash/float64(procs), "expect-ms")
	})
}
