package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jmoiron/sqlx"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// probeRows returns the values of the tenant's probe table, in order.
func probeRows(t *testing.T, tdb *store.TenantDB) []string {
	t.Helper()
	ctx := context.Background()
	var got []string
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &got, `SELECT v FROM probe ORDER BY v`)
	})
	if err != nil {
		t.Fatalf("read probe: %v", err)
	}
	return got
}

// insertProbe is a store call that writes v into probe, then fails with
// fail when it is not nil.
func insertProbe(ctx context.Context, tdb *store.TenantDB, v string, fail error) error {
	return tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO probe (v) VALUES ($1)`, v); err != nil {
			return err
		}
		return fail
	})
}

// newProbeTenant makes a tenant with an empty probe table.
func newProbeTenant(t *testing.T, db *store.DB, slug string) *store.TenantDB {
	t.Helper()
	tn, _, _ := createTenant(t, db, slug)
	tdb := mustTenantDB(t, db, tn.Schema)
	err := tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`CREATE TABLE probe (v text PRIMARY KEY)`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tdb
}

// TestIdempotencyRequestTx: every store call of a request handle joins one
// transaction; a failing call is rolled back to its savepoint (the others'
// writes stay, a retry works), nothing shows before the key's answer is
// stored and committed, and RollbackRequest saves nothing.
func TestIdempotencyRequestTx(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	tdb := newProbeTenant(t, db, "alpha")
	other := newProbeTenant(t, db, "beta")
	boom := errors.New("boom")

	claim, err := store.ClaimIdempotencyKey(ctx, tdb, "k1", []byte("fp"))
	if err != nil || claim.Outcome != store.ClaimRun {
		t.Fatalf("claim = %v, %v; want ClaimRun", claim.Outcome, err)
	}
	rtdb := tdb.WithRequestTx()
	// The first call fails: the transaction it began is rolled back, the next begins another.
	if err := insertProbe(ctx, rtdb, "a", boom); !errors.Is(err, boom) {
		t.Fatalf("first call: %v, want boom", err)
	}
	if err := insertProbe(ctx, rtdb, "b", nil); err != nil {
		t.Fatal(err)
	}
	// A later call that fails rolls back to its savepoint only, and a retry works.
	if err := insertProbe(ctx, rtdb, "b", nil); !learngate.IsCode(err, learngate.Conflict) {
		t.Fatalf("duplicate insert: %v, want Conflict", err)
	}
	if err := insertProbe(ctx, rtdb, "c", boom); !errors.Is(err, boom) {
		t.Fatalf("failing call: %v, want boom", err)
	}
	if err := insertProbe(ctx, rtdb, "c", nil); err != nil {
		t.Fatalf("retry after a failure: %v", err)
	}
	var inside []string
	err = rtdb.ReadTx(ctx, func(tx *sqlx.Tx) error { return tx.SelectContext(ctx, &inside, `SELECT v FROM probe ORDER BY v`) })
	if err != nil || len(inside) != 2 || inside[0] != "b" || inside[1] != "c" {
		t.Fatalf("inside the request = %v, %v; want [b c]", inside, err)
	}
	if got := probeRows(t, tdb); len(got) != 0 {
		t.Fatalf("before commit others see %v, want nothing", got)
	}
	resp := store.StoredResponse{Status: 201, ContentType: "application/json; charset=utf-8", Location: "/x/1", Body: []byte(`{"a":1}`)}
	if err := store.CompleteIdempotentRequest(ctx, rtdb, claim, resp); err != nil {
		t.Fatalf("complete: %v", err)
	}
	if got := probeRows(t, tdb); len(got) != 2 {
		t.Fatalf("after commit = %v, want [b c]", got)
	}
	if err := insertProbe(ctx, rtdb, "d", nil); err == nil {
		t.Fatal("a call after the commit ran; want an error")
	}
	again, err := store.ClaimIdempotencyKey(ctx, tdb, "k1", []byte("fp"))
	if err != nil || again.Outcome != store.ClaimReplay || again.Stored.Status != 201 ||
		again.Stored.ContentType != resp.ContentType || again.Stored.Location != "/x/1" || string(again.Stored.Body) != `{"a":1}` {
		t.Fatalf("claim again = %+v, %v; want the replay of %+v", again, err, resp)
	}
	if got := probeRows(t, other); len(got) != 0 {
		t.Fatalf("tenant beta sees %v", got)
	}

	// RollbackRequest saves nothing.
	rtdb = tdb.WithRequestTx()
	if err := insertProbe(ctx, rtdb, "e", nil); err != nil {
		t.Fatal(err)
	}
	rtdb.RollbackRequest()
	if got := probeRows(t, tdb); len(got) != 2 {
		t.Fatalf("after rollback = %v, want [b c]", got)
	}
}

// TestIdempotencyClaims: the outcomes of a claim, per tenant.
func TestIdempotencyClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	alpha := newProbeTenant(t, db, "alpha")
	beta := newProbeTenant(t, db, "beta")
	claim := func(tdb *store.TenantDB, key, fp string) store.IdempotencyClaim {
		t.Helper()
		c, err := store.ClaimIdempotencyKey(ctx, tdb, key, []byte(fp))
		if err != nil {
			t.Fatalf("claim %s: %v", key, err)
		}
		return c
	}
	first := claim(alpha, "k", "fp1")
	if first.Outcome != store.ClaimRun {
		t.Fatalf("first claim = %v", first.Outcome)
	}
	if c := claim(alpha, "k", "fp1"); c.Outcome != store.ClaimInProgress {
		t.Fatalf("while running, same request = %v, want ClaimInProgress", c.Outcome)
	}
	if c := claim(alpha, "k", "fp2"); c.Outcome != store.ClaimMismatch {
		t.Fatalf("while running, another request = %v, want ClaimMismatch", c.Outcome)
	}
	if c := claim(beta, "k", "fp2"); c.Outcome != store.ClaimRun {
		t.Fatalf("another tenant's claim = %v, want ClaimRun", c.Outcome)
	}
	// A lease that ran out is taken over; the first holder then cannot store its answer.
	exec(t, db, `UPDATE `+alpha.Schema()+`.idempotency_keys SET locked_until = now() - interval '1 second'`)
	if c := claim(alpha, "k", "fp2"); c.Outcome != store.ClaimMismatch {
		t.Fatalf("lease over, another request = %v, want ClaimMismatch", c.Outcome)
	}
	second := claim(alpha, "k", "fp1")
	if second.Outcome != store.ClaimRun {
		t.Fatalf("lease over, same request = %v, want ClaimRun", second.Outcome)
	}
	late := alpha.WithRequestTx()
	if err := insertProbe(ctx, late, "late", nil); err != nil {
		t.Fatal(err)
	}
	err := store.CompleteIdempotentRequest(ctx, late, first, store.StoredResponse{Status: 200, Body: []byte("{}")})
	if !errors.Is(err, store.ErrClaimLost) {
		t.Fatalf("complete by the first holder: %v, want ErrClaimLost", err)
	}
	if got := probeRows(t, alpha); len(got) != 0 {
		t.Fatalf("the lost claim saved %v", got)
	}
	// A released key is free again; the holder's release does not free another's claim.
	if err := store.ReleaseIdempotencyKey(ctx, alpha, first); err != nil {
		t.Fatal(err)
	}
	if c := claim(alpha, "k", "fp1"); c.Outcome != store.ClaimInProgress {
		t.Fatalf("after a stale release = %v, want ClaimInProgress", c.Outcome)
	}
	if err := store.ReleaseIdempotencyKey(ctx, alpha, second); err != nil {
		t.Fatal(err)
	}
	if c := claim(alpha, "k", "fp2"); c.Outcome != store.ClaimRun {
		t.Fatalf("after release = %v, want ClaimRun", c.Outcome)
	}
}

// TestIdempotencyPurge deletes the expired keys of one tenant only, and an
// expired key is claimed again even before the purge.
func TestIdempotencyPurge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	alpha := newProbeTenant(t, db, "alpha")
	beta := newProbeTenant(t, db, "beta")
	for _, tdb := range []*store.TenantDB{alpha, beta} {
		for _, key := range []string{"old", "new"} {
			c, err := store.ClaimIdempotencyKey(ctx, tdb, key, []byte("fp"))
			if err != nil || c.Outcome != store.ClaimRun {
				t.Fatalf("claim: %v, %v", c.Outcome, err)
			}
			rtdb := tdb.WithRequestTx()
			if err := store.CompleteIdempotentRequest(ctx, rtdb, c, store.StoredResponse{Status: 200, Body: []byte("{}")}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tdb := range []*store.TenantDB{alpha, beta} {
		exec(t, db, `UPDATE `+tdb.Schema()+`.idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'old'`)
	}
	c, err := store.ClaimIdempotencyKey(ctx, beta, "old", []byte("another"))
	if err != nil || c.Outcome != store.ClaimRun {
		t.Fatalf("claim of an expired key = %v, %v; want ClaimRun", c.Outcome, err)
	}
	n, err := store.PurgeIdempotencyKeys(ctx, alpha)
	if err != nil || n != 1 {
		t.Fatalf("purge = %d, %v; want 1", n, err)
	}
	if got := count(t, db, `SELECT count(*) FROM `+alpha.Schema()+`.idempotency_keys`); got != 1 {
		t.Fatalf("alpha keeps %d keys, want 1", got)
	}
	if got := count(t, db, `SELECT count(*) FROM `+beta.Schema()+`.idempotency_keys`); got != 2 {
		t.Fatalf("beta keeps %d keys, want 2 (its purge did not run)", got)
	}
}

// exec runs a statement on the pool.
func exec(t *testing.T, db *store.DB, q string) {
	t.Helper()
	if _, err := db.Pool().Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
