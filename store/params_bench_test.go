package store_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/lib/pq"

	"learngate/store/storetest"
)

// BenchmarkTenantReadParams measures one tenant read with a parameter
// outside a transaction (the registry's lookup by slug), straight on
// PostgreSQL, with lib/pq's default (Parse/Bind on the unnamed statement,
// then Execute: two round trips) and with binary_parameters, which every
// learngate pool uses (one round trip; docs/decisions.md, "Through
// PgBouncer").
func BenchmarkTenantReadParams(b *testing.B) {
	db, dbURL := storetest.NewDB(b)
	createTenant(b, db, "acme")
	for _, binary := range []bool{false, true} {
		name := "default"
		if binary {
			name = "binary_parameters"
		}
		b.Run(name, func(b *testing.B) {
			cfg, err := pq.NewConfig(dbURL)
			if err != nil {
				b.Fatal(err)
			}
			cfg.BinaryParameters = binary
			connector, err := pq.NewConnectorConfig(cfg)
			if err != nil {
				b.Fatal(err)
			}
			pool := sql.OpenDB(connector)
			defer pool.Close()
			pool.SetMaxOpenConns(1)
			ctx := context.Background()
			var id int64
			var slug, status string
			read := func() {
				if err := pool.QueryRowContext(ctx, `SELECT id, slug, status FROM public.tenants WHERE slug = $1`, "acme").
					Scan(&id, &slug, &status); err != nil || slug != "acme" {
					b.Fatalf("read: %q, %v", slug, err)
				}
			}
			read()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				read()
			}
		})
	}
}
