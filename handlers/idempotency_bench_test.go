package handlers

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"learngate/handlers/idempotency"
)

// BenchmarkIdempotencyKeyHTTP measures what an Idempotency-Key adds to a
// write (docs/performance.md): the p50 of POST /papi/users and of a batch
// of 100 new users, with and without a key (a new key every request: the
// claim, the request transaction and the stored answer, no replay). Each
// iteration sends one request of each kind, in turn first, so that both
// medians see the same machine and the same table sizes.
func BenchmarkIdempotencyKeyHTTP(b *testing.B) {
	ct := benchUsersTenant(b)
	user := func(name string) string {
		return fmt.Sprintf(`{"user_name":"%s","first_name":"F","last_name":"L","email":"%s@example.com",`+
			`"role_1":"Trainer","groups":"Sales;Berlin","X-City":"Oslo","X-Age":"42","X-Skills":"Go;SQL"}`, name, name)
	}
	seq := 0 // unique names across the runs of b.Run (b.N grows)
	for _, c := range []struct {
		name, path string
		body       func(prefix string) string
	}{
		{"create-user", "/papi/users", user},
		{"batch-100", "/papi/users/batch_save", func(prefix string) string {
			people := make([]string, 100)
			for j := range people {
				people[j] = user(fmt.Sprintf("%s-%d", prefix, j))
			}
			return `{"people":[` + strings.Join(people, ",") + `]}`
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var plain, keyed []time.Duration
			send := func(withKey bool) {
				seq++
				req := httptest.NewRequest(http.MethodPost, c.path, strings.NewReader(c.body(fmt.Sprintf("u%d", seq))))
				req.Host = ct.host
				req.Header.Set("Authorization", ct.key)
				req.Header.Set("Content-Type", "application/json")
				if withKey {
					req.Header.Set(idempotency.KeyHeader, fmt.Sprintf("bench-%d", seq))
				}
				start := time.Now()
				w := serve(ct.h.public, req)
				elapsed := time.Since(start)
				if w.Code != http.StatusOK || (withKey && w.Header().Get(idempotency.KeyHeader) == "") {
					b.Fatalf("status %d: %s", w.Code, w.Body.String())
				}
				if withKey {
					keyed = append(keyed, elapsed)
				} else {
					plain = append(plain, elapsed)
				}
			}
			b.ResetTimer()
			for i := range b.N {
				send(i%2 == 0)
				send(i%2 != 0)
			}
			b.StopTimer()
			p50 := func(d []time.Duration) float64 {
				sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
				return float64(d[len(d)/2].Microseconds()) / 1000
			}
			b.ReportMetric(p50(plain), "p50-ms-no-key")
			b.ReportMetric(p50(keyed), "p50-ms-key")
			b.ReportMetric(p50(keyed)-p50(plain), "added-ms")
		})
	}
}
