package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// freeAddr returns a loopback address nobody listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestTLSAskListener runs `learngate serve` with LEARNGATE_TLS_ASK_ADDR
// and asks through real sockets: the ask listener answers GET /tls/ask
// without a token (200 for a tenant's host, 404 for a host of nobody) and
// nothing else; the ops route still wants the token; idle connections
// close after LEARNGATE_HTTP_IDLE_TIMEOUT as on the other listeners.
func TestTLSAskListener(t *testing.T) {
	migratedCLIEnv(t)
	ask, ops := freeAddr(t), freeAddr(t)
	t.Setenv("LEARNGATE_OPS_TOKEN", "tls-ask-test-token")
	t.Setenv("LEARNGATE_HTTP_ADDR", freeAddr(t))
	t.Setenv("LEARNGATE_OPS_ADDR", ops)
	t.Setenv("LEARNGATE_TLS_ASK_ADDR", ask)
	t.Setenv("LEARNGATE_WORKER", "false")
	t.Setenv("LEARNGATE_HTTP_IDLE_TIMEOUT", "300ms")
	mustRun(t, "migrate", "-q")
	mustRun(t, "tenant", "create", "acme", "--domain", "learn.acme.example")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		cmd := rootCommand()
		cmd.SetArgs([]string{"serve"})
		done <- cmd.ExecuteContext(ctx)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("learngate serve: %v", err)
		}
	}()
	waitUntil(t, 10*time.Second, "the ask listener accepts", func() bool {
		c, err := net.Dial("tcp", ask)
		if err == nil {
			c.Close()
		}
		return err == nil
	})

	get := func(method, url, token string) (int, string) {
		req, err := http.NewRequest(method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct {
		name, method, url, token string
		status                   int
		body                     string
	}{
		{"tenant host", "GET", "http://" + ask + "/tls/ask?domain=acme.learngate.localhost", "", 200, `{"domain":"acme.learngate.localhost"}`},
		{"custom domain", "GET", "http://" + ask + "/tls/ask?domain=Learn.Acme.Example", "", 200, `{"domain":"learn.acme.example"}`},
		{"unknown host", "GET", "http://" + ask + "/tls/ask?domain=nobody.learngate.localhost", "", 404, `{"error":"not found"}`},
		{"no domain", "GET", "http://" + ask + "/tls/ask", "", 404, `{"error":"not found"}`},
		{"another method", "POST", "http://" + ask + "/tls/ask?domain=acme.learngate.localhost", "", 404, `{"error":"not found"}`},
		{"the ops route", "GET", "http://" + ask + "/ops/v1/tls/ask?domain=acme.learngate.localhost", "tls-ask-test-token", 404, `{"error":"not found"}`},
		{"ops tenants", "GET", "http://" + ask + "/ops/v1/tenants", "tls-ask-test-token", 404, `{"error":"not found"}`},
		{"metrics", "GET", "http://" + ask + "/metrics", "tls-ask-test-token", 404, `{"error":"not found"}`},
		{"ops route keeps its token", "GET", "http://" + ops + "/ops/v1/tls/ask?domain=acme.learngate.localhost", "", 401, ""},
		{"ops route with the token", "GET", "http://" + ops + "/ops/v1/tls/ask?domain=acme.learngate.localhost", "tls-ask-test-token", 200, `{"domain":"acme.learngate.localhost"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := get(c.method, c.url, c.token)
			if status != c.status || (c.body != "" && body != c.body) {
				t.Fatalf("%s %s: %d %s, want %d %s", c.method, c.url, status, body, c.status, c.body)
			}
		})
	}

	t.Run("idle timeout", func(t *testing.T) {
		conn, err := net.Dial("tcp", ask)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "GET /tls/ask?domain=acme.learngate.localhost HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(conn)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		start := time.Now()
		_ = conn.SetReadDeadline(start.Add(5 * time.Second))
		_, err = r.ReadByte()
		if elapsed := time.Since(start); (!errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET)) ||
			elapsed < 250*time.Millisecond || elapsed > 3*time.Second {
			t.Fatalf("idle connection: %v after %v, want closed after about 300ms", err, elapsed)
		}
	})
}
