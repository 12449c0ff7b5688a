package storetest

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisServer is a private redis-server process for tests that stop and
// start Redis (fail-open and recovery tests). It never touches the shared one.
type RedisServer struct {
	tb   testing.TB
	port int
	cmd  *exec.Cmd
}

// StartRedisServer runs redis-server from PATH on a free loopback port until
// the test ends.
func StartRedisServer(tb testing.TB) *RedisServer {
	tb.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		tb.Fatalf("redis-server is not on PATH (`make test` installs it): %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("find a free port: %v", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	s := &RedisServer{tb: tb, port: port}
	s.Start()
	tb.Cleanup(s.Stop)
	return s
}

// Addr returns the server's host:port.
func (s *RedisServer) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Start runs redis-server on the server's port and waits until it answers.
func (s *RedisServer) Start() {
	s.tb.Helper()
	s.cmd = exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.tb.TempDir())
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatalf("start redis-server: %v", err)
	}
	client := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer client.Close()
	deadline := time.Now().Add(5 * time.Second)
	for client.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			s.tb.Fatalf("redis-server on port %d did not answer within 5 s", s.port)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server if it runs.
func (s *RedisServer) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// StartUnixRedis runs a private redis-server listening only on a Unix
// socket in a folder of tb's, until tb ends, and returns the socket's path.
// tb is skipped when redis-server is not installed.
func StartUnixRedis(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		tb.Skipf("redis-server is not on PATH: %v", err)
	}
	dir := tb.TempDir()
	sock := filepath.Join(dir, "redis.sock")
	cmd := exec.Command("redis-server", "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
		"--save", "", "--appendonly", "no", "--dir", dir)
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start redis-server: %v", err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	client := redis.NewClient(&redis.Options{Network: "unix", Addr: sock, MaxRetries: -1})
	defer client.Close()
	deadline := time.Now().Add(5 * time.Second)
	for client.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			tb.Fatalf("redis-server on %s did not answer within 5 s", sock)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return sock
}
