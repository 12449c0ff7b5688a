package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
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
	"learngate/store"
	"learngate/store/storetest"
	"learngate/tenant"
)

func TestMain(m *testing.M) {
	gin.SetMode(gin.ReleaseMode)
	os.Exit(m.Run())
}

// harnessSpec is a dataset of two tenants: the one both servers answer
// for, and another whose data must not show.
var harnessSpec = datagen.Spec{Tenants: []datagen.TenantSpec{
	{Slug: "bench-one", Users: 130, TopicEnrolments: 260, Knowledge: 20, PathwayEnrolments: 13},
	{Slug: "bench-two", Users: 40, TopicEnrolments: 50, Knowledge: 5, PathwayEnrolments: 4},
}}

// sides are learngate's real public router and the baseline over the same
// generated database.
type sides struct {
	learngate, baseline http.Handler
	tenant              datagen.Tenant
	// pool is the baseline's database handle (tests shape the data through it).
	pool *sql.DB
	// dbURL is the generated database's URL.
	dbURL string
}

func newSides(t *testing.T) sides {
	t.Helper()
	ctx := context.Background()
	db, dbURL := storetest.NewDB(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg := tenant.NewRegistry(db, tenant.Options{BaseDomains: []string{"learngate.localhost"}, Logger: logger})
	ts, err := datagen.Ensure(ctx, db, reg, harnessSpec, io.Discard)
	if err != nil {
		t.Fatalf("datagen: %v", err)
	}
	// As the harness does: both sides then count and seek from rank anchors.
	for _, tn := range ts {
		tdb, err := db.Tenant(tn.Schema)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.MaintainListRanks(ctx, tdb); err != nil {
			t.Fatalf("list ranks: %v", err)
		}
	}
	blobs, err := blob.NewLocal(t.TempDir(), []byte("bench-test-signing-key-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	metrics := httpx.NewMetrics()
	gate := &httpx.Gate{DB: db, Registry: reg, Metrics: metrics, Logger: logger, AuthFailuresPerMinute: 20, Now: time.Now,
		Limiter: ratelimit.New(ratelimit.NewMemoryStore(time.Now), ratelimit.Options{Window: time.Minute, Logger: logger}),
		Ready:   func(ctx context.Context) error { return db.Ping(ctx) }}
	srv := &handlers.Server{Gate: gate, PublicScheme: "http",
		Web:  web.Deps{Blobs: blobs, PublicScheme: "http", Sessions: db, SAMLReplays: db},
		Ops:  ops.Deps{Tenants: reg, Token: "bench-test-ops-token", Metrics: metrics.Registry},
		Papi: papi.Deps{Blobs: blobs, Downloads: blobs, PublicScheme: "http"}}
	public, err := srv.PublicRouter()
	if err != nil {
		t.Fatal(err)
	}
	pool, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return sides{learngate: public, baseline: newServer(pool, ts[0].Schema, ts[0].Slug, "UTC").routes(), tenant: ts[0], pool: pool,
		dbURL: dbURL}
}

// call sends one request to h as the tenant and returns status and body.
func (s sides) call(h http.Handler, method, path string, body []byte) (int, []byte) {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Host = s.tenant.Slug + ".learngate.localhost"
	req.Header.Set("Authorization", s.tenant.Key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// TestHarnessIsHonest builds one generated database and checks, through
// learngate's real router and the baseline, the reads and then the writes.
func TestHarnessIsHonest(t *testing.T) {
	s := newSides(t)
	t.Run("reads are byte-identical and count the dataset", func(t *testing.T) { checkReads(t, s) })
	t.Run("batch writes answer alike and write the same rows", func(t *testing.T) { checkWrites(t, s) })
}

func checkReads(t *testing.T, s sides) {
	for _, tc := range []struct {
		path  string
		total int
	}{
		{"/papi/users?per_page=100", s.tenant.Users},
		{"/papi/users?per_page=100&page=2", s.tenant.Users},
		{"/papi/users?per_page=100&page=9", s.tenant.Users},
		{"/papi/topic_assignments?per_page=100", s.tenant.TopicEnrolments},
		{"/papi/topic_assignments?per_page=100&page=3", s.tenant.TopicEnrolments},
		{"/papi/ping", -1},
	} {
		t.Run(tc.path, func(t *testing.T) {
			lgStatus, lg := s.call(s.learngate, http.MethodGet, tc.path, nil)
			blStatus, bl := s.call(s.baseline, http.MethodGet, tc.path, nil)
			if lgStatus != http.StatusOK || blStatus != http.StatusOK {
				t.Fatalf("status learngate %d, baseline %d: %s / %s", lgStatus, blStatus, lg, bl)
			}
			if !bytes.Equal(lg, bl) {
				t.Fatalf("bodies differ:\nlearngate %s\nbaseline  %s", lg, bl)
			}
			if tc.total < 0 {
				return
			}
			var env struct {
				Total   int               `json:"total_records"`
				Records []json.RawMessage `json:"records"`
			}
			if err := json.Unmarshal(lg, &env); err != nil {
				t.Fatal(err)
			}
			if env.Total != tc.total {
				t.Errorf("total_records = %d, want the spec's %d", env.Total, tc.total)
			}
			if len(env.Records) == 0 && tc.total > 0 && !bytes.Contains([]byte(tc.path), []byte("page=9")) {
				t.Errorf("no records")
			}
		})
	}
}

// userTimes and userNames are what two users created by the same request
// shape on the two servers may differ in.
var (
	userTimes = regexp.MustCompile(`"(created_at|updated_at)":"[^"]*"`)
	userNames = regexp.MustCompile(`(lg|bl)-0-`)
)

func checkWrites(t *testing.T, s sides) {
	lgStatus, lg := s.call(s.learngate, http.MethodPost, "/papi/users/batch_save", load.BatchUsers("lg", 0, 100))
	blStatus, bl := s.call(s.baseline, http.MethodPost, "/papi/users/batch_save", load.BatchUsers("bl", 0, 100))
	want := `{"created":100,"updated":0,"unchanged":0,"enrolled":0,"invitations_sent":0,"invitations_failed":0,"errors":0,"error_list":[]}`
	if lgStatus != 200 || blStatus != 200 || string(lg) != want || string(bl) != want {
		t.Fatalf("batch users: learngate %d %s; baseline %d %s", lgStatus, lg, blStatus, bl)
	}
	for _, k := range []int{0, 37, 99} {
		_, a := s.call(s.learngate, http.MethodGet, fmt.Sprintf("/papi/users/lg-0-%d", k), nil)
		_, b := s.call(s.learngate, http.MethodGet, fmt.Sprintf("/papi/users/bl-0-%d", k), nil)
		na := userNames.ReplaceAll(userTimes.ReplaceAll(a, nil), []byte("x-0-"))
		nb := userNames.ReplaceAll(userTimes.ReplaceAll(b, nil), []byte("x-0-"))
		if !bytes.Equal(na, nb) || !bytes.Contains(a, []byte(`"role_2":"Role 10"`)) {
			t.Errorf("user %d differs:\nlearngate %s\nbaseline  %s", k, a, b)
		}
	}

	lgStatus, lg = s.call(s.learngate, http.MethodPost, "/papi/external_knowledges/batch_save", load.BatchKnowledge(0, 100, s.tenant.Users))
	blStatus, bl = s.call(s.baseline, http.MethodPost, "/papi/external_knowledges/batch_save", load.BatchKnowledge(0, 100, s.tenant.Users))
	if lgStatus != 200 || blStatus != 200 || string(lg) != `{"created":100,"updated":0,"unchanged":0}` || !bytes.Equal(lg, bl) {
		t.Fatalf("batch knowledge: learngate %d %s; baseline %d %s", lgStatus, lg, blStatus, bl)
	}
	// The two batches wrote the same records: compare the last 200 records
	// listed (oldest first), pairwise, ignoring ids and times.
	var all []map[string]any
	for page := 1; ; page++ {
		_, list := s.call(s.learngate, http.MethodGet, fmt.Sprintf("/papi/external_knowledges?per_page=100&page=%d", page), nil)
		var env struct {
			Records []map[string]any `json:"records"`
		}
		if err := json.Unmarshal(list, &env); err != nil {
			t.Fatalf("%v: %s", err, list)
		}
		if len(env.Records) == 0 {
			break
		}
		all = append(all, env.Records...)
	}
	if len(all) != s.tenant.Knowledge+200 {
		t.Fatalf("listed %d records, want %d", len(all), s.tenant.Knowledge+200)
	}
	all = all[len(all)-200:]
	for k := range 100 {
		x, y := all[k], all[k+100]
		for _, m := range []map[string]any{x, y} {
			delete(m, "id")
			delete(m, "created_at")
			delete(m, "updated_at")
		}
		jx, _ := json.Marshal(x)
		jy, _ := json.Marshal(y)
		if !bytes.Equal(jx, jy) {
			t.Fatalf("record %d differs:\nlearngate %s\nbaseline  %s", k, jx, jy)
		}
	}
}
