package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"learngate/bench/datagen"
	"learngate/bench/load"
	"learngate/blob"
	"learngate/handlers"
	"learngate/handlers/httpx"
	"learngate/handlers/ops"
	"learngate/handlers/papi"
	"learngate/handlers/web"
	"learngate/ratelimit"
	"learngate/store/storetest"
	"learngate/tenant"
)

// writeSpec is the write tenant of the harness (its slug, so the
// scenarios' code names are the datagen's) and another tenant that must
// not see what the writes create.
var writeSpec = datagen.Spec{Tenants: []datagen.TenantSpec{
	{Slug: datagen.WriteSlug, Users: 120, TopicEnrolments: 200, Knowledge: 10},
	{Slug: "bench-other", Users: 30, TopicEnrolments: 30, Knowledge: 5},
}}

// writeEnv is learngate's real public router over a generated database.
type writeEnv struct {
	router http.Handler
	db     *sql.DB
	write  datagen.Tenant
	other  datagen.Tenant
}

func newWriteEnv(t *testing.T) writeEnv {
	t.Helper()
	gin.SetMode(gin.ReleaseMode)
	ctx := context.Background()
	db, dbURL := storetest.NewDB(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg := tenant.NewRegistry(db, tenant.Options{BaseDomains: []string{baseDomain}, Logger: logger})
	ts, err := datagen.Ensure(ctx, db, reg, writeSpec, io.Discard)
	if err != nil {
		t.Fatalf("datagen: %v", err)
	}
	blobs, err := blob.NewLocal(t.TempDir(), []byte("bench-test-signing-key-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	srvMetrics := httpx.NewMetrics()
	gate := &httpx.Gate{DB: db, Registry: reg, Metrics: srvMetrics, Logger: logger, AuthFailuresPerMinute: 20, Now: time.Now,
		Limiter: ratelimit.New(ratelimit.NewMemoryStore(time.Now), ratelimit.Options{Window: time.Minute, Logger: logger}),
		Ready:   func(ctx context.Context) error { return db.Ping(ctx) }}
	srv := &handlers.Server{Gate: gate, PublicScheme: "http",
		Web:  web.Deps{Blobs: blobs, PublicScheme: "http", Sessions: db, SAMLReplays: db},
		Ops:  ops.Deps{Tenants: reg, Token: benchOpsToken, Metrics: srvMetrics.Registry},
		Papi: papi.Deps{Blobs: blobs, Downloads: blobs, PublicScheme: "http"}}
	router, err := srv.PublicRouter()
	if err != nil {
		t.Fatal(err)
	}
	pool, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return writeEnv{router: router, db: pool, write: ts[0], other: ts[1]}
}

// call sends one request to the router as tenant tn.
func (e writeEnv) call(tn datagen.Tenant, method, path string, body []byte) (int, string) {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Host = tn.Slug + "." + baseDomain
	req.Header.Set("Authorization", tn.Key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.router.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// count runs a count query over the write tenant's schema.
func (e writeEnv) count(t *testing.T, schema, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.db.QueryRow(fmt.Sprintf(query, schema), args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestWriteScenariosSendValidNewBatches sends each users batch of the
// write scenarios twice (two fresh batches, as the run does; the password
// batch once) through
// learngate's real router and requires the exact answer the run checks;
// then checks in the database that the rows are what the scenario claims
// (new users, enrolments, stored passwords, one user updated), and that
// the other tenant sees none of them.
func TestWriteScenariosSendValidNewBatches(t *testing.T) {
	e := newWriteEnv(t)
	for _, w := range userWrites() {
		t.Run(w.key, func(t *testing.T) {
			prefix := "lgw" + w.key + "-test"
			next := fresh(prefix, w.body)
			// Two batches, as a run sends one after another; one of
			// passwords (100 bcrypt hashes take seconds here).
			batches := 2
			if w.key == "passwords" {
				batches = 1
			}
			for batch := 1; batch <= batches; batch++ {
				status, body := e.call(e.write, http.MethodPost, "/papi/users/batch_save", next())
				if status != http.StatusOK || body != resultBody(w.result) {
					t.Fatalf("batch %d: %d %s, want 200 %s", batch, status, body, resultBody(w.result))
				}
			}
			// Batches of fresh names: every user is new.
			users := e.count(t, e.write.Schema, `SELECT count(*) FROM %s.users WHERE user_name LIKE $1`, prefix+"-%")
			if want := batches * w.result.Created; users != want {
				t.Errorf("%d users named %s-..., want %d", users, prefix, want)
			}
			if got := e.count(t, e.other.Schema, `SELECT count(*) FROM %s.users WHERE user_name LIKE $1`, prefix+"-%"); got != 0 {
				t.Errorf("the other tenant holds %d of the users", got)
			}
			if status, _ := e.call(e.other, http.MethodGet, "/papi/users/"+prefix+"-1-0", nil); status != http.StatusNotFound {
				t.Errorf("the other tenant reads %s-1-0: %d, want 404", prefix, status)
			}
			checkWriteRows(t, e, w, prefix)
		})
	}
}

// checkWriteRows checks what distinguishes each kind of batch in the
// database.
func checkWriteRows(t *testing.T, e writeEnv, w userWrite, prefix string) {
	schema := e.write.Schema
	switch w.key {
	case "codes":
		// Each user: two topic enrolments and one pathway enrolment sent.
		paths := e.count(t, schema, `SELECT count(*) FROM %s.pathway_enrolments pe JOIN `+schema+
			`.users u ON u.id = pe.user_id WHERE u.user_name LIKE $1`, prefix+"-%")
		if paths != 2*usersPerBatch {
			t.Errorf("%d pathway enrolments, want %d", paths, 2*usersPerBatch)
		}
		direct := e.count(t, schema, `SELECT count(DISTINCT (te.user_id, te.topic_id)) FROM %s.topic_enrolments te JOIN `+schema+
			`.users u ON u.id = te.user_id WHERE u.user_name LIKE $1`, prefix+"-%")
		if direct < 2*2*usersPerBatch {
			t.Errorf("%d topic enrolments, want at least %d (two topic codes per user)", direct, 4*usersPerBatch)
		}
	case "twice":
		var first string
		if err := e.db.QueryRow(`SELECT first_name FROM `+schema+`.users WHERE user_name = $1`, prefix+"-1-0").Scan(&first); err != nil {
			t.Fatal(err)
		}
		if first != "Bench again" {
			t.Errorf("the user named twice has first_name %q, want the second row's", first)
		}
	case "passwords":
		rows, err := e.db.Query(`SELECT user_name, password_hash FROM `+schema+`.users WHERE user_name LIKE $1`, prefix+"-%")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var name string
			var hash sql.NullString
			if err := rows.Scan(&name, &hash); err != nil {
				t.Fatal(err)
			}
			if cost, err := bcryptCost(hash.String); err != nil || cost < 4 {
				t.Errorf("%s: stored password %q: cost %d, %v", name, hash.String, cost, err)
			}
			n++
		}
		if n != usersPerBatch {
			t.Errorf("%d users with a password, want %d", n, usersPerBatch)
		}
	default:
		if got := e.count(t, schema, `SELECT count(*) FROM %s.users WHERE user_name LIKE $1 AND password_hash IS NOT NULL`, prefix+"-%"); got != 0 {
			t.Errorf("%d users of a batch without passwords have one", got)
		}
	}
}

// TestWriteBodiesAreFresh: two requests of one arm never share a user
// name, and the named-twice batch names exactly one user twice.
func TestWriteBodiesAreFresh(t *testing.T) {
	for _, w := range userWrites() {
		next := fresh("lgw"+w.key+"-fresh", w.body)
		a, b := string(next()), string(next())
		for k := range usersPerBatch {
			name := fmt.Sprintf(`"lgw%s-fresh-1-%d"`, w.key, k)
			if bytes.Contains([]byte(b), []byte(name)) {
				t.Errorf("%s: the second batch repeats %s", w.key, name)
			}
		}
		if n := bytes.Count([]byte(a), []byte(`"lgw`+w.key+`-fresh-1-0"`)); (w.key == "twice") != (n == 2) || n == 0 {
			t.Errorf("%s: the first user is named %d times", w.key, n)
		}
	}
	if !bytes.Contains(load.BatchUsersWithCodes("x", 1, 1), []byte(`"enrolment_code_3":"P1"`)) {
		t.Error("the codes batch does not send a pathway code")
	}
}
