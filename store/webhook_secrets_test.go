package store_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"learngate"
	"learngate/secrets"
	"learngate/store"
	"learngate/store/storetest"
	"learngate/webhook"
)

// storedSecrets reads endpoint id's secret columns as the database holds them.
func storedSecrets(t *testing.T, db *store.DB, tdb *store.TenantDB, id int64) (secret string, previous *string) {
	t.Helper()
	err := db.Pool().QueryRow(`SELECT secret, previous_secret FROM `+tdb.Schema()+`.webhook_endpoints WHERE id = $1`, id).
		Scan(&secret, &previous)
	if err != nil {
		t.Fatal(err)
	}
	return secret, previous
}

// assertSealed checks that column holds plain encrypted with keyring, and
// never the plain text itself.
func assertSealed(t *testing.T, keyring *secrets.Keyring, column, plain string) {
	t.Helper()
	if !secrets.IsEncrypted(column) || strings.Contains(column, plain) || strings.Contains(column, strings.TrimPrefix(plain, "whsec_")) {
		t.Fatalf("column holds %q: the plain text, or not the encrypted form of %q", column, plain)
	}
	if got, err := keyring.Decrypt(column); err != nil || got != plain {
		t.Fatalf("column decrypts to %q, %v; want %q", got, err, plain)
	}
}

// drainSecrets are the secrets the worker signs endpoint id's deliveries with.
func drainSecrets(t *testing.T, tdb *store.TenantDB, id int64, now time.Time) []string {
	t.Helper()
	ep, _, ok, err := store.DueWebhookDeliveries(context.Background(), tdb, id, now, 10)
	if err != nil || !ok {
		t.Fatalf("due deliveries: %v, %v", ok, err)
	}
	return ep.Secrets
}

