//go:build slow

package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"learngate/store/storetest"
)

// opsToken is the ops bearer token of every node.
const opsToken = "soak-ops-token-0123456789"

// baseDomain is the nodes' base domain: tenant acme answers at acme.<baseDomain>.
const baseDomain = "learngate.localhost"

// node is one `learngate serve` process on loopback ports of its own.
type node struct {
	t       testing.TB
	env     []string
	public  string // host:port
	ops     string // host:port
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{}
	client  *http.Client
	// observe, when set, sees every reply of call and opsCall with the Host
	// it was sent to. Set it before the load starts and leave it.
	observe func(host string, r reply)
}

// nodeOptions configures a node.
type nodeOptions struct {
	DatabaseURL string
	RedisURL    string // "" for the in-memory limiter
	// Env adds or overrides LEARNGATE_* variables.
	Env []string
}

// freePort returns a loopback port nobody listens on (yet).
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startNode runs `learngate serve` and waits until /readyz answers 200.
// The process is killed when the test ends.
func startNode(t testing.TB, opts nodeOptions) *node {
	t.Helper()
	dir := t.TempDir()
	n := &node{
		t:       t,
		public:  net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t))),
		ops:     net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t))),
		logPath: filepath.Join(dir, "learngate.log"),
		client: &http.Client{Transport: &http.Transport{
			MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: 30 * time.Second,
		}},
	}
	n.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"LEARNGATE_DATABASE_URL=" + opts.DatabaseURL,
		"LEARNGATE_HTTP_ADDR=" + n.public,
		"LEARNGATE_OPS_ADDR=" + n.ops,
		"LEARNGATE_OPS_TOKEN=" + opsToken,
		"LEARNGATE_BASE_DOMAINS=" + baseDomain,
		"LEARNGATE_PUBLIC_SCHEME=http",
		"LEARNGATE_BLOB_DIR=" + filepath.Join(dir, "blobs"),
		"LEARNGATE_SIGNING_KEY=soak-signing-key-0123456789abcdef",
		"LEARNGATE_SECRETS_KEY=c29hay1zZWNyZXRzLWtleS0wMTIzNDU2Nzg5YWJjZGVm", // "soak-secrets-key-0123456789abcdef"
		"LEARNGATE_WEBHOOK_ALLOW_PRIVATE=true",
		"LEARNGATE_SSO_ALLOW_PRIVATE=true",
		"LEARNGATE_WORKER=false",
		"LEARNGATE_LOG_LEVEL=warn",
		"LEARNGATE_SHUTDOWN_GRACE=2s",
	}
	if opts.RedisURL != "" {
		n.env = append(n.env, "LEARNGATE_REDIS_URL="+opts.RedisURL)
	}
	n.env = append(n.env, opts.Env...)
	t.Cleanup(func() { n.kill() })
	n.start()
	return n
}

