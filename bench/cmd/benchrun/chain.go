package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"learngate/bench/charts"
	"learngate/bench/datagen"
	"learngate/bench/load"
)

// The chain scenario (docs/performance.md, "Chain overhead"): GET
// /papi/ping through learngate's whole public chain against the
// baseline's bare gin route, one request at a time, with learngate's
// limiter reaching Redis over TCP (the run's Redis) and over a Unix socket
// (a throwaway redis-server started for the run).

// chainTargetMicros is the target of the p50 difference.
const chainTargetMicros = 150

// chainArm is one measured series of the chain scenario.
type chainArm struct {
	label, short string
	t            target
	rounds       []load.Result
	merged       load.Result
	mismatch     string
}

// runChain starts learngate with Redis over TCP, a throwaway Unix-socket
// redis-server and a second learngate using it, and the baseline; checks
// that each learngate's ping answers the bare route's bytes; measures
// them in interleaved rounds; and adds the table and bench-chain.svg to rep.
func runChain(ctx context.Context, o options, rep *report, tenants []datagen.Tenant, dbURL, lgBin, blBin string) error {
	big, ok := datagen.Find(tenants, datagen.BigSlug)
	if !ok {
		return fmt.Errorf("chain: no tenant %s in the dataset", datagen.BigSlug)
	}
	tcpAddr, tcpOps, blAddr, err := freeAddrs3()
	if err != nil {
		return err
	}
	host := big.Slug + "." + baseDomain
	arms := []*chainArm{{label: "GET /papi/ping, limiter's Redis over TCP", short: "Redis over TCP",
		t: target{base: "http://" + tcpAddr, host: host, key: big.Key}}}
	bare := &chainArm{label: "bare gin route", short: "bare gin", t: target{base: "http://" + blAddr, host: host}}

	lgTCP, err := start("learngate", lgBin, learngateEnv(dbURL, o.redisURL, tcpAddr, tcpOps), "serve")
	if err != nil {
		return err
	}
	defer lgTCP.stop()
	bl, err := start("baseline", blBin, nil, "-addr", blAddr, "-db", dbURL, "-schema", big.Schema, "-slug", big.Slug)
	if err != nil {
		return err
	}
	defer bl.stop()
	ready := []struct {
		p   *process
		url string
	}{{lgTCP, "http://" + tcpAddr + "/healthz"}, {bl, "http://" + blAddr + "/papi/ping"}}

	unix := &chainArm{label: "GET /papi/ping, limiter's Redis over a Unix socket", short: "Redis over a Unix socket"}
	redisSrv, sock, err := startUnixRedis()
	if err != nil {
		unix.mismatch = err.Error()
		progress("chain: no Unix-socket Redis, that row is not measured: %v", err)
	} else {
		defer func() {
			redisSrv.stop()
			_ = os.RemoveAll(filepath.Dir(sock))
		}()
		unixAddr, unixOps, err := freeAddrs2()
		if err != nil {
			return err
		}
		lgUnix, err := start("learngate", lgBin, learngateEnv(dbURL, "unix://"+sock+"?db=0", unixAddr, unixOps), "serve")
		if err != nil {
			return err
		}
		defer lgUnix.stop()
		unix.t = target{base: "http://" + unixAddr, host: host, key: big.Key}
		ready = append(ready, struct {
			p   *process
			url string
		}{lgUnix, "http://" + unixAddr + "/healthz"})
	}
	arms = append(arms, unix)
	for _, r := range ready {
		if err := r.p.waitReady(r.url, "localhost"); err != nil {
			return err
		}
	}
	progress("chain: learngate (TCP Redis) on %s, learngate (Unix socket %s) on %s, bare gin on %s",
		tcpAddr, sock, unix.t.base, blAddr)

	client := load.NewClient(1)
	for _, a := range arms {
		if a.mismatch != "" {
			continue
		}
		if _, err := checkIdentical(client, scenario{name: a.label, learngate: a.t.get("/papi/ping"), bl: bare.t.get("/papi/ping")}); err != nil {
			a.mismatch = err.Error()
			progress("chain: %v", err)
		}
	}
	// Each round: learngate over TCP, the bare route, learngate over the socket.
	order := []*chainArm{arms[0], bare, arms[1]}
	for r := range o.rounds {
		for _, a := range order {
			if a.mismatch != "" {
				continue
			}
			res := load.Run(ctx, client, load.Config{Concurrency: 1, Warmup: o.warmup, Duration: o.duration, Request: a.t.get("/papi/ping")})
			a.rounds = append(a.rounds, res)
			progress("  chain round %d %-26s %7.1f req/s p50 %s p99 %s errors %d", r+1, a.short, res.RPS(),
				ms(res.P50), ms(res.P99), res.Errors)
		}
	}
	for _, a := range order {
		a.merged = load.Merge(a.rounds)
	}
	rep.sections = append(rep.sections, chainSection(arms, bare))
	return chainChart(rep, arms, bare)
}

