package handlers

import (
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

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
