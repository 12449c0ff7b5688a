package web

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
	"learngate/handlers/httpx"
	"learngate/handlers/ops"
	"learngate/handlers/papi"
	"learngate/store"
	"learngate/tenant"
)

// The learner pages' own harness: a node whose public router is the
// pages behind the public router's steps (request log, HSTS, recovery,
// OnPages), with the Public API beside them and the ops API on its own
// router, through which the tests set tenants, users and identity
// providers up. The tests that need the whole public router (the chain
// with every application, the contract checks) are package handlers'.

func TestMain(m *testing.M) {
	gin.SetMode(gin.ReleaseMode)
	os.Exit(m.Run())
}

// testSigningKey signs the pages' state and the certificate download links.
var testSigningKey = handlertest.SigningKey

// testOpsToken is the ops bearer token of every test node.
const testOpsToken = handlertest.OpsToken

// harness is one learngate node over a test database: the learner pages
// (server, the Pages of the router built last), the Public API and the
// ops API over the real registry, limiter and metrics.
type harness struct {
	t     testing.TB
	db    *store.DB
	dbURL string
	redis *redis.Client
	// gate is the shared chain; web, papiDeps and opsDeps are what the
	// pages, the Public API and the ops API depend on besides it.
	gate     *httpx.Gate
	web      Deps
	papiDeps papi.Deps
	opsDeps  ops.Deps
	// server is the learner pages of the router built last (pagesRouter).
	server   *Pages
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
	// Now is the limiter's and the node's clock.
	Now func() time.Time
	// CursorKey signs the pages' state; default testSigningKey, as every
	// node of a deployment shares LEARNGATE_SIGNING_KEY.
	CursorKey []byte
}

// newHarness builds a node on a fresh database (or opts.DB), with a Redis
// limiter whose keys are private to this harness.
func newHarness(t testing.TB, opts harnessOptions) *harness {
	t.Helper()
	n := handlertest.NewNode(t, handlertest.NodeOptions{Store: opts.Store, DB: opts.DB, DBURL: opts.DBURL, Now: opts.Now})
	h := &harness{t: t, db: n.DB, dbURL: n.DBURL, redis: n.Redis, registry: n.Registry, blobs: n.Blobs, gate: n.Gate}
	blobs, metrics := n.Blobs, n.Metrics
	cursorKey := opts.CursorKey
	if cursorKey == nil {
		cursorKey = testSigningKey
	}
	h.web = Deps{CursorKey: cursorKey, Blobs: blobs, PublicScheme: "http", Sessions: h.db, SAMLReplays: h.db}
	h.papiDeps = papi.Deps{Blobs: blobs, Downloads: blobs, PublicScheme: "http", CursorKey: cursorKey}
	h.opsDeps = ops.Deps{Tenants: h.registry, Token: testOpsToken, Metrics: metrics.Registry}
	h.public = h.pagesRouter(t)
	h.ops = h.opsRouter()
	return h
}

// pagesRouter returns a public router of the node: the learner pages
// (whose Pages become h.server) and the Public API, behind the steps of
// handlers.Server.PublicRouter.
func (h *harness) pagesRouter(t testing.TB) *gin.Engine {
	t.Helper()
	h.gate.Init()
	pages, err := New(h.gate, &h.web)
	if err != nil {
		t.Fatal(err)
	}
	h.server = pages
	r := gin.New()
	r.HandleMethodNotAllowed = false
	if err := r.SetTrustedProxies(nil); err != nil {
		t.Fatal(err)
	}
	r.Use(h.gate.RequestLog("public"), httpx.StrictTransport(h.web.PublicScheme == "https"), gin.CustomRecovery(h.gate.Recovered), pages.OnPages)
	r.GET("/favicon.ico", httpx.Favicon)
	pages.Routes(r)
	api := papi.New(h.gate, &h.papiDeps)
	api.Routes(r)
	r.NoRoute(append(api.Unmatched(), httpx.NotFound)...)
	return r
}

// opsRouter returns the node's ops router, as handlers.Server.OpsRouter builds it.
func (h *harness) opsRouter() *gin.Engine {
	r := gin.New()
	r.Use(h.gate.RequestLog("ops"), gin.CustomRecovery(h.gate.Recovered), ops.Auth(h.opsDeps.Token), h.gate.LimitBody)
	ops.New(h.opsDeps).Routes(r)
	r.NoRoute(httpx.NotFound)
	return r
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
	return h.opsRaw(method, path, body)
}

// opsRaw sends an ops call through the ops router itself.
func (h *harness) opsRaw(method, path, body string) *httptest.ResponseRecorder {
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

// stripField returns the JSON object body without field, re-marshalled
// with sorted keys.
func stripField(t *testing.T, body []byte, field string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	delete(m, field)
	out, _ := json.Marshal(m)
	return string(out)
}

// manualClock is a clock the test moves by hand.
type manualClock struct {
	mu    sync.Mutex
	start time.Time
	now   time.Time
}

func newManualClock() *manualClock {
	start := time.Unix(1_800_000_000, 0) // a whole second, so Reset and Retry-After are exact
	return &manualClock{start: start, now: start}
}

// Now returns the clock's time.
func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// advance moves the clock on by d.
func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
