package store_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"learngate/secrets"
	"learngate/store"
	"learngate/store/storetest"
)

// openWithKeys opens the database at url with a keyring of keys, the
// first encrypting.
func openWithKeys(t *testing.T, url string, keys ...[]byte) *store.DB {
	t.Helper()
	ring, err := secrets.NewKeyring(keys...)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.OpenWith(context.Background(), url, store.Options{Secrets: ring})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestIdempotencySealedAnswerKeyRotation: an answer sealed under a key
// replays on a node whose keyring has a newer first key and still the old
// one; on a node that dropped the old key it fails, naming the unknown
// key (never a wrong answer), until learngate migrate under the rotated
// keyring has sealed it again with the new key, as the documented
// rotation does for every secret.
func TestIdempotencySealedAnswerKeyRotation(t *testing.T) {
	t.Parallel()
	_, url := storetest.NewDB(t)
	oldKey, newKey := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	ctx := context.Background()
	before := openWithKeys(t, url, oldKey)
	tn, _, _ := createTenant(t, before, "acme")
	fp := []byte("fingerprint")
	answer := []byte(`{"secret":"whsec_abc"}`)

	tdb := mustTenantDB(t, before, tn.Schema)
	claim, err := store.ClaimIdempotencyKey(ctx, tdb, "k", fp)
	if err != nil || claim.Outcome != store.ClaimRun {
		t.Fatalf("claim: %v %v", claim.Outcome, err)
	}
	if err := store.CompleteIdempotentRequest(ctx, tdb.WithRequestTx(), claim, store.StoredResponse{Status: 201, Body: answer}); err != nil {
		t.Fatal(err)
	}

	rotatedDB := openWithKeys(t, url, newKey, oldKey)
	rotated := mustTenantDB(t, rotatedDB, tn.Schema)
	again, err := store.ClaimIdempotencyKey(ctx, rotated, "k", fp)
	if err != nil || again.Outcome != store.ClaimReplay || !bytes.Equal(again.Stored.Body, answer) || again.Stored.Status != 201 {
		t.Fatalf("after rotation: %v %d %s %v", again.Outcome, again.Stored.Status, again.Stored.Body, err)
	}

	dropped := mustTenantDB(t, openWithKeys(t, url, newKey), tn.Schema)
	if _, err := store.ClaimIdempotencyKey(ctx, dropped, "k", fp); !errors.Is(err, secrets.ErrUnknownKey) {
		t.Fatalf("old key dropped before migrating: err = %v, want secrets.ErrUnknownKey", err)
	}
	// learngate migrate under the rotated keyring seals the answer again
	// with the new key: the old key can then go.
	if err := rotatedDB.MigrateTenant(ctx, tn.Schema); err != nil {
		t.Fatal(err)
	}
	again, err = store.ClaimIdempotencyKey(ctx, dropped, "k", fp)
	if err != nil || again.Outcome != store.ClaimReplay || !bytes.Equal(again.Stored.Body, answer) {
		t.Fatalf("old key dropped after migrating: %v %s %v", again.Outcome, again.Stored.Body, err)
	}
}
