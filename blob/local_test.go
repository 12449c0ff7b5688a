package blob_test

import (
	"context"
	"encoding/base64"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"learngate"
	"learngate/blob"
)

var signingKey = []byte("0123456789abcdef0123456789abcdef")

func newLocal(t *testing.T) (*blob.Local, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := blob.NewLocal(dir, signingKey)
	if err != nil {
		t.Fatal(err)
	}
	return l, dir
}

var start = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func link(tenant int64) blob.Link {
	return blob.Link{Scheme: "https", Host: "acme.learngate.localhost", TenantID: tenant,
		Filename: "certificate-LG-1.pdf", Now: start, TTL: 15 * time.Minute}
}

// tokenOf returns the token of a Local URL, checking the URL's form.
func tokenOf(t *testing.T, raw string) string {
	t.Helper()
	token, ok := strings.CutPrefix(raw, "https://acme.learngate.localhost/papi/certificates/download/")
	if !ok || token == "" || strings.ContainsAny(token, "/?#") {
		t.Fatalf("url = %q", raw)
	}
	return token
}

func TestLocalRoundTrip(t *testing.T) {
	ctx := context.Background()
	l, dir := newLocal(t)
	key := "tenant_1/certificates/abc.pdf"
	if err := l.Put(ctx, key, []byte("%PDF-1.4 hello"), "application/pdf"); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(dir, "tenant_1", "certificates", "abc.pdf")); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("stored file: %v, %v", info, err)
	}
	raw, err := l.URL(ctx, key, link(1))
	if err != nil {
		t.Fatal(err)
	}
	token := tokenOf(t, raw)

	d, err := l.Open(token, 1, start.Add(15*time.Minute-time.Second))
	if err != nil {
		t.Fatalf("open within 15 minutes: %v", err)
	}
	body, _ := io.ReadAll(d.Body)
	d.Body.Close()
	if string(body) != "%PDF-1.4 hello" || d.Size != int64(len(body)) || d.ContentType != "application/pdf" ||
		d.Disposition != `attachment; filename="certificate-LG-1.pdf"` {
		t.Fatalf("download = %+v, body %q", d, body)
	}

	_, err = l.Open(token, 1, start.Add(15*time.Minute))
	if learngate.ErrorCode(err) != learngate.Gone {
		t.Fatalf("open at 15 minutes = %v, want Gone", err)
	}
	// Another tenant's host: not found, expired or not.
	for _, at := range []time.Time{start, start.Add(time.Hour)} {
		if _, err := l.Open(token, 2, at); learngate.ErrorCode(err) != learngate.NotFound {
			t.Fatalf("open as tenant 2 = %v, want NotFound", err)
		}
	}
	if err := l.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(ctx, key); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	if _, err := l.Open(token, 1, start); learngate.ErrorCode(err) != learngate.NotFound {
		t.Fatalf("open a deleted file = %v, want NotFound", err)
	}
}

func TestLocalRefusesTamperedTokens(t *testing.T) {
	ctx := context.Background()
	l, _ := newLocal(t)
	for _, k := range []string{"tenant_1/a.pdf", "tenant_2/a.pdf"} {
		if err := l.Put(ctx, k, []byte("x"), "application/pdf"); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := l.URL(ctx, "tenant_1/a.pdf", link(1))
	if err != nil {
		t.Fatal(err)
	}
	token := tokenOf(t, raw)
	payload, sig, _ := strings.Cut(token, ".")
	plain, _ := base64.RawURLEncoding.DecodeString(payload)
	forge := func(p string) string { return base64.RawURLEncoding.EncodeToString([]byte(p)) + "." + sig }
	other, _ := blob.NewLocal(t.TempDir(), []byte("another key, also 32 bytes long!!"))
	otherURL, _ := other.URL(ctx, "tenant_1/a.pdf", link(1))

	cases := map[string]string{
		"empty":               "",
		"garbage":             "not-a-token",
		"no signature":        payload,
		"bad base64":          "!!!.???",
		"signature flipped":   payload + "." + strings.Map(func(r rune) rune { return r ^ 1 }, sig),
		"signature truncated": payload + "." + sig[:10],
		"longer expiry":       forge(strings.Replace(string(plain), "|1748780100|", "|4102444800|", 1)),
		"other tenant's file": forge(strings.Replace(string(plain), "tenant_1/", "tenant_2/", 1)),
		"other tenant id":     forge(strings.Replace(string(plain), "v1|1|", "v1|2|", 1)),
		"signed by other key": tokenOf(t, otherURL),
		"url-escaped":         url.PathEscape(token) + "%00",
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := l.Open(tok, 1, start); learngate.ErrorCode(err) != learngate.NotFound {
				t.Fatalf("Open = %v, want NotFound", err)
			}
		})
	}
	if !strings.Contains(string(plain), "|1748780100|") {
		t.Fatalf("payload %q does not hold the expected expiry; the forged cases test nothing", plain)
	}
}

func TestLocalRefusesBadKeysAndLinks(t *testing.T) {
	ctx := context.Background()
	l, _ := newLocal(t)
	for _, key := range []string{"", "../etc/passwd", "a/../../b", "/abs", "a//b", "a/./b", "a\\b", ".hidden"} {
		if err := l.Put(ctx, key, []byte("x"), ""); err == nil {
			t.Errorf("Put(%q) succeeded", key)
		}
	}
	bad := []blob.Link{
		{Scheme: "ftp", Host: "h", Filename: "a.pdf", TTL: time.Minute},
		{Scheme: "https", Host: "", Filename: "a.pdf", TTL: time.Minute},
		{Scheme: "https", Host: "evil.test/x", Filename: "a.pdf", TTL: time.Minute},
		{Scheme: "https", Host: "h", Filename: `a"b.pdf`, TTL: time.Minute},
		{Scheme: "https", Host: "h", Filename: "a.pdf", TTL: 0},
	}
	for _, lk := range bad {
		if _, err := l.URL(ctx, "tenant_1/a.pdf", lk); err == nil {
			t.Errorf("URL with %+v succeeded", lk)
		}
	}
	if _, err := blob.NewLocal(t.TempDir(), []byte("short")); err == nil {
		t.Error("NewLocal accepted a 5-byte key")
	}
}
