package storetest

import (
	"errors"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// StartPgBouncer runs a private PgBouncer in transaction pooling mode on a
// free loopback port in front of the PostgreSQL server of pgURL
// (scripts/pgbouncer.sh, which installs Debian's pgbouncer when it is
// missing unless LEARNGATE_NO_APT=1), stops it when tb ends, and returns
// pgURL with its host and port replaced by PgBouncer's. tb is skipped with
// the reason when PgBouncer is not installed and cannot be.
func StartPgBouncer(tb testing.TB, pgURL string) string {
	tb.Helper()
	script := filepath.Join(repoRoot(tb), "scripts", "pgbouncer.sh")
	port := freePort(tb)
	// PgBouncer runs as the postgres user when the tests run as root: its
	// folder must be reachable by that user, which t.TempDir's is not.
	dir, err := os.MkdirTemp("", "learngate-pgbouncer-")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	out, err := exec.Command(script, "start", strconv.Itoa(port), pgURL, dir).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		tb.Skipf("PgBouncer is not available: %s", out)
	}
	if err != nil {
		tb.Fatalf("start PgBouncer: %v\n%s", err, out)
	}
	tb.Cleanup(func() {
		if out, err := exec.Command(script, "stop", strconv.Itoa(port), dir).CombinedOutput(); err != nil {
			tb.Logf("stop PgBouncer: %v\n%s", err, out)
		}
	})
	u, err := url.Parse(pgURL)
	if err != nil {
		tb.Fatalf("parse %q: %v", pgURL, err)
	}
	u.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	return u.String()
}

// repoRoot is the repository's top folder (where scripts/ lives).
func repoRoot(tb testing.TB) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("cannot find the source folder of storetest")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// freePort returns a loopback TCP port nobody listens on right now.
func freePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("find a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
