package tenant

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"learngate"
)

func TestCreate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, db, _ := newTestRegistry(t, Options{})

	tn, key, err := r.Create(ctx, NewTenantInput{
		Slug: "acme", Name: "Acme Corp", Timezone: "Europe/Berlin",
		RateLimitPerMinute: ptr[int64](600), CustomDomains: []string{"Learn.Acme-Corp.com."},
	})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if tn.Status != learngate.TenantActive {
		t.Errorf("status = %q, want active", tn.Status)
	}
	if want := fmt.Sprintf("tenant_%d", tn.ID); tn.Schema != want {
		t.Errorf("schema = %q, want %q", tn.Schema, want)
	}
	if tn.Name != "Acme Corp" || tn.Timezone != "Europe/Berlin" || tn.RateLimitPerMinute != 600 || !tn.APIEnabled {
		t.Errorf("tenant = %+v", tn)
	}
	if !slices.Equal(tn.Domains, []string{"learn.acme-corp.com"}) {
		t.Errorf("domains = %q, want the normalised custom domain", tn.Domains)
	}

	// The schema is migrated.
	var tables []string
	err = db.Pool().Select(&tables, `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, tn.Schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"categories", "goals", "goose_db_version", "groups", "roles", "skills"} {
		if !slices.Contains(tables, want) {
			t.Errorf("tables of %s = %v, want %s among them", tn.Schema, tables, want)
		}
	}

	// The stored state is active too, and the key works.
	shown, err := r.Show(ctx, "acme")
	if err != nil || shown.Status != learngate.TenantActive {
		t.Fatalf("Show = %+v, %v", shown, err)
	}
	if !strings.HasPrefix(key, "lg_") {
		t.Errorf("key %q lacks the lg_ prefix", key[:3])
	}
	resolved := mustResolve(t, r, "acme.learngate.localhost")
	if err := r.Authenticate(ctx, resolved, key); err != nil {
		t.Errorf("Authenticate with the new key: %v", err)
	}
	keys, err := r.ListKeys(ctx, "acme")
	if err != nil || len(keys) != 1 || keys[0].Prefix != key[:len(keys[0].Prefix)] {
		t.Errorf("ListKeys = %+v, %v", keys, err)
	}

	t.Run("defaults", func(t *testing.T) {
		tn, _ := mustCreate(t, r, NewTenantInput{Slug: "plain"})
		if tn.Name != "plain" || tn.Timezone != "UTC" || tn.RateLimitPerMinute != DefaultRateLimit || !tn.APIEnabled {
			t.Errorf("tenant = %+v, want name = slug, UTC, default rate limit, API enabled", tn)
		}
	})
}

func TestCreateRefusesInvalidInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, db, _ := newTestRegistry(t, Options{})
	mustCreate(t, r, NewTenantInput{Slug: "taken", CustomDomains: []string{"taken.example.com"}})
	before := countRegistry(t, db)

	tests := []struct {
		name string
		in   NewTenantInput
	}{
		{"slug too short", NewTenantInput{Slug: "ab"}},
		{"slug empty", NewTenantInput{Slug: ""}},
		{"slug too long", NewTenantInput{Slug: "a" + strings.Repeat("b", 63)}},
		{"slug upper case", NewTenantInput{Slug: "Acme"}},
		{"slug leading digit", NewTenantInput{Slug: "1acme"}},
		{"slug leading hyphen", NewTenantInput{Slug: "-acme"}},
		{"slug trailing hyphen", NewTenantInput{Slug: "acme-"}},
		{"slug with dot", NewTenantInput{Slug: "ac.me"}},
		{"slug with underscore", NewTenantInput{Slug: "ac_me"}},
		{"slug reserved www", NewTenantInput{Slug: "www"}},
		{"slug reserved api", NewTenantInput{Slug: "api"}},
		{"slug reserved ops", NewTenantInput{Slug: "ops"}},
		{"slug reserved admin", NewTenantInput{Slug: "admin"}},
		{"slug reserved static", NewTenantInput{Slug: "static"}},
		{"blank name", NewTenantInput{Slug: "acme", Name: "   "}},
		{"name too long", NewTenantInput{Slug: "acme", Name: strings.Repeat("n", 201)}},
		{"unknown timezone", NewTenantInput{Slug: "acme", Timezone: "Mars/Olympus_Mons"}},
		{"Local timezone", NewTenantInput{Slug: "acme", Timezone: "Local"}},
		{"rate limit 0", NewTenantInput{Slug: "acme", RateLimitPerMinute: ptr[int64](0)}},
		{"rate limit negative", NewTenantInput{Slug: "acme", RateLimitPerMinute: ptr[int64](-5)}},
		{"rate limit too big", NewTenantInput{Slug: "acme", RateLimitPerMinute: ptr[int64](MaxRateLimit + 1)}},
		{"domain without dot", NewTenantInput{Slug: "acme", CustomDomains: []string{"localhost"}}},
		{"domain with space", NewTenantInput{Slug: "acme", CustomDomains: []string{"learn acme.com"}}},
		{"domain with port", NewTenantInput{Slug: "acme", CustomDomains: []string{"learn.acme.com:443"}}},
		{"domain label leading hyphen", NewTenantInput{Slug: "acme", CustomDomains: []string{"-learn.acme.com"}}},
		{"domain empty label", NewTenantInput{Slug: "acme", CustomDomains: []string{"learn..acme.com"}}},
		{"domain IP address", NewTenantInput{Slug: "acme", CustomDomains: []string{"10.0.0.1"}}},
		{"domain empty", NewTenantInput{Slug: "acme", CustomDomains: []string{""}}},
		{"domain is a base domain", NewTenantInput{Slug: "acme", CustomDomains: []string{"learngate.test"}}},
		{"domain under first base domain", NewTenantInput{Slug: "acme", CustomDomains: []string{"acme.learngate.localhost"}}},
		{"domain under second base domain", NewTenantInput{Slug: "acme", CustomDomains: []string{"Shop.Acme.LEARNGATE.test."}}},
		{"domain listed twice", NewTenantInput{Slug: "acme", CustomDomains: []string{"learn.acme.com", "LEARN.acme.com."}}},
		// Validation comes before the database: a taken domain beside an invalid one is Invalid.
		{"taken domain with invalid one", NewTenantInput{Slug: "acme", CustomDomains: []string{"taken.example.com", "bad_domain.com"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, key, err := r.Create(ctx, tt.in)
			if !learngate.IsCode(err, learngate.Invalid) {
				t.Fatalf("err = %v, want Invalid", err)
			}
			if key != "" {
				t.Errorf("a key was returned with the error")
			}
		})
	}
	if after := countRegistry(t, db); after != before {
		t.Errorf("refused creations left state behind: before %+v, after %+v", before, after)
	}
}

func TestCreateConflictLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, db, _ := newTestRegistry(t, Options{})
	mustCreate(t, r, NewTenantInput{Slug: "acme", CustomDomains: []string{"learn.acme.com"}})
	before := countRegistry(t, db)

	tests := []struct {
		name string
		in   NewTenantInput
	}{
		{"slug taken", NewTenantInput{Slug: "acme"}},
		{"slug taken with free domain", NewTenantInput{Slug: "acme", CustomDomains: []string{"free.example.com"}}},
		{"domain taken", NewTenantInput{Slug: "other", CustomDomains: []string{"learn.acme.com"}}},
		{"domain taken in another spelling", NewTenantInput{Slug: "other", CustomDomains: []string{"LEARN.Acme.com."}}},
		{"second domain taken", NewTenantInput{Slug: "other", CustomDomains: []string{"free.example.com", "learn.acme.com"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, key, err := r.Create(ctx, tt.in)
			if !learngate.IsCode(err, learngate.Conflict) {
				t.Fatalf("err = %v, want Conflict", err)
			}
			if key != "" {
				t.Errorf("a key was returned with the error")
			}
			if after := countRegistry(t, db); after != before {
				t.Fatalf("state changed: before %+v, after %+v", before, after)
			}
		})
	}
	if _, err := r.Resolve(ctx, "free.example.com"); !learngate.IsCode(err, learngate.NotFound) {
		t.Errorf("Resolve(free.example.com) err = %v, want NotFound", err)
	}
	if _, err := r.Resolve(ctx, "other.learngate.localhost"); !learngate.IsCode(err, learngate.NotFound) {
		t.Errorf("Resolve(other...) err = %v, want NotFound", err)
	}
}
