package store_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"

	"github.com/jmoiron/sqlx"
)

// migrationLock is store's migrationLockKey.
const migrationLock int64 = 0x6c6e67617465

func TestReadTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := storetest.NewDatabase(t)
	const timeout = 300 * time.Millisecond
	db, err := store.OpenWith(ctx, dbURL, store.Options{ReadTimeout: timeout})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })

	t.Run("migrations wait for the lock longer than the timeout", func(t *testing.T) {
		// Another runner holds the migration lock for three timeouts.
		other, err := sql.Open("postgres", dbURL)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer other.Close()
		conn, err := other.Conn(ctx)
		if err != nil {
			t.Fatalf("conn: %v", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
			t.Fatalf("take the migration lock: %v", err)
		}
		released := make(chan error, 1)
		go func() {
			time.Sleep(3 * timeout)
			_, err := conn.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, migrationLock)
			released <- err
		}()
		if err := db.MigrateAll(ctx, nil); err != nil {
			t.Fatalf("migrate behind a held lock: %v", err)
		}
		if err := <-released; err != nil {
			t.Fatalf("release the lock: %v", err)
		}
	})

	t.Run("a query the server does not answer in time is Unavailable", func(t *testing.T) {
		tn, _, _ := createTenant(t, db, "acme")
		tdb, err := db.Tenant(tn.Schema)
		if err != nil {
			t.Fatalf("tenant: %v", err)
		}
		start := time.Now()
		err = tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(ctx, `SELECT pg_sleep(2)`)
			return err
		})
		if !learngate.IsCode(err, learngate.Unavailable) {
			t.Fatalf("err = %v, want Unavailable", err)
		}
		if took := time.Since(start); took >= 2*time.Second {
			t.Fatalf("failed after %v, want about the timeout %v", took, timeout)
		}
		// The pool recovers: the next work runs on a good connection.
		if err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(ctx, `SELECT 1`)
			return err
		}); err != nil {
			t.Fatalf("next transaction: %v", err)
		}
	})
}
