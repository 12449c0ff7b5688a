//go:build e2e_upgrade

package e2e

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// upgradeEnv is what scripts/e2e-upgrade.sh hands the test program: both
// binaries, the ports, where logs and pid files go, and the seeded tenant.
// Every learngate process of the run inherits the script's LEARNGATE_
// variables (database, Redis, keys, base domain).
type upgradeEnv struct {
	oldBin, newBin string
	from           string // the previous release's name (UPGRADE_FROM)
	basePort       int
	logs, pids     string
	report         string
	baseDomain     string
	opsToken       string
	big            tenant // the seeded tenant
	users          int    // seeded users: seed1 ... seed<users>
	phase          time.Duration
}

// loadUpgradeEnv reads the E2EU_ variables; the test is skipped without them
// (it runs under scripts/e2e-upgrade.sh only).
func loadUpgradeEnv(t *testing.T) *upgradeEnv {
	t.Helper()
	if os.Getenv("E2EU_NEW_BIN") == "" {
		t.Skip("E2EU_NEW_BIN not set: run make e2e-upgrade")
	}
	num := func(name string) int {
		n, err := strconv.Atoi(os.Getenv(name))
		if err != nil || n <= 0 {
			t.Fatalf("%s=%q: want a positive number", name, os.Getenv(name))
		}
		return n
	}
	return &upgradeEnv{
		oldBin:     os.Getenv("E2EU_OLD_BIN"),
		newBin:     os.Getenv("E2EU_NEW_BIN"),
		from:       os.Getenv("E2EU_FROM"),
		basePort:   num("E2EU_BASE_PORT"),
		logs:       os.Getenv("E2EU_LOGS"),
		pids:       os.Getenv("E2EU_PIDS"),
		report:     os.Getenv("E2EU_REPORT"),
		baseDomain: strings.TrimSpace(strings.Split(os.Getenv("LEARNGATE_BASE_DOMAINS"), ",")[0]),
		opsToken:   os.Getenv("LEARNGATE_OPS_TOKEN"),
		big:        tenant{slug: os.Getenv("E2EU_TENANT"), key: os.Getenv("E2EU_KEY")},
		users:      num("E2EU_USERS"),
		phase:      time.Duration(num("E2EU_PHASE_SECONDS")) * time.Second,
	}
}

// host is the Host header that selects tenant slug.
func (u *upgradeEnv) host(slug string) string { return slug + "." + u.baseDomain }

// upgradeProc is one learngate process the test started.
type upgradeProc struct {
	name    string
	pidFile string
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited and been reaped
	err     error         // its exit, once done is closed
	url     string        // serve: the public listener
	ops     string        // serve: the ops listener
}

// start runs bin with args, the script's environment plus env, its output
// in logs/<name>.log, and records its pid in the pids folder (the script
// stops it from there if the test is killed).
func (u *upgradeEnv) start(t *testing.T, name, bin string, args []string, env ...string) *upgradeProc {
	t.Helper()
	log, err := os.Create(filepath.Join(u.logs, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	p := &upgradeProc{name: name, cmd: cmd, done: make(chan struct{})}
	p.pidFile = filepath.Join(u.pids, strconv.Itoa(cmd.Process.Pid))
	if err := os.WriteFile(p.pidFile, []byte(name+"\n"), 0o644); err != nil {
		t.Error(err)
	}
	go func() {
		p.err = cmd.Wait()
		log.Close()
		os.Remove(p.pidFile)
		close(p.done)
	}()
	return p
}

// node starts `serve` of bin on the slot-th pair of ports (public, ops) and
// waits until its /readyz answers 200, at most 30 s.
func (u *upgradeEnv) node(t *testing.T, name, bin string, slot int) *upgradeProc {
	t.Helper()
	port := u.basePort + 2*slot
	p := u.start(t, name, bin, []string{"serve"},
		fmt.Sprintf("LEARNGATE_HTTP_ADDR=127.0.0.1:%d", port), fmt.Sprintf("LEARNGATE_OPS_ADDR=127.0.0.1:%d", port+1))
	p.url = fmt.Sprintf("http://127.0.0.1:%d", port)
	p.ops = fmt.Sprintf("http://127.0.0.1:%d", port+1)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if a := call(directClient, http.MethodGet, p.url+"/readyz", "", "", nil, nil); a.status == 200 {
			return p
		}
		select {
		case <-p.done:
			t.Fatalf("%s stopped at start (%v): see %s.log", name, p.err, name)
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("%s not ready after 30 s: see %s.log", name, name)
	return nil
}

// worker starts `worker` of bin.
func (u *upgradeEnv) worker(t *testing.T, name, bin string) *upgradeProc {
	t.Helper()
	return u.start(t, name, bin, []string{"worker"}, "LEARNGATE_WORKER=true")
}

// runOnce runs bin with args to its end (at most limit) and returns how long
// it took and its failure, if any.
func (u *upgradeEnv) runOnce(t *testing.T, name, bin string, limit time.Duration, args ...string) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	p := u.start(t, name, bin, args)
	select {
	case <-p.done:
		return time.Since(start), p.err
	case <-time.After(limit):
		p.stop(5 * time.Second)
		return time.Since(start), fmt.Errorf("%s still running after %v: stopped", name, limit)
	}
}

// stop sends SIGTERM, waits up to grace for the process to exit, then
// kills it; it returns how long the exit took and whether it was clean.
func (p *upgradeProc) stop(grace time.Duration) (time.Duration, error) {
	start := time.Now()
	select {
	case <-p.done:
		return 0, fmt.Errorf("%s had already exited: %v", p.name, p.err)
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return time.Since(start), p.err
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
		return time.Since(start), fmt.Errorf("%s did not exit within %v of SIGTERM: killed", p.name, grace)
	}
}

// running reports whether the process is still up.
func (p *upgradeProc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}
