//go:build slow

package soak

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// pgCluster is a private PostgreSQL cluster on a free loopback port, for
// tests that stop and start the database server. It never touches the
// shared one.
type pgCluster struct {
	t       testing.TB
	bindir  string
	dir     string // holds data/ and the socket
	port    int
	asUser  *user.User // the cluster runs as this user when the test runs as root
	durable bool
}

// startPGCluster runs initdb and starts the cluster until the test ends.
// A durable cluster has PostgreSQL's default settings; the other one runs
// without fsync and synchronous commit, for speed, and loses acknowledged
// commits when it is stopped in immediate mode (R4 in docs/reliability.md).
func startPGCluster(t testing.TB, durable bool) *pgCluster {
	t.Helper()
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		t.Fatalf("no /usr/lib/postgresql/*/bin/initdb (`make test` installs PostgreSQL)")
	}
	c := &pgCluster{t: t, bindir: filepath.Dir(matches[len(matches)-1]), port: freePort(t), durable: durable}
	dir, err := os.MkdirTemp("", "learngate-soak-pg-")
	if err != nil {
		t.Fatalf("cluster dir: %v", err)
	}
	c.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root: the cluster belongs to postgres.
		if c.asUser, err = user.Lookup("postgres"); err != nil {
			t.Fatalf("running as root needs a postgres user: %v", err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatalf("chmod cluster dir: %v", err)
		}
		uid, _ := strconv.Atoi(c.asUser.Uid)
		gid, _ := strconv.Atoi(c.asUser.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatalf("chown cluster dir: %v", err)
		}
	}
	c.run("initdb", "-D", c.data(), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync")
	t.Cleanup(func() { c.stop("immediate") })
	c.start()
	return c
}

func (c *pgCluster) data() string { return filepath.Join(c.dir, "data") }

// URL returns the URL of database name on the cluster.
func (c *pgCluster) URL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, name)
}

// createDatabase creates database name on the cluster and returns its URL.
func (c *pgCluster) createDatabase(name string) string {
	c.t.Helper()
	admin, err := sql.Open("postgres", c.URL("postgres"))
	if err != nil {
		c.t.Fatalf("open cluster: %v", err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		c.t.Fatalf("create database %s: %v", name, err)
	}
	return c.URL(name)
}

// start starts the server and waits until it accepts connections.
func (c *pgCluster) start() {
	c.t.Helper()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=100", c.port, c.dir)
	if !c.durable {
		opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	}
	c.run("pg_ctl", "-D", c.data(), "-l", filepath.Join(c.dir, "server.log"), "-o", opts, "-w", "-t", "30", "start")
}

// stop stops the server in mode (fast or immediate); a stopped server is left alone.
func (c *pgCluster) stop(mode string) {
	c.t.Helper()
	if _, err := os.Stat(filepath.Join(c.data(), "postmaster.pid")); err != nil {
		return
	}
	c.run("pg_ctl", "-D", c.data(), "-m", mode, "-w", "-t", "30", "stop")
}

// run runs a PostgreSQL program of the cluster's version, as postgres when root.
func (c *pgCluster) run(prog string, args ...string) {
	c.t.Helper()
	path := filepath.Join(c.bindir, prog)
	cmd := exec.Command(path, args...)
	if c.asUser != nil {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		c.t.Fatalf("%s %v: %v\n%s\nserver log:\n%s", prog, args, err, out, log)
	}
}

// freeze stops the server's processes with SIGSTOP: connections are still
// accepted by the kernel, but nothing answers. thaw undoes it; the
// cluster's cleanup thaws too.
func (c *pgCluster) freeze() {
	c.t.Helper()
	c.signal(syscall.SIGSTOP)
	c.t.Cleanup(func() { c.signal(syscall.SIGCONT) })
}

// thaw resumes the server's processes.
func (c *pgCluster) thaw() {
	c.t.Helper()
	c.signal(syscall.SIGCONT)
}

// signal sends sig to the postmaster and its children.
func (c *pgCluster) signal(sig syscall.Signal) {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.data(), "postmaster.pid"))
	if err != nil {
		c.t.Fatalf("postmaster.pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		c.t.Fatalf("postmaster.pid: %v", err)
	}
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(pid)).Output() // no children: exit 1
	pids := []int{pid}
	for _, f := range strings.Fields(string(out)) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	for _, p := range pids {
		_ = syscall.Kill(p, sig) // a backend may have exited meanwhile
	}
}
