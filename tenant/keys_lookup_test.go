package tenant

import (
	"context"
	"fmt"
	"testing"

	"learngate"
)

// TestWrongKeysCostNoDatabaseQuery: a tenant's active key hashes are read
// once and held in memory, so a flood of wrong keys costs no query, another
// tenant's key is refused on this tenant's host, and a key made or revoked
// anywhere is seen at the next authentication (the change drops the cache).
func TestWrongKeysCostNoDatabaseQuery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, _ := newTestRegistry(t, Options{})
	acme, acmeKey := mustCreate(t, r, NewTenantInput{Slug: "acme"})
	globex, globexKey := mustCreate(t, r, NewTenantInput{Slug: "globex"})
	queries := countHosts(r)
	acmeLookups := fmt.Sprintf("keys of %d", acme.ID)

	if err := r.Authenticate(ctx, acme, acmeKey); err != nil {
		t.Fatalf("acme's key on acme: %v", err)
	}
	for i := range 1000 {
		if err := r.Authenticate(ctx, acme, fmt.Sprintf("lg_wrong%040d", i)); !learngate.IsCode(err, learngate.Unauthorized) {
			t.Fatalf("wrong key %d: %v, want Unauthorized", i, err)
		}
	}
	if err := r.Authenticate(ctx, acme, globexKey); !learngate.IsCode(err, learngate.Unauthorized) {
		t.Fatalf("globex's key on acme: %v, want Unauthorized", err)
	}
	if err := r.Authenticate(ctx, acme, acmeKey); err != nil {
		t.Fatalf("acme's key again: %v", err)
	}
	if got := queries.total(acmeLookups); got != 1 {
		t.Fatalf("acme's keys were read %d times for 1,003 authentications, want 1", got)
	}
	if err := r.Authenticate(ctx, globex, globexKey); err != nil {
		t.Fatalf("globex's key on globex: %v", err)
	}

	_, fresh, err := r.CreateKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Authenticate(ctx, acme, fresh); err != nil {
		t.Fatalf("a key made a moment ago: %v", err)
	}
	keys, err := r.ListKeys(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RevokeKey(ctx, "acme", keys[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := r.Authenticate(ctx, acme, acmeKey); !learngate.IsCode(err, learngate.Unauthorized) {
		t.Fatalf("a revoked key: %v, want Unauthorized", err)
	}
	if err := r.Authenticate(ctx, acme, fresh); err != nil {
		t.Fatalf("the other key after a revocation: %v", err)
	}
	if got := queries.total(acmeLookups); got != 3 {
		t.Fatalf("acme's keys were read %d times, want 3 (once, after the new key, after the revocation)", got)
	}
}
