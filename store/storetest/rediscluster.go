package storetest

import (
	"errors"
	"math/rand/v2"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// RedisCluster is a private Redis Cluster of three masters on 127.0.0.1
// started by scripts/redis-cluster.sh.
type RedisCluster struct {
	// URL is the cluster's LEARNGATE_REDIS_URL (redis+cluster://...).
	URL string
	// Ports are the masters' ports.
	Ports []int
}

// StartRedisCluster starts a three-master Redis Cluster on free loopback
// ports until tb ends. tb is skipped with the reason when redis-server is
// not installed and cannot be.
func StartRedisCluster(tb testing.TB) RedisCluster {
	tb.Helper()
	script := repoRoot(tb) + "/scripts/redis-cluster.sh"
	dir := tb.TempDir()
	for range 20 {
		// A cluster bus listens on port+10000 too: stay below 55535.
		base := 20000 + rand.IntN(30000)
		if !portsFree(base, base+1, base+2, base+10000, base+10001, base+10002) {
			continue
		}
		out, err := exec.Command(script, "start", strconv.Itoa(base), dir).Output()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 3 {
			tb.Skipf("Redis Cluster is not available: %s", exit.Stderr)
		}
		if err != nil {
			tb.Fatalf("start Redis Cluster: %v\n%s", err, errText(err))
		}
		tb.Cleanup(func() {
			if out, err := exec.Command(script, "stop", strconv.Itoa(base), dir).CombinedOutput(); err != nil {
				tb.Logf("stop Redis Cluster: %v\n%s", err, out)
			}
		})
		return RedisCluster{URL: strings.TrimSpace(string(out)), Ports: []int{base, base + 1, base + 2}}
	}
	tb.Fatal("found no three free ports for a Redis Cluster")
	return RedisCluster{}
}

// portsFree reports whether nobody listens on any of ports on 127.0.0.1.
func portsFree(ports ...int) bool {
	for _, p := range ports {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			return false
		}
		ln.Close()
	}
	return true
}

// errText is the standard error of a failed command, when it kept one.
func errText(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(exit.Stderr)
	}
	return ""
}
