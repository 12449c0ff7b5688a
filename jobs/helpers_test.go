package jobs_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"learngate"
	"learngate/blob"
	"learngate/config"
	"learngate/jobs"
	"learngate/jobs/jobstest"
	"learngate/store"
	"learngate/store/storetest"
)

func ptr[T any](v T) *T { return &v }

// testLinks are the link settings of every test worker.
var testLinks = jobs.Links{Scheme: "http", BaseDomain: "learngate.test"}

// quickRetry retries a failed job after 100 ms instead of River's seconds.
type quickRetry struct{}

func (quickRetry) NextRetry(*rivertype.JobRow) time.Time {
	return time.Now().Add(100 * time.Millisecond)
}

// newTenant stores, migrates and activates a tenant, as the registry does,
// and returns it with its handle.
func newTenant(t testing.TB, db *store.DB, slug, name string, domains ...string) (learngate.Tenant, *store.TenantDB) {
	t.Helper()
	ctx := context.Background()
	h := make([]byte, 32)
	_, _ = rand.Read(h)
	tn, _, err := db.CreateTenant(ctx, store.NewTenant{Slug: slug, Name: name, Timezone: "UTC", APIEnabled: true,
		RateLimitPerMinute: 300, Domains: domains}, store.NewAPIKey{Hash: h, Prefix: "lg_test"})
	if err != nil {
		t.Fatalf("create tenant %s: %v", slug, err)
	}
	if err := db.CreateTenantSchema(ctx, tn.Schema); err != nil {
		t.Fatalf("create schema of tenant %s: %v", slug, err)
	}
	if err := db.SetTenantStatus(ctx, tn.ID, learngate.TenantActive); err != nil {
		t.Fatalf("activate tenant %s: %v", slug, err)
	}
	tn.Status = learngate.TenantActive
	tdb, err := db.Tenant(tn.Schema)
	if err != nil {
		t.Fatal(err)
	}
	return tn, tdb
}

// userInput is a valid create input for user name.
func userInput(name string) learngate.UserInput {
	return learngate.UserInput{
		UserName: ptr(name), FirstName: ptr("First " + name), LastName: ptr("Last"),
		Email: ptr(name + "@example.com"), Timezone: ptr("UTC"),
	}
}

// createUser stores a user of tdb, failing the test on error.
func createUser(t *testing.T, tdb *store.TenantDB, in learngate.UserInput) learngate.User {
	t.Helper()
	u, err := store.CreateUser(context.Background(), tdb, in, time.Now())
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	return u
}

// smtpMailer is the real SMTP mailer pointed at srv.
func smtpMailer(srv *jobstest.SMTPServer, user, password string) *jobs.SMTPMailer {
	return &jobs.SMTPMailer{Server: config.SMTP{Host: "127.0.0.1", Port: srv.Port(), Username: user, Password: password,
		From: mailAddress("noreply@learngate.test")}}
}

// runningWorker is a worker started by a test.
type runningWorker struct {
	cancel context.CancelFunc
	// done is closed when Run has returned err.
	done chan struct{}
	err  error
}

// startWorker builds a worker from cfg (DB, Links, a quick poll and retry
// filled in when unset) and runs it until the test ends.
func startWorker(t *testing.T, cfg jobs.Config) *runningWorker {
	t.Helper()
	if cfg.Links == (jobs.Links{}) {
		cfg.Links = testLinks
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 50 * time.Millisecond
	}
	if cfg.RetryPolicy == nil {
		cfg.RetryPolicy = quickRetry{}
	}
	if cfg.Blobs == nil {
		cfg.Blobs = localBlobs(t)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	w, err := jobs.New(cfg)
	if err != nil {
		t.Fatalf("jobs.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rw := &runningWorker{cancel: cancel, done: make(chan struct{})}
	go func() {
		rw.err = w.Run(ctx)
		close(rw.done)
	}()
	t.Cleanup(func() { rw.Stop(t) })
	return rw
}

// Stop cancels the worker, waits for Run to return and checks its error.
func (rw *runningWorker) Stop(t *testing.T) {
	t.Helper()
	rw.cancel()
	select {
	case <-rw.done:
		if rw.err != nil {
			t.Errorf("worker Run: %v", rw.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("worker did not stop within 30 s")
	}
}

// testWriter sends log output to t.Log while the test runs.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// lockedBuffer is a log destination safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// jobRow is a River job as the tests look at it.
type jobRow struct {
	Kind    string
	State   string
	Attempt int
	Errors  int
	Args    map[string]any
}

// jobsOfKind returns the jobs of kind in River's table, oldest first.
func jobsOfKind(t *testing.T, db *store.DB, kind string) []jobRow {
	t.Helper()
	rows, err := db.Pool().Query(`SELECT kind, state, attempt, coalesce(array_length(errors, 1), 0), args
		FROM public.river_job WHERE kind = $1 ORDER BY id`, kind)
	if err != nil {
		t.Fatalf("list jobs: %v", err)
	}
	defer rows.Close()
	var out []jobRow
	for rows.Next() {
		var j jobRow
		var args []byte
		if err := rows.Scan(&j.Kind, &j.State, &j.Attempt, &j.Errors, &args); err != nil {
			t.Fatalf("scan job: %v", err)
		}
		if err := json.Unmarshal(args, &j.Args); err != nil {
			t.Fatalf("job args: %v", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitFor polls cond every 50 ms until it holds, failing after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// newDB is a migrated database of its own for the test.
func newDB(t *testing.T) *store.DB {
	t.Helper()
	db, _ := storetest.NewDB(t)
	return db
}

// testSigningKey signs the download links of test blob stores.
var testSigningKey = []byte("jobs-test-signing-key-0123456789")

// localBlobs is a Local blob store in a folder of the test's own.
func localBlobs(t testing.TB) *blob.Local {
	t.Helper()
	l, err := blob.NewLocal(t.TempDir(), testSigningKey)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
