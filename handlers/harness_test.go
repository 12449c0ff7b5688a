package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"

	"learngate/blob"
	"learngate/handlers/handlertest"
	"learngate/handlers/ops"
	"learngate/handlers/papi"
	"learngate/handlers/scimapi"
	"learngate/handlers/web"
	"learngate/store"
	"learngate/tenant"
)

func TestMain(m *testing.M) {
	gin.SetMode(gin.ReleaseMode)
	os.Exit(m.Run())
}

// testSigningKey signs the certificate download links of every test server.
var testSigningKey = handlertest.SigningKey

// testOpsToken is the ops bearer token of every test server.
const testOpsToken = handlertest.OpsToken

// harness is one learngate node over a test database: the real routers,
// registry, limiter and metrics.
type harness struct {
	t      testing.TB
	db     *store.DB
	dbURL  string
	redis  *redis.Client
	server *Server
	// public and ops are the routers, wrapped so that every exchange is
	// checked against the OpenAPI document (checkContract).
	public   http.Handler
	ops      http.Handler
	registry *tenant.Registry
	// blobs is the node's certificate store (a folder of the test's own).
	blobs *blob.Local
}

// harnessOptions varies a node; the zero value is a Redis-backed node.
type harnessOptions struct {
	// Store replaces the Redis limiter store (e.g. a MemoryStore with a fake clock).
	Store limiter.Store
	// DB and DBURL reuse another node's database (two nodes, one database).
	DB    *store.DB
	DBURL string
	// Now is the limiter's clock.
	Now func() time.Time
	// CursorKey signs list cursors; default testSigningKey, as every node
	// of a deployment shares LEARNGATE_SIGNING_KEY.
	CursorKey []byte
}

// newHarness builds a node on a fresh database (or opts.DB), with a Redis
// limiter whose keys are private to this harness.
func newHarness(t testing.TB, opts harnessOptions) *harness {
	t.Helper()
	n := handlertest.NewNode(t, handlertest.NodeOptions{Store: opts.Store, DB: opts.DB, DBURL: opts.DBURL, Now: opts.Now})
	h := &harness{t: t, db: n.DB, dbURL: n.DBURL, redis: n.Redis, registry: n.Registry, blobs: n.Blobs}
	blobs, gate, metrics := n.Blobs, n.Gate, n.Metrics
	cursorKey := opts.CursorKey
	if cursorKey == nil {
		cursorKey = testSigningKey
	}
	h.server = &Server{
		Gate: gate, PublicScheme: "http",
		Web:  web.Deps{CursorKey: cursorKey, Blobs: blobs, PublicScheme: "http", Sessions: h.db, SAMLReplays: h.db},
		Ops:  ops.Deps{Tenants: h.registry, Token: testOpsToken, Metrics: metrics.Registry},
		SCIM: scimapi.Deps{PublicScheme: "http"},
		Papi: papi.Deps{Blobs: blobs, Downloads: blobs, PublicScheme: "http", CursorKey: cursorKey},
	}
	public, err := h.server.PublicRouter()
	if err != nil {
		t.Fatalf("public router: %v", err)
	}
	h.public = checkContract(t, public, publicListener)
	h.ops = checkContract(t, h.server.OpsRouter(), opsListener)
	return h
}

// createTenant onboards a tenant through the registry and returns its key.
func (h *harness) createTenant(slug string, domains ...string) string {
	h.t.Helper()
	_, key, err := h.registry.Create(context.Background(), tenant.NewTenantInput{Slug: slug, CustomDomains: domains})
	if err != nil {
		h.t.Fatalf("create tenant %s: %v", slug, err)
	}
	return key
}

// request describes one HTTP call to a router.
type request struct {
	method  string
	host    string
	path    string
	body    string
	headers map[string]string
	remote  string // client address, default 192.0.2.1:1234
}

// do sends r through router and returns the recorded response.
func do(router http.Handler, r request) *httptest.ResponseRecorder {
	return handlertest.Do(router, handlertest.Request{Method: r.method, Host: r.host, Path: r.path, Body: r.body,
		Headers: r.headers, Remote: r.remote})
}

// papi sends an authenticated Public API call for the tenant at host.
func (h *harness) papi(method, host, path, key, body string) *httptest.ResponseRecorder {
	headers := map[string]string{"Authorization": key}
	if body != "" {
		headers["Content-Type"] = "application/json"
	}
	return do(h.public, request{method: method, host: host, path: path, body: body, headers: headers})
}

// opsCall sends an ops API call with the ops token.
func (h *harness) opsCall(method, path, body string) *httptest.ResponseRecorder {
	headers := map[string]string{"Authorization": "Bearer " + testOpsToken}
	if body != "" {
		headers["Content-Type"] = "application/json"
	}
	return do(h.ops, request{method: method, path: path, body: body, headers: headers})
}

// assertResponse checks status and exact (compacted) JSON body.
func assertResponse(t testing.TB, w *httptest.ResponseRecorder, status int, body string) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status = %d, want %d; body %s", w.Code, status, w.Body.String())
	}
	if body == "" {
		return
	}
	var want, got bytes.Buffer
	if err := json.Compact(&want, []byte(body)); err != nil {
		t.Fatalf("bad expected body %q: %v", body, err)
	}
	if err := json.Compact(&got, w.Body.Bytes()); err != nil {
		t.Fatalf("response body is not JSON: %q", w.Body.String())
	}
	if got.String() != want.String() {
		t.Fatalf("body = %s, want %s", got.String(), want.String())
	}
}

// decode unmarshals a response body into v.
func decode(t testing.TB, w *httptest.ResponseRecorder, v any) {
	t.Helper()
	if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
		t.Fatalf("decode %q: %v", w.Body.String(), err)
	}
}

// manualClock is a clock the test moves by hand, for the limiter and a MemoryStore.
type manualClock struct {
	mu    sync.Mutex
	start time.Time
	now   time.Time
}

func newManualClock() *manualClock {
	return manualClockAt(time.Unix(1_800_000_000, 0)) // a whole second, so Reset and Retry-After are exact
}

// manualClockAt returns a clock standing at start.
func manualClockAt(start time.Time) *manualClock {
	return &manualClock{start: start, now: start}
}

// Now returns the clock's time.
func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// at sets the clock to d after its start.
func (c *manualClock) at(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.start.Add(d)
}

// advance moves the clock on by d.
func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
