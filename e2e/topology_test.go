//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/lib/pq"
)

// topology is what scripts/e2e.sh started, read from its E2E_* variables.
type topology struct {
	caddyAddr  string // Caddy's HTTPS listener, 127.0.0.1:port
	caddyAdmin string // Caddy's admin API
	roots      *x509.CertPool
	nodes      []string // each serve node's public listener, http://127.0.0.1:port
	ops        []string // each node's ops listener
	ask        []string // each node's ask listener
	nodePIDs   []int
	logs       string // folder of every process's log
	redisAddrs []string
	opsToken   string
	baseDomain string
	db         *sql.DB // PostgreSQL directly, to count rows
}

// loadTopology reads the variables or skips when they are missing (the
// tests run only under scripts/e2e.sh).
func loadTopology(t *testing.T) *topology {
	t.Helper()
	if os.Getenv("E2E_CADDY_ADDR") == "" {
		t.Skip("E2E_CADDY_ADDR is not set: run make e2e")
	}
	list := func(name string) []string { return strings.Split(os.Getenv(name), ",") }
	topo := &topology{
		caddyAddr:  os.Getenv("E2E_CADDY_ADDR"),
		caddyAdmin: os.Getenv("E2E_CADDY_ADMIN"),
		nodes:      list("E2E_NODES"),
		ops:        list("E2E_OPS"),
		ask:        list("E2E_ASK"),
		logs:       os.Getenv("E2E_LOGS"),
		redisAddrs: list("E2E_REDIS_ADDRS"),
		opsToken:   os.Getenv("LEARNGATE_OPS_TOKEN"),
		baseDomain: os.Getenv("LEARNGATE_BASE_DOMAINS"),
	}
	for _, s := range list("E2E_NODE_PIDS") {
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("E2E_NODE_PIDS: %v", err)
		}
		topo.nodePIDs = append(topo.nodePIDs, pid)
	}
	db, err := sql.Open("postgres", os.Getenv("E2E_DIRECT_URL"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	topo.db = db
	// Caddy makes its local CA when it starts; wait for the root.
	var pem []byte
	for i := 0; i < 50; i++ {
		if pem, err = os.ReadFile(os.Getenv("E2E_CADDY_ROOT")); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("Caddy's local root CA: %v", err)
	}
	topo.roots = x509.NewCertPool()
	if !topo.roots.AppendCertsFromPEM(pem) {
		t.Fatal("Caddy's root.crt holds no certificate")
	}
	return topo
}

// host is a tenant's host under the base domain.
func (topo *topology) host(slug string) string { return slug + "." + topo.baseDomain }

// caddyClient is an HTTPS client that reaches every host through Caddy's
// port, from the local address localIP (127.0.0.x: Linux routes all of
// 127/8 to lo, so the proxy sees a client address other than its own),
// trusting only Caddy's local CA.
func (topo *topology) caddyClient(localIP string) *http.Client {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(localIP)}, Timeout: 5 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, "tcp", topo.caddyAddr)
		},
		TLSClientConfig:     &tls.Config{RootCAs: topo.roots},
		MaxIdleConnsPerHost: 64,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// handshake opens a TLS connection to Caddy with server name sni, from
// a fresh client (no session cache), and says how long it took.
func (topo *topology) handshake(sni string) (time.Duration, error) {
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: 5 * time.Second},
		Config: &tls.Config{RootCAs: topo.roots, ServerName: sni}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	conn, err := d.DialContext(ctx, "tcp", topo.caddyAddr)
	took := time.Since(start)
	if err == nil {
		conn.Close()
	}
	return took, err
}

// papi calls the public API of tenant slug through c at Caddy.
func (topo *topology) papi(c *http.Client, method, slug, path, key string, body any) answer {
	return call(c, method, "https://"+topo.host(slug)+"/papi"+path, "", key, body, nil)
}

// node calls the public API of tenant host on node i directly.
func (topo *topology) node(i int, method, host, path, key string) answer {
	return call(directClient, method, topo.nodes[i]+"/papi"+path, host, key, nil, nil)
}

// opsCall calls the ops API of node i with the ops token.
func (topo *topology) opsCall(i int, method, path string, body any) answer {
	return call(directClient, method, topo.ops[i]+path, "", "Bearer "+topo.opsToken, body, nil)
}

// createTenant makes a tenant through node 1's ops API, which goes
// through PgBouncer like everything else.
func (topo *topology) createTenant(t *testing.T, slug string, limit int) tenant {
	t.Helper()
	a := topo.opsCall(0, http.MethodPost, "/ops/v1/tenants",
		map[string]any{"slug": slug, "name": slug + " e2e", "rate_limit_per_minute": limit})
	if a.status != http.StatusCreated {
		t.Fatalf("create tenant %s: %s", slug, a)
	}
	return createdTenant(t, slug, a)
}

// count runs a count query directly against PostgreSQL.
func (topo *topology) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := topo.db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// grepLogs counts the lines of every process's log holding one of words.
func (topo *topology) grepLogs(t *testing.T, words ...string) (int, string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(topo.logs, "*.log"))
	n, first := 0, ""
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			for _, w := range words {
				if strings.Contains(line, w) {
					n++
					if first == "" {
						first = filepath.Base(f) + ": " + line
					}
					break
				}
			}
		}
	}
	return n, first
}
