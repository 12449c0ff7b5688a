package tenant

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"learngate"
	"learngate/store"
)

// countingHosts counts the host lookups that reach the store, per name.
type countingHosts struct {
	next lookupStore
	mu   sync.Mutex
	n    map[string]int
}

func countHosts(r *Registry) *countingHosts {
	c := &countingHosts{next: r.lookups, n: map[string]int{}}
	r.lookups = c
	return c
}

func (c *countingHosts) add(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[name]++
	c.n[""]++
}

// total is the number of lookups; of name when given.
func (c *countingHosts) total(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

func (c *countingHosts) TenantBySlug(ctx context.Context, slug string) (learngate.Tenant, error) {
	c.add(slug)
	return c.next.TenantBySlug(ctx, slug)
}

func (c *countingHosts) TenantByDomain(ctx context.Context, domain string) (learngate.Tenant, error) {
	c.add(domain)
	return c.next.TenantByDomain(ctx, domain)
}

func (c *countingHosts) ActiveAPIKeys(ctx context.Context, tenantID int64) ([]store.KeyRecord, error) {
	c.add(fmt.Sprintf("keys of %d", tenantID))
	return c.next.ActiveAPIKeys(ctx, tenantID)
}

// TenantSchemaBehind is not a host lookup: it is passed on uncounted.
func (c *countingHosts) TenantSchemaBehind(ctx context.Context, tenantID int64) (bool, error) {
	return c.next.TenantSchemaBehind(ctx, tenantID)
}

// unknownHosts is a store that knows only acme: a flood costs no database.
type unknownHosts struct{ acme learngate.Tenant }

func (u unknownHosts) TenantBySlug(_ context.Context, slug string) (learngate.Tenant, error) {
	if slug == u.acme.Slug {
		return u.acme, nil
	}
	return learngate.Tenant{}, learngate.Errorf(learngate.NotFound, "not found")
}

func (u unknownHosts) TenantByDomain(context.Context, string) (learngate.Tenant, error) {
	return learngate.Tenant{}, learngate.Errorf(learngate.NotFound, "not found")
}

// TenantSchemaBehind: acme's schema is current.
func (u unknownHosts) TenantSchemaBehind(context.Context, int64) (bool, error) { return false, nil }

func (u unknownHosts) ActiveAPIKeys(context.Context, int64) ([]store.KeyRecord, error) {
	return nil, nil
}

func TestUnknownHostsAreRememberedForTenSeconds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &fakeClock{now: time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)}
	r, _, _ := newTestRegistry(t, Options{Now: clock.Now})
	queries := countHosts(r)
	const n = 300
	flood := func() {
		for i := range n {
			for _, h := range []string{fmt.Sprintf("s%03d.learngate.localhost", i), fmt.Sprintf("h%d.example.org", i)} {
				if _, err := r.Resolve(ctx, h); !learngate.IsCode(err, learngate.NotFound) {
					t.Fatalf("Resolve(%s) = %v, want NotFound", h, err)
				}
			}
		}
	}
	flood()
	if got := queries.total(""); got != 2*n {
		t.Fatalf("first flood: %d queries, want one per host (%d)", got, 2*n)
	}
	clock.Set(clock.Now().Add(9 * time.Second))
	flood()
	if got := queries.total(""); got != 2*n {
		t.Fatalf("the same hosts within 10 s: %d more queries, want none", got-2*n)
	}
	clock.Set(clock.Now().Add(1100 * time.Millisecond)) // 10.1 s after they were looked up
	flood()
	if got := queries.total(""); got != 4*n {
		t.Fatalf("after 10 s: %d queries, want %d (asked again)", got, 4*n)
	}

	// A tenant onboarded, or a domain added, is seen at once although its
	// host was remembered as unknown a moment ago.
	if _, err := r.Resolve(ctx, "newco.learngate.localhost"); !learngate.IsCode(err, learngate.NotFound) {
		t.Fatalf("newco before onboarding: %v", err)
	}
	if _, err := r.Resolve(ctx, "learn.newco.example"); !learngate.IsCode(err, learngate.NotFound) {
		t.Fatalf("custom domain before it is added: %v", err)
	}
	newco, _ := mustCreate(t, r, NewTenantInput{Slug: "newco"})
	if got := mustResolve(t, r, "newco.learngate.localhost"); got.ID != newco.ID {
		t.Fatalf("newco resolves to %d, want %d", got.ID, newco.ID)
	}
	if _, err := r.AddDomain(ctx, "newco", "learn.newco.example"); err != nil {
		t.Fatal(err)
	}
	if got := mustResolve(t, r, "learn.newco.example"); got.ID != newco.ID {
		t.Fatalf("the new domain resolves to %d, want %d", got.ID, newco.ID)
	}
	// Another tenant's host is not newco's.
	other, _ := mustCreate(t, r, NewTenantInput{Slug: "other"})
	if got := mustResolve(t, r, "other.learngate.localhost"); got.ID != other.ID || got.ID == newco.ID {
		t.Fatalf("other resolves to %d", got.ID)
	}
}

