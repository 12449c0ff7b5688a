package store

import (
	"context"
	"fmt"
	"learngate/store/list"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkUsersTenants reports, for each number of tenants of
// LEARNGATE_BENCH_TENANTS (comma-separated, default 10 and 100) of 1,000
// users each in one database, the p50 latency (ms) of page 1 and of the
// last page of GET /users' store call, taking the tenants in turn, and how
// long one user_rank job run over all of them takes (ms/run).
func BenchmarkUsersTenants(b *testing.B) {
	counts := []int{10, 100}
	if spec := os.Getenv("LEARNGATE_BENCH_TENANTS"); spec != "" {
		counts = nil
		for _, s := range strings.Split(spec, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				b.Fatalf("LEARNGATE_BENCH_TENANTS: bad count %q", s)
			}
			counts = append(counts, n)
		}
	}
	ctx := context.Background()
	for _, count := range counts {
		first, _ := benchTenant(b)
		tenants := []*TenantDB{first}
		start := time.Now()
		for len(tenants) < count {
			tenants = append(tenants, secondTenant(b, first, fmt.Sprintf("t%d", len(tenants))))
		}
		for _, tdb := range tenants {
			seedScaleUsers(b, tdb, 1000)
		}
		b.Logf("%d tenants created and seeded in %v", count, time.Since(start).Round(time.Millisecond))
		b.Run(fmt.Sprintf("tenants-%d/job-run", count), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, tdb := range tenants {
					if _, err := MaintainUserRanks(ctx, tdb); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		for _, number := range []int{1, 10} {
			b.Run(fmt.Sprintf("tenants-%d/page-%d", count, number), func(b *testing.B) {
				samples := make([]time.Duration, 0, b.N)
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					users, total, err := ListUsers(ctx, tenants[i%len(tenants)], list.UserFilter{}, list.Page{Number: number, Size: 100})
					samples = append(samples, time.Since(t0))
					if err != nil || total != 1000 || len(users) != 100 {
						b.Fatalf("page %d: %d users of %d, %v", number, len(users), total, err)
					}
				}
				slices.Sort(samples)
				b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, "p50-ms")
			})
		}
	}
}
