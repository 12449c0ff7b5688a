package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"learngate/secrets"
	"learngate/store"
	"learngate/store/storetest"
)

// TestSSOSecretsResealedByMigrate: a tenant's OIDC client secret and SAML
// key written under an old key are re-encrypted by a migration with the
// rotated keyring, so the new key alone reads them; another tenant's row,
// already under the new key, is left as it was.
func TestSSOSecretsResealedByMigrate(t *testing.T) {
	t.Parallel()
	db, dbURL := storetest.NewDB(t)
	ctx := context.Background()
	const oldText, newText = "the old key: 32 bytes or more, random in real life", "the new key: 32 bytes or more, random in real life"
	oldKey, newKey := newKeyringOf(t, oldText), newKeyringOf(t, newText)
	a, _, _ := createTenant(t, db, "ssoreseal")
	b, _, _ := createTenant(t, db, "ssokeep")
	secret := "client-secret"
	if _, err := openWith(t, dbURL, oldKey).PutTenantSSO(ctx, store.SSOConfig{TenantID: a.ID, Protocol: "saml", Scopes: []string{},
		Match: "email", SAMLKey: "-----BEGIN KEY-----", SAMLCert: "cert"}, &secret); err != nil {
		t.Fatal(err)
	}
	if _, err := openWith(t, dbURL, newKey).PutTenantSSO(ctx, store.SSOConfig{TenantID: b.ID, Protocol: "oidc", Scopes: []string{"openid"},
		Match: "email"}, &secret); err != nil {
		t.Fatal(err)
	}
	keptBefore, _ := db.StoredClientSecret(ctx, b.ID)
	if _, err := openWith(t, dbURL, newKey).TenantSSO(ctx, a.ID); !errors.Is(err, secrets.ErrUnknownKey) {
		t.Fatalf("new key before migrate: %v, want ErrUnknownKey", err)
	}
	both, err := secrets.NewKeyring([]byte(newText), []byte(oldText))
	if err != nil {
		t.Fatal(err)
	}
	if err := openWith(t, dbURL, both).MigrateAll(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cfg, err := openWith(t, dbURL, newKey).TenantSSO(ctx, a.ID)
	if err != nil || cfg.ClientSecret != secret || cfg.SAMLKey != "-----BEGIN KEY-----" || cfg.SAMLCert != "cert" {
		t.Fatalf("after migrate: %+v %v", cfg, err)
	}
	stored, _ := db.StoredSAMLKey(ctx, a.ID)
	if !strings.HasPrefix(stored, secrets.Prefix+newKey.KeyIDs()[0]+":") {
		t.Fatalf("SAML key not under the new key: %.30q", stored)
	}
	if keptAfter, _ := db.StoredClientSecret(ctx, b.ID); keptAfter != keptBefore {
		t.Fatal("a secret already under the new key was rewritten")
	}
}
