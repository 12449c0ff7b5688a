package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// smallTenantRatio is the target of page 1 of a 100-user tenant against
// page 1 of a 50,000-user one (docs/performance.md, P9).
const smallTenantRatio = 1.2

// smallTenantPairs is how many requests each tenant gets in smallTenant.
const smallTenantPairs = 300

// smallTenant compares page 1 of GET /papi/users?per_page=100 of the small
// tenant with that of the mid-sized one, requests alternating one at a
// time (at most smallTenantPairs each, at most bound in all), so that both
// see the same machine: measured one after the other, whatever the machine
// did between them (a checkpoint after the write scenarios) lands on one.
// It returns the section of the report.
func smallTenant(ctx context.Context, client *http.Client, small, mid target, smallUsers, midUsers int, bound time.Duration) string {
	path := "/papi/users?per_page=100"
	for _, t := range []target{small, mid} { // the first request of a tenant loads its catalog
		_, _, _ = fetch(client, t.get(path))
	}
	began := time.Now()
	var s, m timing
	for i := 0; i < smallTenantPairs && ctx.Err() == nil && (i < 10 || time.Since(began) < bound); i++ {
		one := sample(ctx, client, small.get(path), 1, 0)
		two := sample(ctx, client, mid.get(path), 1, 0)
		s.all, s.errors = append(s.all, one.all...), s.errors+one.errors
		m.all, m.errors = append(m.all, two.all...), m.errors+two.errors
	}
	s.p50, s.p99 = percentiles(s.all)
	m.p50, m.p99 = percentiles(m.all)
	var b strings.Builder
	b.WriteString("### Small tenant\n\nPage 1 of GET /papi/users?per_page=100, one request at a time, alternating between the two tenants.\n\n")
	b.WriteString("| tenant | users | requests | errors | p50 | p99 | ratio to the larger | target | result |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---|---|\n")
	ratio := 0.0
	if m.p50 > 0 {
		ratio = float64(s.p50) / float64(m.p50)
	}
	pass := s.errors == 0 && m.errors == 0 && len(s.all) > 0 && ratio <= smallTenantRatio
	fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %s | %.2f× | ≤ %.1f× | %s |\n", small.host, smallUsers, len(s.all), s.errors,
		ms(s.p50), ms(s.p99), ratio, smallTenantRatio, map[bool]string{true: "pass", false: "FAIL"}[pass])
	fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %s | | | |\n", mid.host, midUsers, len(m.all), m.errors, ms(m.p50), ms(m.p99))
	return b.String()
}
