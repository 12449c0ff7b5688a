package tenant

import (
	"context"
	"testing"

	"learngate"
	"learngate/store"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, _ := newTestRegistry(t, Options{})
	acme, _ := mustCreate(t, r, NewTenantInput{Slug: "acme", CustomDomains: []string{"learn.acme-corp.com"}})
	beta, _ := mustCreate(t, r, NewTenantInput{Slug: "beta-2"})

	tests := []struct {
		host string
		want int64 // 0: NotFound
	}{
		{"acme.learngate.localhost", acme.ID},
		{"acme.learngate.test", acme.ID},
		{"learn.acme-corp.com", acme.ID},
		{"beta-2.learngate.localhost", beta.ID},
		{"beta-2.learngate.test", beta.ID},
		// Port, case and trailing dot, for slug hosts and custom domains.
		{"acme.learngate.localhost:8080", acme.ID},
		{"ACME.LearnGate.Localhost", acme.ID},
		{"acme.learngate.localhost.", acme.ID},
		{"Acme.LEARNGATE.test.:443", acme.ID},
		{"learn.acme-corp.com:8443", acme.ID},
		{"LEARN.Acme-Corp.COM", acme.ID},
		{"learn.acme-corp.com.", acme.ID},
		{"Learn.ACME-corp.com.:80", acme.ID},
		// Unknown hosts.
		{"unknown.learngate.localhost", 0},
		{"unknown.learngate.test", 0},
		{"unknown.example.com", 0},
		{"learn.acme-corp.com.evil.example", 0},
		{"acme.learngate.localhost.evil.example", 0},
		{"acme.learngate.example", 0},
		{"a.b.learngate.localhost", 0},
		{"x.acme.learngate.localhost", 0},
		{"learngate.localhost", 0},
		{"learngate.test:8080", 0},
		{".learngate.localhost", 0},
		{"www.learngate.localhost", 0},
		{"acme", 0},
		{"localhost", 0},
		{"localhost:8080", 0},
		{"127.0.0.1:8080", 0},
		{"[::1]:8080", 0},
		{"[2001:db8::1]:443", 0},
		{"", 0},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			// Twice: the first answer comes from the database, the second from the cache.
			for range 2 {
				got, err := r.Resolve(ctx, tt.host)
				if tt.want == 0 {
					if !learngate.IsCode(err, learngate.NotFound) {
						t.Fatalf("Resolve = %q, %v; want NotFound", got.Slug, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("Resolve: %v", err)
				}
				if got.ID != tt.want || got.Status != learngate.TenantActive {
					t.Fatalf("Resolve = %d %q (%s), want tenant %d", got.ID, got.Slug, got.Status, tt.want)
				}
			}
		})
	}
}

func TestResolveTenantStates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, db, _ := newTestRegistry(t, Options{})

	t.Run("suspended resolves but does not authenticate", func(t *testing.T) {
		_, key := mustCreate(t, r, NewTenantInput{Slug: "sleepy", CustomDomains: []string{"learn.sleepy.example"}})
		if _, err := r.Update(ctx, "sleepy", TenantPatch{Status: ptr(learngate.TenantSuspended)}); err != nil {
			t.Fatal(err)
		}
		for _, host := range []string{"sleepy.learngate.localhost", "learn.sleepy.example"} {
			tn, err := r.Resolve(ctx, host)
			if err != nil {
				t.Fatalf("Resolve(%s): %v", host, err)
			}
			if tn.Status != learngate.TenantSuspended {
				t.Fatalf("Resolve(%s) status = %q, want suspended", host, tn.Status)
			}
			if err := r.Authenticate(ctx, tn, key); !learngate.IsCode(err, learngate.Unauthorized) {
				t.Fatalf("Authenticate on suspended %s: %v, want Unauthorized", host, err)
			}
		}
		// Reactivated, the same key works again: the refusal was the status.
		if _, err := r.Update(ctx, "sleepy", TenantPatch{Status: ptr(learngate.TenantActive)}); err != nil {
			t.Fatal(err)
		}
		if err := r.Authenticate(ctx, mustResolve(t, r, "sleepy.learngate.localhost"), key); err != nil {
			t.Fatalf("Authenticate after reactivation: %v", err)
		}
	})

	t.Run("provisioning is not found", func(t *testing.T) {
		_, key, err := GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = db.CreateTenant(ctx, store.NewTenant{Slug: "halfway", Name: "Halfway", Timezone: "UTC",
			APIEnabled: true, RateLimitPerMinute: 10, Domains: []string{"learn.halfway.example"}}, key)
		if err != nil {
			t.Fatal(err)
		}
		for _, host := range []string{"halfway.learngate.localhost", "learn.halfway.example"} {
			if _, err := r.Resolve(ctx, host); !learngate.IsCode(err, learngate.NotFound) {
				t.Fatalf("Resolve(%s) err = %v, want NotFound", host, err)
			}
		}
		if ok, err := r.TLSAllowed(ctx, "halfway.learngate.localhost"); ok || err != nil {
			t.Fatalf("TLSAllowed(provisioning) = %v, %v", ok, err)
		}
	})
}

