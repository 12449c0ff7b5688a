package main

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "github.com/lib/pq" // the PostgreSQL driver

	"learngate/store/storetest"
)

// process is a server the run started; stop ends it.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan error
}

// start runs bin with args and env (added to this process's), its output
// (warnings and errors only: learngate logs at warn) going to stderr.
func start(name, bin string, env []string, args ...string) (*process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	return p, nil
}

// stop sends SIGTERM, waits up to 10 s, then kills.
func (p *process) stop() {
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// waitReady polls url until it answers 200, the process dies or 30 s pass.
func (p *process) waitReady(u string, host string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-p.done:
			return fmt.Errorf("%s exited: %v", p.name, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s not ready at %s after 30 s", p.name, u)
}

// freeAddr returns a loopback address with a port nobody listens on now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// repoRoot is the learngate repository: the nearest directory, from the
// working directory up, whose go.mod is the learngate module. The harness is
// a module of its own (bench/go.mod) and may be run from bench/ or below.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if mod, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modulePath(mod) == "learngate" {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no learngate go.mod above the working directory")
		}
		dir = parent
	}
}

// modulePath is the module path of a go.mod's text.
func modulePath(mod []byte) string {
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return f[1]
		}
	}
	return ""
}

// buildServers compiles learngate (the module at root) and, with
// baseline, the baseline (the bench module, root/bench) into dir and
// returns their paths (blBin "" without baseline).
func buildServers(ctx context.Context, root, dir string, baseline bool) (lgBin, blBin string, err error) {
	lgBin = filepath.Join(dir, "learngate-bench")
	if err := build(ctx, root, "./cmd/learngate", lgBin); err != nil {
		return "", "", err
	}
	if !baseline {
		return lgBin, "", nil
	}
	blBin = filepath.Join(dir, "bench-baseline")
	if err := build(ctx, filepath.Join(root, "bench"), "./baseline", blBin); err != nil {
		return "", "", err
	}
	return lgBin, blBin, nil
}

// build compiles pkg (of the module at root) into bin.
func build(ctx context.Context, root, pkg, bin string) error {
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

// databaseURL is adminURL with the database name replaced by name.
func databaseURL(adminURL, name string) (string, error) {
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

// createDatabase creates database name when missing; with fresh it drops
// it first.
func createDatabase(ctx context.Context, adminURL, name string, fresh bool) error {
	admin, err := sql.Open("postgres", adminURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	if fresh {
		if _, err := admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			return fmt.Errorf("drop database %s: %w", name, err)
		}
		if err := storetest.DropCitusDatabase(adminURL, name); err != nil {
			return err
		}
	}
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		if strings.Contains(err.Error(), "already exists") {
			return nil
		}
		return fmt.Errorf("create database %s: %w", name, err)
	}
	// On a Citus coordinator the new database becomes a cluster of its own
	// over the coordinator's workers, schema-based sharding on.
	if _, err := storetest.CitusDatabase(adminURL, name); err != nil {
		return err
	}
	return nil
}

// databaseSize is pg_database_size of database name, readable (pg_size_pretty).
func databaseSize(ctx context.Context, adminURL, name string) (string, error) {
	admin, err := sql.Open("postgres", adminURL)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	var size string
	err = admin.QueryRowContext(ctx, `SELECT pg_size_pretty(pg_database_size($1))`, name).Scan(&size)
	return size, err
}

// learngateEnv is the environment of the learngate under test: the bench
// database, Redis (the production limiter), loopback ports, logs at warn,
// no worker (no background job is queued by the benchmarked requests, and
// a polling worker would only add noise), no migration at start (the run
// has migrated).
func learngateEnv(dbURL, redisURL, addr, opsAddr string) []string {
	return []string{
		"LEARNGATE_DATABASE_URL=" + dbURL, "LEARNGATE_REDIS_URL=" + redisURL,
		"LEARNGATE_HTTP_ADDR=" + addr, "LEARNGATE_OPS_ADDR=" + opsAddr,
		"LEARNGATE_OPS_TOKEN=" + benchOpsToken, "LEARNGATE_LOG_LEVEL=warn", "LEARNGATE_LOG_FORMAT=text",
		"LEARNGATE_WORKER=false", "LEARNGATE_MIGRATE_ON_START=false", "LEARNGATE_PUBLIC_SCHEME=http",
		"LEARNGATE_BASE_DOMAINS=" + baseDomain, "LEARNGATE_BLOB_DIR=.data/bench-blobs",
		"LEARNGATE_SIGNING_KEY=bench-signing-key-0123456789-abcdef",
		"LEARNGATE_SECRETS_KEY=YmVuY2gtc2VjcmV0cy1rZXktMDEyMzQ1Njc4OS1hYmNkZWY=", // "bench-secrets-key-0123456789-abcdef"
	}
}

// baseDomain names tenants: <slug>.learngate.localhost.
const baseDomain = "learngate.localhost"