// start runs the process (again) and waits for readiness.
func (n *node) start() {
	n.t.Helper()
	logFile, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		n.t.Fatalf("node log: %v", err)
	}
	defer logFile.Close()
	n.cmd = exec.Command(binary, "serve")
	n.cmd.Env = n.env
	n.cmd.Stdout, n.cmd.Stderr = logFile, logFile
	dieWithTest(n.cmd)
	if err := n.cmd.Start(); err != nil {
		n.t.Fatalf("start learngate serve: %v", err)
	}
	n.exited = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { _ = cmd.Wait(); close(done) }(n.cmd, n.exited)
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-n.exited:
			n.t.Fatalf("learngate serve exited during start:\n%s", n.log())
		default:
		}
		if resp, err := n.client.Get("http://" + n.public + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			n.t.Fatalf("learngate serve not ready within 30 s:\n%s", n.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sigkill kills the process with SIGKILL and waits until it is gone.
func (n *node) sigkill() {
	n.t.Helper()
	if n.cmd == nil {
		return
	}
	_ = n.cmd.Process.Signal(syscall.SIGKILL)
	<-n.exited
	n.cmd = nil
	n.client.CloseIdleConnections()
}

// kill is sigkill for cleanups.
func (n *node) kill() {
	if n.cmd != nil {
		_ = n.cmd.Process.Kill()
		<-n.exited
		n.cmd = nil
	}
}

// log returns what the process wrote so far (the tail of it).
func (n *node) log() string {
	b, _ := os.ReadFile(n.logPath)
	if len(b) > 8000 {
		b = b[len(b)-8000:]
	}
	return string(b)
}

// reply is an HTTP answer, or the transport error that stood for one.
type reply struct {
	Status  int
	Body    []byte
	Header  http.Header
	Err     error
	Elapsed time.Duration
}

// String describes the reply for failure messages.
func (r reply) String() string {
	if r.Err != nil {
		return "transport error: " + r.Err.Error()
	}
	return fmt.Sprintf("%d %s", r.Status, bytes.TrimSpace(r.Body))
}

// call sends one request to the node's public listener for the tenant
// slug, with key, bounded by timeout.
func (n *node) call(slug, key, method, path, body string, timeout time.Duration) reply {
	return n.send("http://"+n.public+path, slug+"."+baseDomain, method, "Authorization", key, body, timeout)
}

// opsCall sends one request to the node's ops listener.
func (n *node) opsCall(method, path, body string) reply {
	return n.send("http://"+n.ops+path, "", method, "Authorization", "Bearer "+opsToken, body, 30*time.Second)
}

func (n *node) send(url, host, method, authHeader, auth, body string, timeout time.Duration) reply {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return reply{Err: err}
	}
	if host != "" {
		req.Host = host
	}
	req.Header.Set(authHeader, auth)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	r := n.do(req)
	r.Elapsed = time.Since(start)
	if n.observe != nil {
		n.observe(host, r)
	}
	return r
}

// do sends req and reads the whole answer.
func (n *node) do(req *http.Request) reply {
	resp, err := n.client.Do(req)
	if err != nil {
		return reply{Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Body: b, Header: resp.Header, Err: err}
}

// createTenant onboards slug through the ops API (the real registry) with a
// rate limit of limit requests a minute, and returns its API key.
func (n *node) createTenant(slug string, limit int) string {
	n.t.Helper()
	key, err := n.tryCreateTenant(slug, limit)
	if err != nil {
		n.t.Fatal(err)
	}
	return key
}

// tryCreateTenant is createTenant for other goroutines than the test's.
func (n *node) tryCreateTenant(slug string, limit int) (string, error) {
	r := n.opsCall(http.MethodPost, "/ops/v1/tenants",
		fmt.Sprintf(`{"slug":%q,"name":%q,"rate_limit_per_minute":%d}`, slug, "Soak "+slug, limit))
	if r.Err != nil || r.Status != http.StatusCreated {
		return "", fmt.Errorf("create tenant %s: %s", slug, r)
	}
	var out struct {
		APIKey string `json:"api_key"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil || out.APIKey == "" {
		return "", fmt.Errorf("create tenant %s: no api_key in %s", slug, r)
	}
	return out.APIKey, nil
}

// freshDatabase is a new empty database on the shared test server,
// dropped when the test ends; serve migrates it on start.
func freshDatabase(t testing.TB) string {
	t.Helper()
	return storetest.NewDatabase(t)
}

// storeMax raises m to d when d is larger.
func storeMax(m *atomic.Int64, d time.Duration) {
	for {
		old := m.Load()
		if int64(d) <= old || m.CompareAndSwap(old, int64(d)) {
			return
		}
	}
}

// startLoad runs worker(0) .. worker(n-1) in goroutines and returns the
// function that sets stop and waits for them; calling it again is harmless.
func startLoad(n int, stop *atomic.Bool, worker func(w int)) (stopLoad func()) {
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() { worker(w) })
	}
	return func() { stop.Store(true); wg.Wait() }
}
