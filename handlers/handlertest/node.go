package handlertest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"

	"learngate/blob"
	"learngate/handlers/httpx"
	"learngate/ratelimit"
	"learngate/store"
	"learngate/store/storetest"
	"learngate/tenant"
)

// SigningKey signs the list cursors, page state and certificate download
// links of every test node, as every node of a deployment shares
// LEARNGATE_SIGNING_KEY.
var SigningKey = []byte("handlers-test-signing-key-012345")

// OpsToken is the ops bearer token of every test node.
const OpsToken = "test-ops-token-0123456789"

// NodeOptions varies a node; the zero value is a Redis-backed node on a
// fresh database.
type NodeOptions struct {
	// Store replaces the Redis limiter store (e.g. a MemoryStore with a fake clock).
	Store limiter.Store
	// DB and DBURL reuse another node's database (two nodes, one database).
	DB    *store.DB
	DBURL string
	// Now is the limiter's and the chain's clock.
	Now func() time.Time
}

// Node is what the test nodes of the handlers packages share: a database,
// a Redis client, the running registry, a certificate store of the test's
// own and the shared chain (httpx.Gate) over them. Each package's harness
// builds its routers on top.
type Node struct {
	DB       *store.DB
	DBURL    string
	Redis    *redis.Client
	Registry *tenant.Registry
	Blobs    *blob.Local
	Metrics  *httpx.Metrics
	Gate     *httpx.Gate
}

// NewNode builds a node on a fresh database (or opts.DB), with a Redis
// limiter whose keys are private to this node; everything it starts stops
// with t.
func NewNode(t testing.TB, opts NodeOptions) *Node {
	t.Helper()
	n := &Node{DB: opts.DB, DBURL: opts.DBURL}
	if n.DB == nil {
		n.DB, n.DBURL = storetest.NewDB(t)
	}
	ropts, err := redis.ParseURL(storetest.RedisURL())
	if err != nil {
		t.Fatalf("parse redis url: %v", err)
	}
	n.Redis = redis.NewClient(ropts)
	t.Cleanup(func() { n.Redis.Close() })

	if n.Blobs, err = blob.NewLocal(t.TempDir(), SigningKey); err != nil {
		t.Fatalf("blob store: %v", err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	n.Registry = tenant.NewRegistry(n.DB, tenant.Options{
		BaseDomains: []string{"learngate.localhost", "learn.example.com"},
		Redis:       n.Redis, Logger: logger, PollInterval: 100 * time.Millisecond, Blobs: n.Blobs,
		SSOAllowPrivate: true, // the tests' identity providers listen on 127.0.0.1
	})
	ctx, cancel := context.WithCancel(context.Background())
	go n.Registry.Run(ctx)
	t.Cleanup(cancel)

	n.Metrics = httpx.NewMetrics()
	var st limiter.Store = ratelimit.NewRedisStore(n.Redis, "lgtest:"+storetest.RandomSuffix()+":")
	if opts.Store != nil {
		st = opts.Store
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	n.Gate = &httpx.Gate{
		DB: n.DB, Registry: n.Registry, Metrics: n.Metrics, Logger: logger,
		Limiter:               ratelimit.New(st, ratelimit.Options{Window: time.Minute, Logger: logger, OnFailOpen: n.Metrics.LimiterFailedOpen, Now: now}),
		Ready:                 func(ctx context.Context) error { return n.DB.Ping(ctx) },
		RedisReady:            func(ctx context.Context) error { return n.Redis.Ping(ctx).Err() },
		AuthFailuresPerMinute: 20, Now: now,
	}
	return n
}