func TestResolveNestedBaseDomains(t *testing.T) {
	t.Parallel()
	// One base domain under another: each names tenants, whatever the order.
	for _, bases := range [][]string{
		{"learngate.localhost", "eu.learngate.localhost"},
		{"eu.learngate.localhost", "learngate.localhost"},
	} {
		t.Run(bases[0]+" first", func(t *testing.T) {
			t.Parallel()
			r, _, _ := newTestRegistry(t, Options{BaseDomains: bases})
			acme, _ := mustCreate(t, r, NewTenantInput{Slug: "acme"})
			for _, host := range []string{"acme.learngate.localhost", "acme.eu.learngate.localhost"} {
				if got := mustResolve(t, r, host); got.ID != acme.ID {
					t.Errorf("Resolve(%s) = %q", host, got.Slug)
				}
			}
			for _, host := range []string{"x.acme.eu.learngate.localhost", "eu.learngate.localhost", "nobody.eu.learngate.localhost"} {
				if _, err := r.Resolve(context.Background(), host); !learngate.IsCode(err, learngate.NotFound) {
					t.Errorf("Resolve(%s) err = %v, want NotFound", host, err)
				}
			}
		})
	}
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, _ := newTestRegistry(t, Options{})
	// acme's first key comes from Create; a second one is rotated in, a third revoked.
	_, acmeKey := mustCreate(t, r, NewTenantInput{Slug: "acme"})
	_, rotatedKey, err := r.CreateKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	revoked, revokedKey, err := r.CreateKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	// The key works (and is cached) until it is revoked.
	if err := r.Authenticate(ctx, mustResolve(t, r, "acme.learngate.localhost"), revokedKey); err != nil {
		t.Fatalf("Authenticate before revocation: %v", err)
	}
	if err := r.RevokeKey(ctx, "acme", revoked.ID); err != nil {
		t.Fatal(err)
	}
	_, betaKey := mustCreate(t, r, NewTenantInput{Slug: "beta"})
	_, noAPIKey := mustCreate(t, r, NewTenantInput{Slug: "no-api"})
	if _, err := r.Update(ctx, "no-api", TenantPatch{APIEnabled: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	_, bornOffKey := mustCreate(t, r, NewTenantInput{Slug: "born-off", APIEnabled: ptr(false)})
	_, suspendedKey := mustCreate(t, r, NewTenantInput{Slug: "sleepy"})
	if _, err := r.Update(ctx, "sleepy", TenantPatch{Status: ptr(learngate.TenantSuspended)}); err != nil {
		t.Fatal(err)
	}
	wrongKey, _, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		slug string
		key  string
		ok   bool
	}{
		{"right key", "acme", acmeKey, true},
		{"second active key", "acme", rotatedKey, true},
		{"wrong key", "acme", wrongKey, false},
		{"empty key", "acme", "", false},
		{"key with extra character", "acme", acmeKey + "x", false},
		{"key prefix only", "acme", acmeKey[:11], false},
		{"revoked key", "acme", revokedKey, false},
		{"another tenant's key", "acme", betaKey, false},
		{"own key on another tenant", "beta", acmeKey, false},
		{"API disabled by update", "no-api", noAPIKey, false},
		{"API disabled at creation", "born-off", bornOffKey, false},
		{"suspended tenant", "sleepy", suspendedKey, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tn := mustResolve(t, r, tt.slug+".learngate.localhost")
			// Twice: once with the key looked up, once with it cached.
			for range 2 {
				err := r.Authenticate(ctx, tn, tt.key)
				if tt.ok {
					if err != nil {
						t.Fatalf("Authenticate: %v", err)
					}
					continue
				}
				if !learngate.IsCode(err, learngate.Unauthorized) {
					t.Fatalf("Authenticate err = %v, want Unauthorized", err)
				}
				// One answer for every cause: no oracle.
				if msg := learngate.ErrorMessage(err); msg != "unauthorized" {
					t.Fatalf("message = %q, want the same %q for every cause", msg, "unauthorized")
				}
			}
		})
	}

	t.Run("API re-enabled", func(t *testing.T) {
		if _, err := r.Update(ctx, "no-api", TenantPatch{APIEnabled: ptr(true)}); err != nil {
			t.Fatal(err)
		}
		if err := r.Authenticate(ctx, mustResolve(t, r, "no-api.learngate.localhost"), noAPIKey); err != nil {
			t.Fatalf("Authenticate after re-enabling: %v", err)
		}
	})
}