// startUnixRedis starts a throwaway redis-server listening only on a Unix
// socket in a new temporary folder (no TCP port, nothing saved) and waits
// until it answers PING. It installs nothing: without redis-server on PATH
// it returns an error and the row is not measured.
func startUnixRedis() (*process, string, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, "", fmt.Errorf("redis-server is not on PATH: %w", err)
	}
	dir, err := os.MkdirTemp("", "learngate-bench-redis-")
	if err != nil {
		return nil, "", err
	}
	sock := filepath.Join(dir, "redis.sock")
	p, err := start("redis-server", bin, nil, "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
		"--save", "", "--appendonly", "no", "--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, "", err
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := pingUnix(sock); err == nil {
			return p, sock, nil
		} else if time.Now().After(deadline) {
			p.stop()
			_ = os.RemoveAll(dir)
			return nil, "", fmt.Errorf("redis-server on %s did not answer within 5 s: %w", sock, err)
		}
		select {
		case err := <-p.done:
			_ = os.RemoveAll(dir)
			return nil, "", fmt.Errorf("redis-server exited: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// pingUnix sends PING to the Redis on sock and expects +PONG.
func pingUnix(sock string) error {
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// freeAddrs2 returns two free loopback addresses.
func freeAddrs2() (string, string, error) {
	a, b, _, err := freeAddrs3()
	return a, b, err
}

// chainSection is the markdown of the chain scenario.
func chainSection(arms []*chainArm, bare *chainArm) string {
	var s strings.Builder
	s.WriteString("### Chain overhead\n\n")
	s.WriteString("One request at a time, interleaved rounds (learngate over TCP, the bare gin route, learngate over the socket).\n\n")
	s.WriteString("| scenario | req/s | p50 | p99 | bare gin p50 | p99 | difference | target | result |\n")
	s.WriteString("|---|---:|---:|---:|---:|---:|---:|---|---|\n")
	for _, a := range arms {
		if a.mismatch != "" {
			fmt.Fprintf(&s, "| %s | | | | | | | ≤ +0.15 ms p50 | FAIL: not measured (%.160s) |\n", a.label,
				strings.ReplaceAll(a.mismatch, "\n", " "))
			continue
		}
		d := a.merged.P50 - bare.merged.P50
		result := map[bool]string{true: "pass", false: "FAIL"}[d <= chainTargetMicros*time.Microsecond]
		if a.merged.Errors > 0 || bare.merged.Errors > 0 || bare.mismatch != "" || bare.merged.Requests == 0 {
			result = fmt.Sprintf("FAIL (errors: learngate %d, bare %d)", a.merged.Errors, bare.merged.Errors)
		}
		sign := "+"
		if d < 0 {
			sign = "−"
			d = -d
		}
		fmt.Fprintf(&s, "| %s | %.0f | %s | %s | %s | %s | %s%s ms p50 | ≤ +0.15 ms | %s |\n", a.label, a.merged.RPS(),
			ms(a.merged.P50), ms(a.merged.P99), ms(bare.merged.P50), ms(bare.merged.P99), sign, msf(d), result)
	}
	s.WriteString("\nBodies were byte-identical to the bare route's before measuring.\n")
	return s.String()
}

// chainChart draws bench-chain.svg: the p50 of each learngate and of the
// bare route (the same bare figure in both groups), the measure of the
// target (p99 is in the table: on this scale it would hide the p50s).
func chainChart(rep *report, arms []*chainArm, bare *chainArm) error {
	var labels []string
	var lg, bareP50 []float64
	msOf := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	for _, a := range arms {
		labels = append(labels, a.short)
		if a.mismatch != "" || a.merged.Requests == 0 {
			lg = append(lg, 0)
		} else {
			lg = append(lg, msOf(a.merged.P50))
		}
		bareP50 = append(bareP50, msOf(bare.merged.P50))
	}
	dir := chartDir(rep.o)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, "bench-chain.svg")
	err := charts.Bars(path, "GET /papi/ping against a bare gin route, one request at a time", "p50 (ms)", labels,
		[]charts.Series{{Name: "learngate", Y: lg}, {Name: "bare gin route", Y: bareP50}})
	if err != nil {
		return err
	}
	progress("chain: chart %s", path)
	return nil
}
