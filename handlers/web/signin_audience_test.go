package web

import (
	"context"
	"strings"
	"testing"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"learngate/tenant"
)

// TestOIDCWrongAudience: an ID token the provider really signed, for the
// right user and nonce, but issued to tenant ssob's client, is refused by
// tenant ssoa's verifier for its audience, and accepted by ssob's (so the
// audience is the only thing wrong with it). The provider adds the
// requesting client to every token's audience, so the token is obtained
// as ssob's client would, and given to ssoa's verifier directly.
func TestOIDCWrongAudience(t *testing.T) {
	t.Parallel()
	h, _, b := signInFixture(t)
	ctx := context.Background()
	config := func(slug string) (tenant.SSOConfig, *idProvider) {
		tn, err := h.registry.Show(ctx, slug)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := h.registry.SSO(ctx, tn.ID)
		if err != nil {
			t.Fatal(err)
		}
		p, err := h.server.oidcProvider(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return cfg, p
	}
	acmeCfg, acmeProvider := config("ssoa")
	globexCfg, globexProvider := config("ssob")

	// ssob's client signs alice in and redeems its code: a real ID token whose aud is ssob-client.
	oc := &oauth2.Config{ClientID: globexCfg.ClientID, ClientSecret: globexCfg.ClientSecret, Endpoint: globexProvider.Endpoint(),
		RedirectURL: "http://" + globexHost + "/sso/oidc/callback", Scopes: globexCfg.Scopes}
	nonce, verifier := randomToken(), oauth2.GenerateVerifier()
	back := b.atProvider(oc.AuthCodeURL("state", oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), "alice@example.test")
	tok, err := oc.Exchange(oidc.ClientContext(ctx, h.server.signIn.idp.guard.Client()), back.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange as ssob's client: %v", err)
	}
	raw, _ := tok.Extra("id_token").(string)

	if _, err := h.server.verifyIDToken(ctx, acmeCfg, acmeProvider, raw, nonce); err == nil || !strings.Contains(err.Error(), "audience") {
		t.Fatalf("ssoa's verifier on a token for ssob-client: %v, want an audience error", err)
	}
	idt, err := h.server.verifyIDToken(ctx, globexCfg, globexProvider, raw, nonce)
	if err != nil || len(idt.Audience) == 0 || idt.Audience[0] != "ssob-client" {
		t.Fatalf("ssob's verifier on its own token: %v, %v", idt, err)
	}
	if _, err := h.server.verifyIDToken(ctx, globexCfg, globexProvider, raw, nonce+"x"); err == nil {
		t.Fatal("a token with another nonce was accepted")
	}
}
