// Command baseline is the benchmark's yardstick: the least code that does
// what learngate does for the benchmarked requests of one fixed tenant.
// It runs the same SQL through database/sql and lib/pq, in a transaction
// scoped with set_config like learngate's, and writes the same JSON bytes;
// no framework, no authentication, no rate limiter. Gin serves only GET
// /papi/ping, as a bare route, to measure learngate's middleware chain
// against. Under /physical it also answers the read lists from one SQL
// statement each that builds the whole body (physical.go): the
// physical-limit baseline.
//
// It imports from learngate only types: the response types whose JSON is
// the service's (learngate.User, learngate.TopicEnrolment,
// learngate.BatchResult, learngate.KnowledgeBatchResult,
// papi.ListEnvelope), so that a change of a response is made once, in
// the service. Its SQL is its own: copies of the store's statements
// (store_sql.go, sql.go), checked against store/'s source by
// TestCopiedSQLMatchesTheStore. It calls none of the store's or
// handlers' functions: reading rows, scoping, paging and batching are its
// own plain database/sql code, the work the benchmark compares.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/gin-gonic/gin"
	_ "github.com/lib/pq" // the PostgreSQL driver

	"learngate/handlers/papi"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "listen address")
	dbURL := flag.String("db", "", "PostgreSQL URL of the learngate database")
	schema := flag.String("schema", "", "the tenant's schema (tenant_N)")
	slug := flag.String("slug", "", "the tenant's slug, for /papi/ping")
	timezone := flag.String("timezone", "UTC", "the tenant's time zone, for new users")
	flag.Parse()
	if *dbURL == "" || *schema == "" || *slug == "" {
		log.Fatal("baseline: -db, -schema and -slug are required")
	}
	db, err := sql.Open("postgres", *dbURL)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(25) // as store.Open
	db.SetMaxIdleConns(25)
	srv := &http.Server{Addr: *addr, Handler: newServer(db, *schema, *slug, *timezone).routes(), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(1)
	}
}

// server answers for one tenant.
type server struct {
	db       *sql.DB
	schema   string
	slug     string
	timezone string
	now      func() time.Time
}

func newServer(db *sql.DB, schema, slug, timezone string) *server {
	return &server{db: db, schema: schema, slug: slug, timezone: timezone, now: time.Now}
}

// routes are the benchmarked endpoints.
func (s *server) routes() http.Handler {
	gin.SetMode(gin.ReleaseMode)
	bare := gin.New()
	bare.GET("/papi/ping", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"organisation": s.slug}) })
	mux := http.NewServeMux()
	mux.Handle("GET /papi/ping", bare)
	mux.HandleFunc("GET /papi/users", s.listUsers)
	mux.HandleFunc("GET /papi/topic_assignments", s.listTopicAssignments)
	mux.HandleFunc("POST /papi/users/batch_save", s.batchSaveUsers)
	mux.HandleFunc("POST /papi/external_knowledges/batch_save", s.batchSaveKnowledge)
	s.physicalRoutes(mux)
	return mux
}

// inTx runs fn in a transaction scoped to the tenant's schema.
func (s *server) inTx(ctx context.Context, readOnly bool, fn func(tx *sql.Tx) error) error {
	return s.inTxOpts(ctx, &sql.TxOptions{ReadOnly: readOnly}, fn)
}

// inSnapshot is inTx in one read-only REPEATABLE READ snapshot
// (store.TenantDB.SnapshotTx).
func (s *server) inSnapshot(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.inTxOpts(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}, fn)
}

func (s *server) inTxOpts(ctx context.Context, opts *sql.TxOptions, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, scopeSQL, s.schema); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// page reads page and per_page as learngate does (1 and 25 by default,
// per_page at most 100); the benchmark sends valid values only.
func page(r *http.Request) (number, size int) {
	number, size = 1, 25
	if n, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && n > 0 {
		number = n
	}
	if n, err := strconv.Atoi(r.URL.Query().Get("per_page")); err == nil && n > 0 {
		size = min(n, 100)
	}
	return number, size
}

// newEnvelope is learngate's list envelope (papi.ListEnvelope) around
// one page of records, as papi.newListEnvelope fills it.
func newEnvelope[T any](records []T, total int64, number, size int) papi.ListEnvelope[T] {
	if records == nil {
		records = []T{}
	}
	return papi.ListEnvelope[T]{TotalRecords: total, MaxPerPage: size, CurrentPage: number,
		TotalPages: (total + int64(size) - 1) / int64(size), Records: records}
}

// writeJSON writes v as gin's c.JSON does.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// fail answers 500 with the error, which the benchmark reports.
func fail(w http.ResponseWriter, err error) {
	writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
}
