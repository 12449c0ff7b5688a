package tenant

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestIdPGuardRefusesAtConnectTime: a host name that passes the URL check
// but resolves to a refused address (this machine's own name: loopback or
// private) is refused when connecting, and the error names the setting.
func TestIdPGuardRefusesAtConnectTime(t *testing.T) {
	name, err := os.Hostname()
	if err != nil || name == "" || numericHost(name) || strings.HasSuffix(name, "localhost") {
		t.Skip("no usable host name")
	}
	addrs, err := net.DefaultResolver.LookupHost(context.Background(), name)
	if err != nil || len(addrs) == 0 {
		t.Skipf("host name %q does not resolve", name)
	}
	g := NewIdPGuard(IdPGuardOptions{})
	if err := g.CheckURL("issuer", "https://"+name); err != nil {
		t.Fatalf("URL check: %v", err)
	}
	_, err = g.Client().Get("https://" + name + ":1/.well-known/openid-configuration")
	var refused *IdPRefusedError
	if !errors.As(err, &refused) {
		t.Skipf("%s (%v) is not refused: a public address? %v", name, addrs, err)
	}
	if !strings.Contains(refused.Msg, "LEARNGATE_SSO_ALLOW_PRIVATE=true") {
		t.Fatalf("refusal %q does not name the setting", refused.Msg)
	}
}

// TestIdPGuardBoundsAnswers: 1 MiB is read whole, a byte more fails.
func TestIdPGuardBoundsAnswers(t *testing.T) {
	size := MaxIdPResponse
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat("x", size)))
	}))
	defer srv.Close()
	g := NewIdPGuard(IdPGuardOptions{AllowPrivate: true})
	read := func() (int, error) {
		resp, err := g.Client().Get(srv.URL)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return len(b), err
	}
	if n, err := read(); err != nil || n != MaxIdPResponse {
		t.Fatalf("1 MiB: %d bytes, %v", n, err)
	}
	size++
	if _, err := read(); !errors.Is(err, ErrIdPResponseTooLarge) {
		t.Fatalf("1 MiB + 1: %v, want ErrIdPResponseTooLarge", err)
	}
}

// TestIdPGuardRedirects: within one origin a redirect is followed (at most
// 3), to another origin (another port included) it is not.
func TestIdPGuardRedirects(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("other origin reached") }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/here", http.StatusFound)
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			_, _ = w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	c := NewIdPGuard(IdPGuardOptions{AllowPrivate: true}).Client()
	resp, err := c.Get(srv.URL + "/moved")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("same origin: %v %v", resp, err)
	}
	resp.Body.Close()
	for path, want := range map[string]string{"/away": "redirected to another host", "/loop": "redirected too many times"} {
		var refused *IdPRefusedError
		if _, err := c.Get(srv.URL + path); !errors.As(err, &refused) || !strings.Contains(refused.Msg, want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}
