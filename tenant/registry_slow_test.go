//go:build slow

package tenant

import (
	"context"
	"fmt"
	"testing"
	"time"

	"learngate"
)

func TestCreate200Tenants(t *testing.T) {
	if testing.Short() {
		t.Skip("200 tenants: not in -short")
	}
	t.Parallel()
	const n = 200
	ctx := context.Background()
	r, db, _ := newTestRegistry(t, Options{})

	keys := make([]string, n)
	start := time.Now()
	for i := range n {
		_, key, err := r.Create(ctx, NewTenantInput{Slug: fmt.Sprintf("org-%03d", i)})
		if err != nil {
			t.Fatalf("Create %d: %v", i, err)
		}
		keys[i] = key
	}
	took := time.Since(start)
	t.Logf("Registry.Create of %d tenants, one after another: %v (%v per tenant)",
		n, took.Round(time.Millisecond), (took / n).Round(time.Microsecond))

	if c := countRegistry(t, db); c.Tenants != n || c.Schemas != n || c.Keys != n {
		t.Errorf("counts = %+v, want %d tenants, schemas and keys", c, n)
	}
	ids := map[int64]bool{}
	for i := range n {
		host := fmt.Sprintf("org-%03d.learngate.test", i)
		tn := mustResolve(t, r, host)
		if tn.Slug != fmt.Sprintf("org-%03d", i) || tn.Status != learngate.TenantActive {
			t.Fatalf("Resolve(%s) = %s (%s)", host, tn.Slug, tn.Status)
		}
		ids[tn.ID] = true
		if err := r.Authenticate(ctx, tn, keys[i]); err != nil {
			t.Fatalf("Authenticate on %s: %v", host, err)
		}
	}
	if len(ids) != n {
		t.Errorf("%d distinct tenants resolved, want %d", len(ids), n)
	}
}
