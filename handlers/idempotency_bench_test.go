package handlers

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"
)

// BenchmarkIdempotencyKeyHTTP measures what an Idempotency-Key adds to a
// write (docs/performance.md): the p50 of POST /papi/users and of a batch
// of 100 new users, each with and without a key (a new key every request:
// the claim, the request transaction and the stored answer, no replay).
func BenchmarkIdempotencyKeyHTTP(b *testing.B) {
	ct := benchUsersTenant(b)
	user := func(prefix string, i int) string {
		return fmt.Sprintf(`{"user_name":"%s%d","first_name":"F","last_name":"L","email":"%s%d@example.com",`+
			`"role_1":"Trainer","groups":"Sales;Berlin","X-City":"Oslo","X-Age":"42","X-Skills":"Go;SQL"}`, prefix, i, prefix, i)
	}
	for _, c := range []struct {
		name, path string
		body       func(prefix string, i int) string
	}{
		{"create-user", "/papi/users", user},
		{"batch-100", "/papi/users/batch_save", func(prefix string, i int) string {
			people := make([]string, 100)
			for j := range people {
				people[j] = user(fmt.Sprintf("%s%d-", prefix, i), j)
			}
			return `{"people":[` + strings.Join(people, ",") + `]}`
		}},
	} {
		for _, keyed := range []bool{false, true} {
			name := c.name + "/no-key"
			if keyed {
				name = c.name + "/key"
			}
			prefix := strings.NewReplacer("/", "", "-", "").Replace(name)
			seq := 0 // unique across the runs of b.Run (b.N grows)
			b.Run(name, func(b *testing.B) {
				durations := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for range b.N {
					seq++
					req := httptest.NewRequest(http.MethodPost, c.path, strings.NewReader(c.body(prefix, seq)))
					req.Host = ct.host
					req.Header.Set("Authorization", ct.key)
					req.Header.Set("Content-Type", "application/json")
					if keyed {
						req.Header.Set(idempotencyKeyHeader, fmt.Sprintf("%s-%d", prefix, seq))
					}
					start := time.Now()
					w := serve(ct.h.public, req)
					durations = append(durations, time.Since(start))
					if w.Code != http.StatusOK || (keyed && w.Header().Get(idempotencyKeyHeader) == "") {
						b.Fatalf("status %d: %s", w.Code, w.Body.String())
					}
				}
				b.StopTimer()
				sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
				b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}
