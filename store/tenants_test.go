package store_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/jmoiron/sqlx"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

func TestSharedStoreTranslatesErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	alpha, alphaKey, _ := createTenant(t, db, "alpha", "learn.alpha.example")
	beta, _, _ := createTenant(t, db, "beta")
	suspended := learngate.TenantSuspended

	tests := []struct {
		name string
		call func() error
		want learngate.Code
	}{
		{"TenantBySlug unknown", func() error { _, err := db.TenantBySlug(ctx, "nobody"); return err }, learngate.NotFound},
		{"TenantByDomain unknown", func() error { _, err := db.TenantByDomain(ctx, "nobody.example"); return err }, learngate.NotFound},
		{"TenantByID unknown", func() error { _, err := db.TenantByID(ctx, -1); return err }, learngate.NotFound},
		{"UpdateTenant unknown", func() error {
			_, err := db.UpdateTenant(ctx, "nobody", store.TenantPatch{Status: &suspended})
			return err
		}, learngate.NotFound},
		{"RemoveDomain not the tenant's", func() error { return db.RemoveDomain(ctx, beta.ID, "learn.alpha.example") }, learngate.NotFound},
		{"RevokeAPIKey another tenant's key", func() error { return db.RevokeAPIKey(ctx, beta.ID, alphaKey.ID) }, learngate.NotFound},
		{"CreateTenant slug taken", func() error {
			_, _, err := db.CreateTenant(ctx, store.NewTenant{Slug: "alpha", Name: "x", Timezone: "UTC", RateLimitPerMinute: 1}, newKey())
			return err
		}, learngate.Conflict},
		{"CreateTenant domain taken", func() error {
			_, _, err := db.CreateTenant(ctx, store.NewTenant{Slug: "gamma", Name: "x", Timezone: "UTC", RateLimitPerMinute: 1,
				Domains: []string{"learn.alpha.example"}}, newKey())
			return err
		}, learngate.Conflict},
		{"AddDomain taken", func() error { return db.AddDomain(ctx, beta.ID, "learn.alpha.example") }, learngate.Conflict},
		{"CreateAPIKey hash taken", func() error {
			_, err := db.CreateAPIKey(ctx, beta.ID, store.NewAPIKey{Hash: mustKeyHash(t, db, alphaKey.ID), Prefix: "lg_x"})
			return err
		}, learngate.Conflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if got := learngate.ErrorCode(err); err == nil || got != tt.want {
				t.Fatalf("code = %s, want %s (err: %v)", got, tt.want, err)
			}
		})
	}

	t.Run("failed CreateTenant leaves nothing behind", func(t *testing.T) {
		// The slug is free, the second domain is taken: the whole insert rolls back.
		_, _, err := db.CreateTenant(ctx, store.NewTenant{Slug: "delta", Name: "x", Timezone: "UTC", RateLimitPerMinute: 1,
			Domains: []string{"free.delta.example", "learn.alpha.example"}}, newKey())
		if !learngate.IsCode(err, learngate.Conflict) {
			t.Fatalf("err = %v, want Conflict", err)
		}
		if _, err := db.TenantBySlug(ctx, "delta"); !learngate.IsCode(err, learngate.NotFound) {
			t.Fatalf("TenantBySlug(delta) err = %v, want NotFound", err)
		}
		if n := count(t, db, `SELECT count(*) FROM public.tenant_domains WHERE domain = 'free.delta.example'`); n != 0 {
			t.Fatalf("domain of the failed tenant was kept")
		}
		if n := count(t, db, `SELECT count(*) FROM public.api_keys`); n != 2 {
			t.Fatalf("%d api keys, want alpha's and beta's only", n)
		}
	})

	t.Run("revoking twice is NotFound", func(t *testing.T) {
		k, err := db.CreateAPIKey(ctx, alpha.ID, newKey())
		if err != nil {
			t.Fatal(err)
		}
		if err := db.RevokeAPIKey(ctx, alpha.ID, k.ID); err != nil {
			t.Fatalf("first revoke: %v", err)
		}
		if err := db.RevokeAPIKey(ctx, alpha.ID, k.ID); !learngate.IsCode(err, learngate.NotFound) {
			t.Fatalf("second revoke err = %v, want NotFound", err)
		}
	})
}

func TestDeleteTenantDropsSchemaDomainsAndKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	gone, _, _ := createTenant(t, db, "gone", "learn.gone.example", "www.gone.example")
	if _, err := db.CreateAPIKey(ctx, gone.ID, newKey()); err != nil {
		t.Fatal(err)
	}
	err := mustTenantDB(t, db, gone.Schema).Tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO roles (name) VALUES ('Teacher')`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	kept, _, keptKey := createTenant(t, db, "kept", "learn.kept.example")

	if err := db.DeleteTenant(ctx, gone.ID); err != nil {
		t.Fatalf("DeleteTenant: %v", err)
	}

	if schemaExists(t, db, gone.Schema) {
		t.Errorf("schema %s still exists", gone.Schema)
	}
	if n := count(t, db, `SELECT count(*) FROM public.tenants WHERE id = $1`, gone.ID); n != 0 {
		t.Errorf("tenant row still exists")
	}
	if n := count(t, db, `SELECT count(*) FROM public.tenant_domains WHERE tenant_id = $1`, gone.ID); n != 0 {
		t.Errorf("%d domains left", n)
	}
	if n := count(t, db, `SELECT count(*) FROM public.api_keys WHERE tenant_id = $1`, gone.ID); n != 0 {
		t.Errorf("%d api keys left", n)
	}
	if _, err := db.TenantByDomain(ctx, "learn.gone.example"); !learngate.IsCode(err, learngate.NotFound) {
		t.Errorf("TenantByDomain after delete: %v, want NotFound", err)
	}
	if keys, err := db.ActiveAPIKeys(ctx, gone.ID); err != nil || len(keys) != 0 {
		t.Errorf("ActiveAPIKeys after delete = %+v, %v, want none", keys, err)
	}

	// The other tenant is untouched.
	if !schemaExists(t, db, kept.Schema) {
		t.Errorf("schema %s of the other tenant was dropped", kept.Schema)
	}
	if got, err := db.TenantByDomain(ctx, "learn.kept.example"); err != nil || got.ID != kept.ID {
		t.Errorf("TenantByDomain(kept) = %d, %v", got.ID, err)
	}
	if keys, err := db.ActiveAPIKeys(ctx, kept.ID); err != nil || len(keys) != 1 || !bytes.Equal(keys[0].Hash, keptKey.Hash) {
		t.Errorf("ActiveAPIKeys(kept) = %+v, %v", keys, err)
	}
}

func mustKeyHash(tb testing.TB, db *store.DB, keyID int64) []byte {
	tb.Helper()
	var h []byte
	if err := db.Pool().Get(&h, `SELECT hash FROM public.api_keys WHERE id = $1`, keyID); err != nil {
		tb.Fatal(err)
	}
	return h
}
