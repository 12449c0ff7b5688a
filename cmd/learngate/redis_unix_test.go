package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/redis/go-redis/v9"

	"learngate/handlers/httpx"
	"learngate/store/storetest"
)

// TestRedisUnixSocket names a Redis listening only on a Unix socket with
// unix://: the limiter counts there (no fail-open) and /readyz says Redis
// is up.
func TestRedisUnixSocket(t *testing.T) {
	sock := storetest.StartUnixRedis(t)
	migratedCLIEnv(t)
	t.Setenv("LEARNGATE_REDIS_URL", "unix://"+sock+"?db=2")
	mustRun(t, "migrate", "-q")
	a, err := openApp(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	if o := a.redis.(*redis.Client).Options(); o.Network != "unix" || o.Addr != sock || o.DB != 2 {
		t.Fatalf("client options: network %s, addr %s, db %d", o.Network, o.Addr, o.DB)
	}
	public, err := newServer(a, blobStores{}).PublicRouter()
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	public.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if w.Code != http.StatusOK || w.Body.String() != `{"database":"up","redis":"up"}` {
		t.Fatalf("/readyz: %d %s", w.Code, w.Body.String())
	}
	l := newLimiter(a, httpx.NewMetrics())
	for i, want := range []bool{true, true, false} {
		r := l.Allow(context.Background(), "tenant:1", 2)
		if r.FailedOpen || r.Allowed != want {
			t.Fatalf("call %d: %+v, want allowed=%v without failing open", i+1, r, want)
		}
	}
	n, err := a.redis.ZCard(context.Background(), "learngate:rl:tenant:1").Result()
	if err != nil || n != 2 {
		t.Fatalf("hits in Redis db 2: %d, %v; want 2", n, err)
	}
}
