package storetest

import (
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"testing"
)

// Tests on a Citus cluster (DECISIONS section 20): when
// LEARNGATE_TEST_DATABASE_URL names a Citus coordinator (its database has
// the citus extension and worker nodes), every test database is a cluster
// of its own: the database is created on the coordinator and on each
// worker, the extension in each, the workers added to the coordinator, and
// schema-based sharding turned on, so that every tenant schema is
// distributed as in production. It takes about 2.5 s a database.
// scripts/citus-cluster.sh makes such a cluster on 127.0.0.1.

// citusWorker is a worker node of the coordinator the tests use.
type citusWorker struct {
	host string
	port int
}

// citusWorkers returns the coordinator's worker nodes, or nil when the
// admin database is no Citus coordinator.
func citusWorkers(admin *sql.DB) ([]citusWorker, error) {
	var has bool
	if err := admin.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')`).Scan(&has); err != nil || !has {
		return nil, err
	}
	rows, err := admin.Query(`SELECT nodename, nodeport FROM pg_dist_node WHERE groupid > 0 AND noderole = 'primary' ORDER BY nodeid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []citusWorker
	for rows.Next() {
		var w citusWorker
		if err := rows.Scan(&w.host, &w.port); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// onNode returns the admin URL with its host and port replaced by w's.
func onNode(adminURL string, w citusWorker) (string, error) {
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", err
	}
	u.Host = net.JoinHostPort(w.host, fmt.Sprint(w.port))
	return u.String(), nil
}

// makeCitusDatabase turns the new database name (made on the coordinator
// of adminURL) into a cluster over workers; the cleanup drops it on them.
func makeCitusDatabase(tb testing.TB, adminURL, name string, workers []citusWorker) {
	tb.Helper()
	for _, w := range workers {
		wurl, err := onNode(adminURL, w)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() {
			if conn, err := sql.Open("postgres", wurl); err == nil {
				_, _ = conn.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
				conn.Close()
			}
		})
	}
	if err := distribute(adminURL, name, workers); err != nil {
		tb.Fatal(err)
	}
}

// distribute creates database name on each worker with the citus
// extension, and on the coordinator of adminURL (where name exists) adds
// the extension, the workers and schema-based sharding.
func distribute(adminURL, name string, workers []citusWorker) error {
	exec := func(rawURL, db string, stmts ...string) error {
		u, err := url.Parse(rawURL)
		if err != nil {
			return err
		}
		if db != "" {
			u.Path = "/" + db
		}
		conn, err := sql.Open("postgres", u.String())
		if err != nil {
			return err
		}
		defer conn.Close()
		for _, s := range stmts {
			if _, err := conn.Exec(s); err != nil {
				return fmt.Errorf("citus database %s on %s: %s: %w", name, u.Host, s, err)
			}
		}
		return nil
	}
	for _, w := range workers {
		wurl, err := onNode(adminURL, w)
		if err != nil {
			return err
		}
		if err := exec(wurl, "", `CREATE DATABASE `+name); err != nil {
			return err
		}
		if err := exec(wurl, name, `CREATE EXTENSION citus`); err != nil {
			return err
		}
	}
	au, err := url.Parse(adminURL)
	if err != nil {
		return err
	}
	stmts := []string{`CREATE EXTENSION citus`,
		fmt.Sprintf(`SELECT citus_set_coordinator_host('%s', %s)`, au.Hostname(), portOf(au)),
		`ALTER DATABASE ` + name + ` SET citus.enable_schema_based_sharding = on`}
	for _, w := range workers {
		stmts = append(stmts, fmt.Sprintf(`SELECT citus_add_node('%s', %d)`, w.host, w.port))
	}
	return exec(adminURL, name, stmts...)
}

// CitusDatabase makes the database name, just created on the Citus
// coordinator of adminURL, a cluster of its own over the coordinator's
// workers (as every test database on Citus is); citus says whether
// adminURL is a coordinator with workers at all (when not, nothing is
// done). The benchmark harness uses it.
func CitusDatabase(adminURL, name string) (citus bool, err error) {
	workers, err := coordinatorWorkers(adminURL)
	if err != nil || len(workers) == 0 {
		return false, err
	}
	return true, distribute(adminURL, name, workers)
}

// DropCitusDatabase drops database name on every worker of the Citus
// coordinator of adminURL (the coordinator's own copy is the caller's).
func DropCitusDatabase(adminURL, name string) error {
	workers, err := coordinatorWorkers(adminURL)
	if err != nil {
		return err
	}
	for _, w := range workers {
		wurl, err := onNode(adminURL, w)
		if err != nil {
			return err
		}
		conn, err := sql.Open("postgres", wurl)
		if err != nil {
			return err
		}
		_, err = conn.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
		conn.Close()
		if err != nil {
			return fmt.Errorf("drop %s on %s:%d: %w", name, w.host, w.port, err)
		}
	}
	return nil
}

// coordinatorWorkers returns the worker nodes of the coordinator of
// adminURL, nil when it is no Citus coordinator.
func coordinatorWorkers(adminURL string) ([]citusWorker, error) {
	admin, err := sql.Open("postgres", adminURL)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	return citusWorkers(admin)
}

// portOf is u's port, 5432 when it names none.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	return "5432"
}

// Citus reports whether the tests run on a Citus cluster: whether
// LEARNGATE_TEST_DATABASE_URL names a coordinator with worker nodes.
func Citus(tb testing.TB) bool {
	tb.Helper()
	admin, err := sql.Open("postgres", AdminURL())
	if err != nil {
		tb.Fatalf("open admin database: %v", err)
	}
	defer admin.Close()
	workers, err := citusWorkers(admin)
	if err != nil {
		tb.Fatalf("look for Citus workers: %v", err)
	}
	return len(workers) > 0
}
