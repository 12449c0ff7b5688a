package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"
)

// listenerEnv is both listeners as serve builds them (newServer,
// newHTTPServer), on 127.0.0.1:0 over a migrated database with tenant acme.
type listenerEnv struct {
	public, ops string // addresses
	key         string // acme's API key
}

// startListeners serves the public and ops routers with the given
// LEARNGATE_HTTP_READ_TIMEOUT and LEARNGATE_HTTP_IDLE_TIMEOUT.
func startListeners(t *testing.T, readTimeout, idleTimeout string) listenerEnv {
	t.Helper()
	migratedCLIEnv(t)
	t.Setenv("LEARNGATE_OPS_TOKEN", "listener-test-token")
	t.Setenv("LEARNGATE_HTTP_READ_TIMEOUT", readTimeout)
	t.Setenv("LEARNGATE_HTTP_IDLE_TIMEOUT", idleTimeout)
	mustRun(t, "migrate", "-q")
	m := createdPattern.FindStringSubmatch(mustRun(t, "tenant", "create", "acme"))
	if m == nil {
		t.Fatal("tenant create printed no key")
	}
	a, err := openApp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	srv := newServer(a, blobStores{})
	public, err := srv.PublicRouter()
	if err != nil {
		t.Fatal(err)
	}
	env := listenerEnv{key: m[3]}
	for _, l := range []struct {
		addr    *string
		handler http.Handler
	}{{&env.public, public}, {&env.ops, srv.OpsRouter()}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s := newHTTPServer(ln.Addr().String(), l.handler, a.cfg)
		go func() { _ = s.Serve(ln) }()
		t.Cleanup(func() { s.Close() })
		*l.addr = ln.Addr().String()
	}
	return env
}

// waitClosed reads conn until the server closes it and returns how long
// that took; it fails t when the connection is still open after limit.
func waitClosed(t *testing.T, conn net.Conn, start time.Time, limit time.Duration) time.Duration {
	t.Helper()
	if err := conn.SetReadDeadline(start.Add(limit)); err != nil {
		t.Fatal(err)
	}
	_, err := io.Copy(io.Discard, conn)
	elapsed := time.Since(start)
	var netErr net.Error
	switch {
	case errors.As(err, &netErr) && netErr.Timeout():
		t.Fatalf("connection still open after %s", limit)
	case err != nil && !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, os.ErrDeadlineExceeded):
		t.Fatalf("reading the connection: %v", err)
	}
	return elapsed
}

// TestListenerReadTimeout trickles a declared 200 000-byte body one byte
// at a time to routes that read it and routes that answer without reading
// it, on both listeners: each connection is cut soon after
// LEARNGATE_HTTP_READ_TIMEOUT (300ms) instead of being held for ever.
func TestListenerReadTimeout(t *testing.T) {
	env := startListeners(t, "300ms", "1m")
	for _, c := range []struct {
		name, addr, method, path, host, auth string
	}{
		{"healthz", env.public, http.MethodGet, "/healthz", "x", ""},
		{"papi without a key", env.public, http.MethodPost, "/papi/roles", "acme.learngate.localhost", ""},
		{"papi with a key", env.public, http.MethodPost, "/papi/roles", "acme.learngate.localhost", env.key},
		{"papi on an unknown host", env.public, http.MethodPost, "/papi/roles", "nobody.learngate.localhost", ""},
		{"ops without a token", env.ops, http.MethodPost, "/ops/v1/tenants", "ops", ""},
		{"ops with the token", env.ops, http.MethodPost, "/ops/v1/tenants", "ops", "Bearer listener-test-token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", c.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			start := time.Now()
			head := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n",
				c.method, c.path, c.host)
			if c.auth != "" {
				head += "Authorization: " + c.auth + "\r\n"
			}
			if _, err := io.WriteString(conn, head+"\r\n{"); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				tick := time.NewTicker(20 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if _, err := conn.Write([]byte("1")); err != nil {
							return
						}
					}
				}
			}()
			if elapsed := waitClosed(t, conn, start, 5*time.Second); elapsed < 250*time.Millisecond || elapsed > 3*time.Second {
				t.Fatalf("connection cut after %s, want about 300ms", elapsed)
			}
		})
	}
}

// TestListenerIdleTimeout leaves a keep-alive connection idle after one
// answered request on each listener: it is closed soon after
// LEARNGATE_HTTP_IDLE_TIMEOUT (300ms), though the read timeout is longer.
func TestListenerIdleTimeout(t *testing.T) {
	env := startListeners(t, "10s", "300ms")
	for _, c := range []struct{ name, addr, path string }{
		{"public", env.public, "/healthz"},
		{"ops", env.ops, "/ops/v1/tenants"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", c.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, "GET "+c.path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(conn)
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.Close {
				t.Fatalf("the server did not keep the connection alive (status %d)", resp.StatusCode)
			}
			start := time.Now()
			if err := conn.SetReadDeadline(start.Add(5 * time.Second)); err != nil {
				t.Fatal(err)
			}
			_, err = r.ReadByte()
			elapsed := time.Since(start)
			if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
				t.Fatalf("idle connection: %v after %s, want it closed", err, elapsed)
			}
			if elapsed < 250*time.Millisecond || elapsed > 3*time.Second {
				t.Fatalf("idle connection closed after %s, want about 300ms", elapsed)
			}
		})
	}
}
