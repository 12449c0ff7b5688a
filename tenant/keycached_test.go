package tenant

import (
	"context"
	"testing"

	"learngate"
)

// TestKeyCached: a key is cached once Authenticate has looked it up, valid
// or not (a revoked or suspended tenant's key is found and cached too); a
// key the database does not hold never is, and a change drops the cache.
func TestKeyCached(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, _ := newTestRegistry(t, Options{})
	acme, acmeKey, err := r.Create(ctx, NewTenantInput{Slug: "acme"})
	if err != nil {
		t.Fatalf("create acme: %v", err)
	}
	globex, _, err := r.Create(ctx, NewTenantInput{Slug: "globex"})
	if err != nil {
		t.Fatalf("create globex: %v", err)
	}
	const unknown = "lg_not-a-key-of-anybody-0000000000000000000000"

	for _, key := range []string{acmeKey, unknown, ""} {
		if r.KeyCached(key) {
			t.Fatalf("KeyCached(%q) before any lookup = true", key)
		}
	}
	if err := r.Authenticate(ctx, acme, acmeKey); err != nil {
		t.Fatalf("authenticate acme: %v", err)
	}
	if !r.KeyCached(acmeKey) {
		t.Fatal("acme's key is not cached after a successful lookup")
	}
	// On another tenant's host the key is refused, from the cache.
	if err := r.Authenticate(ctx, globex, acmeKey); !learngate.IsCode(err, learngate.Unauthorized) {
		t.Fatalf("acme's key on globex: err = %v, want Unauthorized", err)
	}
	if err := r.Authenticate(ctx, acme, unknown); !learngate.IsCode(err, learngate.Unauthorized) {
		t.Fatalf("unknown key: err = %v, want Unauthorized", err)
	}
	if r.KeyCached(unknown) {
		t.Fatal("a key the database does not hold is cached")
	}

	if _, _, err := r.Create(ctx, NewTenantInput{Slug: "initech"}); err != nil {
		t.Fatalf("create initech: %v", err)
	}
	if r.KeyCached(acmeKey) {
		t.Fatal("acme's key is still cached after a registry change")
	}
}