// TestWebhookSecretsEncryptedAtRest: the secret shown at creation and at
// rotation is stored only encrypted (the test store uses the development
// keyring), both while the replaced one still signs, and the worker gets
// both back in plain text to sign with.
func TestWebhookSecretsEncryptedAtRest(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	dev := secrets.DevKeyring()
	tdb, hook := hookTenant(t, db, "acme", "*")
	if !strings.HasPrefix(hook.Secret, "whsec_") {
		t.Fatalf("shown secret %q", hook.Secret)
	}
	column, previous := storedSecrets(t, db, tdb, hook.ID)
	assertSealed(t, dev, column, hook.Secret)
	if previous != nil {
		t.Fatalf("previous_secret = %q before any rotation", *previous)
	}
	now := time.Now()
	rotated, err := store.RotateWebhookSecret(ctx, tdb, hook.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	column, previous = storedSecrets(t, db, tdb, hook.ID)
	assertSealed(t, dev, column, rotated.Secret)
	if previous == nil {
		t.Fatal("no previous secret after the rotation")
	}
	assertSealed(t, dev, *previous, hook.Secret)
	if got := drainSecrets(t, tdb, hook.ID, now); !slices.Equal(got, []string{rotated.Secret, hook.Secret}) {
		t.Fatalf("signing secrets %q, want the new then the old one", got)
	}
	// The database refuses a plain text secret (check webhook_secrets_encrypted).
	_, err = db.Pool().Exec(`UPDATE `+tdb.Schema()+`.webhook_endpoints SET secret = 'whsec_plain' WHERE id = $1`, hook.ID)
	if err == nil || !strings.Contains(err.Error(), "webhook_secrets_encrypted") {
		t.Fatalf("storing a plain secret: %v, want the check constraint to refuse it", err)
	}
}

// TestWebhookSecretsKeyringRotation: a node whose keyring has a new key
// first and the old key second reads the secrets written with the old key
// and writes new ones with the new key; a node whose keyring lacks the key
// fails clearly instead of signing with garbage.
func TestWebhookSecretsKeyringRotation(t *testing.T) {
	t.Parallel()
	db, dbURL := storetest.NewDB(t)
	ctx := context.Background()
	now := time.Now()
	const oldText, newText = "the old key: 32 bytes or more, random in real life", "the new key: 32 bytes or more, random in real life"
	oldKey, newKey := newKeyringOf(t, oldText), newKeyringOf(t, newText)

	before := openWith(t, dbURL, oldKey)
	tn, _, _ := createTenant(t, db, "acme")
	tdb, _ := before.Tenant(tn.Schema)
	url := "https://acme.example.com/hooks"
	hook, err := store.CreateWebhook(ctx, tdb, learngate.WebhookInput{URL: &url, Events: []string{"*"}}, webhook.Policy{}, now)
	if err != nil {
		t.Fatal(err)
	}
	column, _ := storedSecrets(t, db, tdb, hook.ID)
	assertSealed(t, oldKey, column, hook.Secret)

	both, err := secrets.NewKeyring([]byte(newText), []byte(oldText))
	if err != nil {
		t.Fatal(err)
	}
	ntdb, _ := openWith(t, dbURL, both).Tenant(tn.Schema)
	if got := drainSecrets(t, ntdb, hook.ID, now); !slices.Equal(got, []string{hook.Secret}) {
		t.Fatalf("rotated keyring signs with %q, want the secret written under the old key", got)
	}
	rotated, err := store.RotateWebhookSecret(ctx, ntdb, hook.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	column, previous := storedSecrets(t, db, tdb, hook.ID)
	assertSealed(t, newKey, column, rotated.Secret)
	assertSealed(t, oldKey, *previous, hook.Secret)
	if got := drainSecrets(t, ntdb, hook.ID, now); !slices.Equal(got, []string{rotated.Secret, hook.Secret}) {
		t.Fatalf("signing secrets %q, want the new then the old one", got)
	}

	// The old key alone cannot read the new secret: a clear error.
	_, _, _, err = store.DueWebhookDeliveries(ctx, tdb, hook.ID, now, 10)
	if !errors.Is(err, secrets.ErrUnknownKey) || !strings.Contains(err.Error(), "webhook 1") ||
		!strings.Contains(err.Error(), newKey.KeyIDs()[0]) {
		t.Fatalf("keyring without the key: %v, want ErrUnknownKey naming the webhook and the key id", err)
	}
	// A migration with the rotated keyring re-encrypts what the old key
	// sealed, so the old key can go: the new key alone reads everything.
	if err := openWith(t, dbURL, both).MigrateAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	column, previous = storedSecrets(t, db, tdb, hook.ID)
	assertSealed(t, newKey, column, rotated.Secret)
	assertSealed(t, newKey, *previous, hook.Secret)
	only, _ := openWith(t, dbURL, newKey).Tenant(tn.Schema)
	if got := drainSecrets(t, only, hook.ID, now); !slices.Equal(got, []string{rotated.Secret, hook.Secret}) {
		t.Fatalf("new key alone signs with %q", got)
	}
	// A migration with a keyring that lacks a key in use fails, naming it.
	if err := openWith(t, dbURL, oldKey).MigrateAll(ctx, nil); !errors.Is(err, secrets.ErrUnknownKey) {
		t.Fatalf("migrate without the key in use: %v, want ErrUnknownKey", err)
	}
}

// TestMigrateEncryptsPlainWebhookSecrets: a tenant whose endpoints were
// stored in plain text before migration 00013 gets them encrypted by
// MigrateAll, which is idempotent; deliveries sign with the same secrets,
// and the other tenant's endpoint is left as it was.
func TestMigrateEncryptsPlainWebhookSecrets(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	dev := secrets.DevKeyring()
	acme, _ := hookTenant(t, db, "acme", "*")
	other, otherHook := hookTenant(t, db, "other", "*")
	otherBefore, _ := storedSecrets(t, db, other, otherHook.ID)

	// acme as migration 00012 left it: no check, plain text secrets.
	s := acme.Schema()
	for _, q := range []string{
		`ALTER TABLE ` + s + `.webhook_endpoints DROP CONSTRAINT webhook_secrets_encrypted`,
		`DROP TABLE ` + s + `.idempotency_keys`, // migration 00014, so that 00013 is not out of order
		`DELETE FROM ` + s + `.goose_db_version WHERE version_id >= 13`,
		`UPDATE public.tenant_schema_versions SET version = 12 WHERE tenant_id = ` + strings.TrimPrefix(s, "tenant_"),
		`INSERT INTO ` + s + `.webhook_endpoints (url, events, secret, previous_secret, previous_secret_expires_at, created_at, updated_at)
			VALUES ('https://acme.example.com/old', '{*}', 'whsec_plainCurrent', 'whsec_plainPrevious', now() + interval '1 day', now(), now())`,
		`INSERT INTO ` + s + `.webhook_endpoints (url, events, secret, created_at, updated_at)
			VALUES ('https://acme.example.com/older', '{*}', 'whsec_plainOnly', now(), now())`,
	} {
		if _, err := db.Pool().Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.MigrateAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	column, previous := storedSecrets(t, db, acme, 2)
	assertSealed(t, dev, column, "whsec_plainCurrent")
	assertSealed(t, dev, *previous, "whsec_plainPrevious")
	only, none := storedSecrets(t, db, acme, 3)
	assertSealed(t, dev, only, "whsec_plainOnly")
	if none != nil {
		t.Fatalf("previous_secret of endpoint 3 = %q, want NULL", *none)
	}
	if got := drainSecrets(t, acme, 2, time.Now()); !slices.Equal(got, []string{"whsec_plainCurrent", "whsec_plainPrevious"}) {
		t.Fatalf("signing secrets after the migration %q", got)
	}
	if n := count(t, db, `SELECT count(*) FROM pg_constraint WHERE conname = 'webhook_secrets_encrypted'
		AND connamespace = $1::regnamespace AND convalidated`, s); n != 1 {
		t.Fatalf("validated check constraints in %s: %d, want 1", s, n)
	}

	// Again: nothing changes (the values are not encrypted twice).
	if err := db.MigrateAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if again, _ := storedSecrets(t, db, acme, 2); again != column {
		t.Fatal("a second migration changed an encrypted secret")
	}
	if after, _ := storedSecrets(t, db, other, otherHook.ID); after != otherBefore {
		t.Fatal("the other tenant's secret changed")
	}
	if n := count(t, db, `SELECT count(*) FROM `+other.Schema()+`.webhook_endpoints`); n != 1 {
		t.Fatalf("the other tenant has %d endpoints, want its own 1", n)
	}
}

// newKeyringOf is a one-key keyring of text.
func newKeyringOf(t *testing.T, text string) *secrets.Keyring {
	t.Helper()
	k, err := secrets.NewKeyring([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// openWith opens a second store over dbURL with keyring, closed with t.
func openWith(t *testing.T, dbURL string, keyring *secrets.Keyring) *store.DB {
	t.Helper()
	db, err := store.OpenWith(context.Background(), dbURL, store.Options{Secrets: keyring})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
