package tenant

import (
	"context"
	"testing"
	"time"
)

// TestCreationKeepsOtherTenantsCached: a tenant created through node a is
// resolved on node b at once (its host was cached there as unknown), and
// node b keeps the tenants and keys it had cached: a creation costs no
// lookup of the other tenants, whatever their number.
//
// Through Redis the same holds (addedMessage), but the test cannot tell
// its messages from those every other test run on this Redis publishes on
// the one channel; polling is checked, and the payload in
// TestAddedMessageKeepsTheCache.
func TestCreationKeepsOtherTenantsCached(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := Options{PollInterval: 100 * time.Millisecond}
	a, _, url := newTestRegistry(t, opts)
	b := newRegistryOn(openNode(t, url), opts)
	_, key := mustCreate(t, a, NewTenantInput{Slug: "acme"})
	runRegistry(t, b)
	// The first poll drops the cache.
	waitFor(t, time.Second, "node b's first poll", func() bool { return b.cache.currentEpoch() > 0 })

	lookups := countHosts(b)
	acme := mustResolve(t, b, "acme.learngate.localhost")
	if err := b.Authenticate(ctx, acme, key); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Resolve(ctx, "globex.learngate.localhost"); err == nil {
		t.Fatal("globex resolved before it was created")
	}
	others := lookups.total("") - lookups.total("globex")

	mustCreate(t, a, NewTenantInput{Slug: "globex"})
	waitFor(t, 2*time.Second, "node b resolves globex", func() bool {
		_, err := b.Resolve(ctx, "globex.learngate.localhost")
		return err == nil
	})
	mustResolve(t, b, "acme.learngate.localhost")
	if err := b.Authenticate(ctx, acme, key); err != nil {
		t.Fatal(err)
	}
	if got := lookups.total("") - lookups.total("globex"); got != others {
		t.Fatalf("node b made %d lookups of other tenants and keys, %d before the creation: want no new one", got, others)
	}
}

// TestAddedMessageKeepsTheCache: addedMessage drops unknown hosts alone,
// any other announcement the whole cache.
func TestAddedMessageKeepsTheCache(t *testing.T) {
	t.Parallel()
	r, _, _ := newTestRegistry(t, Options{})
	r.cache.putHost(r.cache.currentEpoch(), "acme.learngate.localhost", hostEntry{found: true})
	r.cache.putHost(r.cache.currentEpoch(), "globex.learngate.localhost", hostEntry{})
	r.announce(context.Background(), addedMessage)
	if _, ok := r.cache.host("acme.learngate.localhost"); !ok {
		t.Fatal("a creation dropped a known host")
	}
	if _, ok := r.cache.host("globex.learngate.localhost"); ok {
		t.Fatal("a creation kept an unknown host")
	}
	r.changed(context.Background())
	if _, ok := r.cache.host("acme.learngate.localhost"); ok {
		t.Fatal("a change kept a known host")
	}
}
