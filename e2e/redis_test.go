//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// masterOf says which master of the cluster holds key.
func (topo *topology) masterOf(ctx context.Context, cc *redis.ClusterClient, key string) (string, error) {
	slot, err := cc.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		return "", err
	}
	slots, err := cc.ClusterSlots(ctx).Result()
	if err != nil {
		return "", err
	}
	for _, s := range slots {
		if int64(s.Start) <= slot && slot <= int64(s.End) && len(s.Nodes) > 0 {
			return s.Nodes[0].Addr, nil
		}
	}
	return "", fmt.Errorf("no master serves slot %d", slot)
}

// restartMaster kills the redis-server at addr with SIGKILL (a crash),
// waits outage and starts it again with scripts/redis-cluster.sh
// restart-node (same port, cluster config and folder), as a supervisor
// would; scripts/e2e.sh stops it at the end like the others.
func restartMaster(ctx context.Context, addr string, outage time.Duration) error {
	one := redis.NewClient(&redis.Options{Addr: addr})
	defer one.Close()
	info, err := one.Info(ctx, "server").Result()
	if err != nil {
		return err
	}
	pid := 0
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			pid, _ = strconv.Atoi(v)
		}
	}
	if pid == 0 {
		return fmt.Errorf("no process_id in INFO of %s", addr)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return err
	}
	for i := 0; i < 50 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(outage)
	_, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command("../scripts/redis-cluster.sh", "restart-node", port, os.Getenv("E2E_REDIS_DIR"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("redis-cluster.sh restart-node %s: %v: %s", port, err, out)
	}
	for i := 0; i < 100; i++ {
		if s, err := one.ClusterInfo(ctx).Result(); err == nil && strings.Contains(s, "cluster_state:ok") {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not rejoin the cluster within 10 s", addr)
}

// redisCluster is property 7: the limiter's keys live on several masters
// and its limits hold there (property 3 checked the budgets); no CROSSSLOT
// or MOVED error in any log; a master killed and restarted mid-load fails
// no request, and limiting on its keys resumes.
func (r *e2eRun) redisCluster(t *testing.T, figures *[]string) {
	topo := r.topo
	ctx := context.Background()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: topo.redisAddrs})
	defer cc.Close()
	masters := map[string][]string{}
	var probe tenant
	var probeMaster string
	for _, b := range r.budgets {
		key := fmt.Sprintf("learngate:rl:tenant:%d", b.id)
		addr, err := topo.masterOf(ctx, cc, key)
		if err != nil {
			t.Fatal(err)
		}
		n, err := cc.Exists(ctx, key).Result()
		if err != nil || n != 1 {
			t.Errorf("limiter key %s on %s: exists %d, %v", key, addr, n, err)
		}
		masters[addr] = append(masters[addr], b.slug)
		probe, probeMaster = b, addr
	}
	if len(masters) < 2 {
		t.Errorf("the budget tenants' limiter keys are all on one master: %v", masters)
	}
	*figures = append(*figures, fmt.Sprintf("the %d budget tenants' limiter keys on %d masters; %d budgets held (property 3)",
		len(r.budgets), len(masters), r.budgetsHeld))
	if r.budgetsHeld != len(r.budgets) {
		t.Errorf("the limit held for %d of %d budget tenants", r.budgetsHeld, len(r.budgets))
	}

	// Load on the probe tenant (limit raised) while its key's master is
	// killed and restarted.
	if a := topo.opsCall(0, http.MethodPatch, "/ops/v1/tenants/"+probe.slug, map[string]any{"rate_limit_per_minute": 1_000_000}); a.status != 200 {
		t.Fatalf("raise limit: %s", a)
	}
	waitBoth(t, "raised limit", time.Now(), func(n int) bool {
		return topo.node(n, http.MethodGet, topo.host(probe.slug), "/ping", probe.key).header.Get("X-RateLimit-Limit") == "1000000"
	})
	c := topo.caddyClient("127.0.0.4")
	done := make(chan error, 1)
	go func() {
		time.Sleep(time.Second)
		done <- restartMaster(ctx, probeMaster, time.Second)
	}()
	ops := load(4, 5*time.Second, 2000, func(w, i int) op {
		if i%2 == 0 {
			name := fmt.Sprintf("rr-%d-%d", w, i)
			return op{answer: topo.papi(c, http.MethodPost, probe.slug, "/users", probe.key, newUser(name)), wrote: name}
		}
		return op{answer: topo.papi(c, http.MethodGet, probe.slug, "/ping", probe.key, nil)}
	})
	if err := <-done; err != nil {
		t.Fatalf("restart master %s: %v", probeMaster, err)
	}
	failed, slowest := 0, time.Duration(0)
	for _, o := range ops {
		slowest = max(slowest, o.took)
		if o.status != 200 {
			failed++
			if failed <= 3 {
				t.Errorf("during the master restart: %s", o.answer)
			}
		}
	}
	if slowest > 2*time.Second {
		t.Errorf("slowest answer during the master restart %v, over 2 s", slowest)
	}
	*figures = append(*figures, fmt.Sprintf("master %s killed and restarted mid-load: %d requests, %d failed, slowest %s",
		probeMaster, len(ops), failed, ms(slowest)))

	// Limiting on the restarted master resumes: limit back to budgetLimit,
	// and within 5 s the hits are counted again, then 429.
	if a := topo.opsCall(0, http.MethodPatch, "/ops/v1/tenants/"+probe.slug, map[string]any{"rate_limit_per_minute": budgetLimit}); a.status != 200 {
		t.Fatalf("lower limit: %s", a)
	}
	start := time.Now()
	got429 := false
	for i := 0; i < 200 && time.Since(start) < 5*time.Second; i++ {
		a := topo.node(i%2, http.MethodGet, topo.host(probe.slug), "/ping", probe.key)
		if a.status == http.StatusTooManyRequests {
			got429 = true
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !got429 {
		t.Errorf("no 429 for %s within 5 s of the restart: the limiter does not count on the restarted master", probe.slug)
	} else {
		*figures = append(*figures, "limit enforced again "+ms(time.Since(start))+" after the restart")
	}

	n, first := topo.grepLogs(t, "CROSSSLOT", "MOVED")
	if n > 0 {
		t.Errorf("%d log lines with CROSSSLOT or MOVED, first: %s", n, first)
	}
	*figures = append(*figures, fmt.Sprintf("%d CROSSSLOT/MOVED lines in the logs", n))
}
