package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"learngate/bench/load"
)

// measureStep measures one step of the many-tenants part, the step's
// tenants being built: the creation p50, `learngate migrate` with nothing
// to do (serve and worker stopped, as before a deployment's rollout), then
// with serve and worker started again, a quiet minute's CPU, the first
// request of each sampled tenant, the backends' memory, the database's
// size and relations. It returns the fleet now running.
func measureStep(ctx context.Context, o options, db *sql.DB, f *fleet, lgBin string, env func(string, string) []string,
	dbURL string, step int, runBegan time.Time) (tenantStep, *fleet, error) {
	s := tenantStep{tenants: step}
	var err error
	if s.createP50, s.created, s.earlier, err = creationP50(ctx, db, step, runBegan); err != nil {
		return s, f, err
	}
	if o.creationAB > 0 {
		progress("many tenants: %d tenants: creation side by side with %d tenants, %d pairs", step, referenceTenants, o.creationAB)
		if s.sideMany, s.sideTen, err = creationSideBySide(ctx, o, lgBin, dbURL, o.creationAB); err != nil {
			return s, f, err
		}
	}
	f.stop()
	progress("many tenants: %d tenants: learngate migrate with nothing to do", step)
	if s.migrate, err = runMigrate(ctx, lgBin, learngateEnv(dbURL, o.redisURL, "127.0.0.1:0", "127.0.0.1:0")); err != nil {
		s.migrateError = err.Error()
		progress("many tenants: %v", err)
	}
	// The step's build left gigabytes of dirty pages (a new tenant writes
	// its catalog rows): write them out now, so that the checkpointer's
	// work for the build does not count as the idle tenants' cost.
	if _, err := db.ExecContext(ctx, `CHECKPOINT`); err != nil {
		return s, nil, fmt.Errorf("checkpoint: %w", err)
	}
	if f, err = startFleet(lgBin, env); err != nil {
		return s, nil, err
	}
	// Let both processes finish starting. The worker's periodic jobs run
	// on start, then every minute (the purges less often): with the
	// default 2 s, their start-up run falls in the quiet minute.
	sleep(ctx, o.quietSettle)
	progress("many tenants: %d tenants: quiet minute (%s, no traffic)", step, o.quietMinute)
	if s.quiet, err = quietMinute(ctx, db, f, o.quietMinute); err != nil {
		return s, f, err
	}
	progress("many tenants: %d tenants: first request of %d tenants after the restart", step, min(step, o.firstSample))
	if err := firstRequests(ctx, db, f, step, o.firstSample, &s); err != nil {
		return s, f, err
	}
	if s.mem, err = backendsMemory(ctx, db, o.tenantsDB); err != nil {
		return s, f, err
	}
	err = db.QueryRowContext(ctx, `SELECT pg_database_size(current_database()), (SELECT count(*) FROM pg_class)`).
		Scan(&s.dbSize, &s.relations)
	p50, p99 := percentiles(s.first)
	progress("many tenants: %d tenants: creation p50 %s, first request p50 %s p99 %s, migrate %s, quiet minute "+
		"server %.2f worker %.2f postgres %.2f CPU-s, backend memory max %s, %s, %d relations", step, ms(s.createP50),
		ms(p50), ms(p99), s.migrate.Round(time.Millisecond), s.quiet.perMinute(s.quiet.serve),
		s.quiet.perMinute(s.quiet.worker), s.quiet.perMinute(s.quiet.postgres()), mib(s.mem.maxPrivate), mib(s.dbSize), s.relations)
	return s, f, err
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// sampleIndexes are the tenants (numbered 1..n) whose first request is
// measured: all of them when n <= k, else k spread evenly over 1..n; in an
// order shuffled with a fixed seed, so that neighbours in creation order
// are not asked one after the other.
func sampleIndexes(n, k int) []int {
	var ns []int
	if n <= k {
		for i := 1; i <= n; i++ {
			ns = append(ns, i)
		}
	} else {
		for i := range k {
			ns = append(ns, i*n/k+1)
		}
	}
	r := rand.New(rand.NewPCG(28, uint64(n)))
	r.Shuffle(len(ns), func(i, j int) { ns[i], ns[j] = ns[j], ns[i] })
	return ns
}

// firstRequests sends GET /papi/users?per_page=100, one at a time, to
// each sampled tenant with its key and host: the first request of that
// tenant since serve started (after one /readyz, which opens a database
// connection). Each must answer 200.
func firstRequests(ctx context.Context, db *sql.DB, f *fleet, step, sample int, s *tenantStep) error {
	ts, err := sampleTenants(ctx, db, sampleIndexes(step, sample))
	if err != nil {
		return err
	}
	client := load.NewClient(1)
	_, _, _ = fetch(client, target{base: "http://" + f.addr, host: "localhost"}.get("/readyz"))
	for _, t := range ts {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		tg := target{base: "http://" + f.addr, host: t.slug + "." + baseDomain, key: t.key}
		req, err := tg.request(http.MethodGet, "/papi/users?per_page=100", nil)
		if err != nil {
			return err
		}
		began := time.Now()
		resp, err := client.Do(req)
		var body []byte
		if err == nil {
			body, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		took := time.Since(began)
		switch {
		case err != nil:
			s.firstErrors++
			s.firstError = err.Error()
		case resp.StatusCode != http.StatusOK:
			s.firstErrors++
			s.firstError = fmt.Sprintf("%s: %d %.200s", t.slug, resp.StatusCode, body)
		default:
			s.first = append(s.first, took)
		}
	}
	return nil
}

// quietCPU is the CPU seconds serve, the worker and PostgreSQL used in a
// quiet span. PostgreSQL is the backends of the part's database and,
// apart, the postmaster and its background processes (checkpointer,
// writers: shared by every database of the cluster, so other work on the
// machine shows there too); other databases' backends are left out, and a
// backend that ended within the span is missed.
type quietCPU struct {
	span                      time.Duration
	serve, worker             float64
	backends, background      float64
	allPostgres               float64 // every postgres process of the machine
	load1                     float64 // the machine's load average at the end
	workerExited, serveExited bool
}

// postgres is the CPU seconds of PostgreSQL: backends and background.
func (q quietCPU) postgres() float64 { return q.backends + q.background }

// perMinute scales v, CPU seconds over the span, to a minute.
func (q quietCPU) perMinute(v float64) float64 {
	if q.span <= 0 {
		return 0
	}
	return v * float64(time.Minute) / float64(q.span)
}

// quietMinute samples the CPU time of f's processes and of PostgreSQL's
// before and after span without traffic.
func quietMinute(ctx context.Context, db *sql.DB, f *fleet, span time.Duration) (quietCPU, error) {
	// One connection held idle through the span, left out of the figure.
	conn, err := db.Conn(ctx)
	if err != nil {
		return quietCPU{}, err
	}
	defer conn.Close()
	var self int
	if err := conn.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&self); err != nil {
		return quietCPU{}, err
	}
	// pgPIDs maps the processes counted to whether each is a backend of
	// this database (else the postmaster or a background process).
	pgPIDs := func() (map[int]bool, error) {
		pids := map[int]bool{}
		rows, err := conn.QueryContext(ctx, `SELECT pid, datname IS NOT NULL FROM pg_stat_activity
			WHERE (datname = current_database() OR datname IS NULL) AND pid <> pg_backend_pid()`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var pid int
			var backend bool
			if err := rows.Scan(&pid, &backend); err != nil {
				return nil, err
			}
			pids[pid] = backend
			if pp := parentPID(pid); pp > 0 && !backend {
				pids[pp] = false // the postmaster
			}
		}
		return pids, rows.Err()
	}
	all0 := cpuNow(f.serve.cmd.Process.Pid, f.worker.cmd.Process.Pid)
	began := time.Now()
	sleep(ctx, span)
	q := quietCPU{span: time.Since(began)}
	all1 := cpuNow(f.serve.cmd.Process.Pid, f.worker.cmd.Process.Pid)
	after, err := pgPIDs()
	if err != nil {
		return q, err
	}
	q.serve, q.worker, q.allPostgres = all1.since(all0)
	for pid, backend := range after {
		switch {
		case pid == self:
		case backend:
			q.backends += all1.pg[pid] - all0.pg[pid]
		default:
			q.background += all1.pg[pid] - all0.pg[pid]
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			q.load1, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	q.workerExited, q.serveExited = exited(f.worker), exited(f.serve)
	return q, nil
}

// exited says whether p has ended.
func exited(p *process) bool {
	select {
	case err := <-p.done:
		p.done <- err
		return true
	default:
		return false
	}
}

// parentPID is the parent of process pid (from /proc), 0 when unknown.
func parentPID(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// backendMemory is the private memory of the client backends of a
// database: for each, Private_Clean+Private_Dirty summed over its private
// mappings in /proc/<pid>/smaps (its heap, where the catalog and relation
// caches live, and its stack). The shared mappings (shared_buffers and the
// other shared memory) are left out: smaps_rollup's Private_* would count
// the shared_buffers pages this backend alone has touched, and its
// Anonymous the pages still shared with the postmaster since the fork.
type backendMemory struct {
	backends           int
	maxPrivate, sum    int64
	maxRSS, unreadable int64
}

// backendsMemory reads the memory of every client backend of database name.
func backendsMemory(ctx context.Context, db *sql.DB, name string) (backendMemory, error) {
	var m backendMemory
	rows, err := db.QueryContext(ctx, `SELECT pid FROM pg_stat_activity
		WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`, name)
	if err != nil {
		return m, err
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return m, err
		}
		private, rss, err := privateMemory(pid)
		if err != nil {
			m.unreadable++
			continue
		}
		m.backends++
		m.sum += private
		m.maxPrivate = max(m.maxPrivate, private)
		m.maxRSS = max(m.maxRSS, rss)
	}
	return m, rows.Err()
}

// privateMemory is, in bytes, the Private_Clean+Private_Dirty of process
// pid's private mappings (permissions ending in p) and its whole Rss,
// from /proc/<pid>/smaps.
func privateMemory(pid int) (private, rss int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return 0, 0, err
	}
	shared, seen := false, false
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && len(f[1]) == 4 {
			shared = f[1][3] == 's' // a mapping's header: address perms offset dev inode [path]
			continue
		}
		if len(f) != 3 || f[2] != "kB" {
			continue
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "Rss:":
			rss += v * 1024
			seen = true
		case "Private_Clean:", "Private_Dirty:":
			if !shared {
				private += v * 1024
			}
		}
	}
	if !seen {
		return 0, 0, fmt.Errorf("/proc/%d/smaps: no mapping", pid)
	}
	return private, rss, nil
}

// mib writes bytes in MiB.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