func TestHostFloodDoesNotEvictKnownTenants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &fakeClock{now: time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)}
	r := newRegistryOn(nil, Options{Now: clock.Now})
	acme := learngate.Tenant{ID: 7, Slug: "acme", Status: learngate.TenantActive}
	r.lookups = unknownHosts{acme: acme}
	queries := countHosts(r)

	mustResolve(t, r, "acme.learngate.localhost")
	const flood = 100_000
	for i := range flood {
		h := fmt.Sprintf("r%d.example.net", i)
		if _, err := r.Resolve(ctx, h); !learngate.IsCode(err, learngate.NotFound) {
			t.Fatalf("Resolve(%s) = %v", h, err)
		}
		if i%1000 == 0 {
			if got := mustResolve(t, r, "acme.learngate.localhost"); got.ID != acme.ID {
				t.Fatalf("acme resolves to %d", got.ID)
			}
		}
	}
	if got := queries.total("acme"); got != 1 {
		t.Fatalf("acme was looked up %d times during the flood, want once", got)
	}
	if got := queries.total(""); got != flood+1 {
		t.Fatalf("%d lookups, want one per host (%d)", got, flood+1)
	}
	// The bound holds, and the most recent unknown hosts are the ones kept.
	if n := r.cache.unknown.Len(); n != maxCacheEntries {
		t.Fatalf("%d unknown hosts cached, want the bound %d", n, maxCacheEntries)
	}
	before := queries.total("")
	for _, h := range []string{fmt.Sprintf("r%d.example.net", flood-1), fmt.Sprintf("r%d.example.net", flood-maxCacheEntries)} {
		if _, err := r.Resolve(ctx, h); !learngate.IsCode(err, learngate.NotFound) {
			t.Fatal(err)
		}
	}
	if got := queries.total(""); got != before {
		t.Fatalf("recent unknown hosts cost %d queries, want 0", got-before)
	}
	if _, err := r.Resolve(ctx, "r0.example.net"); !learngate.IsCode(err, learngate.NotFound) || queries.total("") != before+1 {
		t.Fatalf("the oldest unknown host was not evicted: %d queries", queries.total("")-before)
	}
}

func TestCacheIsALeastRecentlyUsedCache(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)}
	c := newCache(3, clock.Now)
	e := c.currentEpoch()
	known := func(h string) hostEntry { return hostEntry{tenant: learngate.Tenant{Slug: h}, found: true} }
	for _, h := range []string{"a", "b", "c"} {
		c.putHost(e, h, known(h))
	}
	c.host("a") // a is used: b is now the least recently used
	c.putHost(e, "d", known("d"))
	for h, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if _, ok := c.host(h); ok != want {
			t.Errorf("host %s cached %v, want %v", h, ok, want)
		}
	}
	// Unknown hosts have their own bound: they never push known ones out.
	for i := range 10 {
		c.putHost(e, fmt.Sprintf("u%d", i), hostEntry{})
	}
	if c.hosts.Len() != 3 || c.unknown.Len() != 3 {
		t.Fatalf("%d known, %d unknown; want 3 and 3", c.hosts.Len(), c.unknown.Len())
	}
	if _, ok := c.host("u0"); ok {
		t.Error("u0 still cached")
	}
	// A known host replaces its unknown entry.
	c.putHost(e, "u9", known("u9"))
	if got, ok := c.host("u9"); !ok || !got.found {
		t.Errorf("u9 = %+v, %v; want found", got, ok)
	}

	// Tenants' key sets: the same bound and order.
	for i := range int64(3) {
		c.putTenantKeys(e, i, []store.KeyRecord{{ID: i}})
	}
	c.tenantKeys(0)
	c.putTenantKeys(e, 3, []store.KeyRecord{{ID: 3}})
	if _, ok := c.tenantKeys(1); ok {
		t.Error("the least recently used key set is still cached")
	}
	for _, i := range []int64{0, 2, 3} {
		if keys, ok := c.tenantKeys(i); !ok || len(keys) != 1 || keys[0].ID != i {
			t.Errorf("tenant %d: %+v, %v", i, keys, ok)
		}
	}

	// A store from before an invalidation is dropped; the invalidation empties all.
	c.invalidate()
	c.putHost(e, "late", known("late"))
	c.putTenantKeys(e, 0, nil)
	if _, ok := c.host("late"); ok {
		t.Error("a lookup from before the invalidation was stored")
	}
	if c.hosts.Len()+c.unknown.Len()+c.keys.Len() != 0 {
		t.Errorf("after invalidate: %d, %d, %d entries", c.hosts.Len(), c.unknown.Len(), c.keys.Len())
	}
}
