// Package storetest gives tests their own PostgreSQL database and Redis
// address. A test calls NewDB and gets a freshly created, migrated database
// (a copy of a migrated template, see pgtemplate) that is dropped when the
// test ends.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate/store"
	"learngate/store/storetest/pgtemplate"
)

// DefaultDatabaseURL is used when LEARNGATE_TEST_DATABASE_URL is not set.
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// DefaultRedisURL is used when LEARNGATE_TEST_REDIS_URL is not set.
const DefaultRedisURL = "redis://127.0.0.1:6379/0"

// AdminURL returns the URL of the server's maintenance database.
func AdminURL() string {
	if u := os.Getenv("LEARNGATE_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultDatabaseURL
}

// RedisURL returns the Redis the tests use.
func RedisURL() string {
	if u := os.Getenv("LEARNGATE_TEST_REDIS_URL"); u != "" {
		return u
	}
	return DefaultRedisURL
}

// NewDatabase creates an empty database for tb, dropped in tb.Cleanup, and
// returns its URL.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	dbURL, _ := newDatabase(tb, false)
	return dbURL
}

// SpareTenantSchemas is how many tenant schemas a test database from the
// template holds before any tenant exists: tenant_1 and tenant_2, made by
// store.CreateTenantSchema in the template as a creation makes them. The
// first tenants a test creates (ids 1 and 2, and most tests make two) find
// their schema there, so their creation takes CreateTenantSchema's path
// for an existing schema (its pending migrations, none, and its record)
// instead of running the schema script: about 0.4 s of PostgreSQL's time
// less per tenant, for about 0.1 s more per spare in each copy of the
// template (0.24 s to copy it without spares, 0.42 s with two). A spare schema
// that no tenant takes has no row in public.tenants, so nothing lists or
// migrates it. Tests of the script itself (store's TestTenantSchemaScript,
// creation tests on other ids) still run it.
const SpareTenantSchemas = 2

// NewDB returns an open, migrated store over a fresh database for tb. The
// database is a copy of the migrated template (pgtemplate), built by the
// first test of a run when this code's migrations have none yet, with the
// spare tenant schemas (SpareTenantSchemas); on a Citus cluster, where
// each test database is a cluster of its own, it is migrated in place as
// before, without spares.
func NewDB(tb testing.TB) (*store.DB, string) {
	tb.Helper()
	dbURL, migrated := newDatabase(tb, true)
	db, err := store.Open(context.Background(), dbURL)
	if err != nil {
		tb.Fatalf("open test database: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	if !migrated {
		if err := db.MigrateAll(context.Background(), nil); err != nil {
			tb.Fatalf("migrate test database: %v", err)
		}
	}
	return db, dbURL
}

// DropSpareSchemas drops the spare tenant schemas of db (a NewDB
// database), for a test whose first tenants' schemas must not exist until
// it makes them itself (a creation, a migration, an older node's schema).
func DropSpareSchemas(tb testing.TB, db *store.DB) {
	tb.Helper()
	for id := int64(1); id <= SpareTenantSchemas; id++ {
		if _, err := db.Pool().Exec(`DROP SCHEMA IF EXISTS ` + store.SchemaName(id) + ` CASCADE`); err != nil {
			tb.Fatalf("drop spare schema %d: %v", id, err)
		}
	}
}

// newDatabase creates a database for tb, dropped in tb.Cleanup, and
// returns its URL; with fromTemplate, and when the server is no Citus
// coordinator, as a copy of the migrated template, and migrated says so.
func newDatabase(tb testing.TB, fromTemplate bool) (dbURL string, migrated bool) {
	tb.Helper()
	admin, err := sql.Open("postgres", AdminURL())
	if err != nil {
		tb.Fatalf("open admin database: %v", err)
	}
	defer admin.Close()
	workers, err := citusWorkers(admin)
	if err != nil {
		tb.Fatalf("look for Citus workers (is PostgreSQL running? `make test` starts it): %v", err)
	}
	name := "lgtest_" + RandomSuffix()
	tb.Cleanup(func() {
		admin, err := sql.Open("postgres", AdminURL())
		if err != nil {
			return
		}
		defer admin.Close()
		if _, err := admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`); err != nil {
			tb.Logf("drop test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(AdminURL())
	if err != nil {
		tb.Fatalf("parse LEARNGATE_TEST_DATABASE_URL: %v", err)
	}
	u.Path = "/" + name
	migrated = fromTemplate && len(workers) == 0
	if migrated {
		if err := pgtemplate.Create(context.Background(), AdminURL(), name, templateDigest(tb), migrateTemplate); err != nil {
			tb.Fatalf("create test database: %v", err)
		}
	} else if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		tb.Fatalf("create test database (is PostgreSQL running? `make test` starts it): %v", err)
	}
	// A test database need not survive a crash of the server: commits
	// return before their WAL is flushed, which saves a disk flush per
	// statement. Tests that crash PostgreSQL (soak/) run on a cluster and
	// database of their own with durable commits.
	if _, err := admin.Exec(`ALTER DATABASE ` + name + ` SET synchronous_commit = off`); err != nil {
		tb.Fatalf("set up test database: %v", err)
	}
	if len(workers) > 0 {
		makeCitusDatabase(tb, AdminURL(), name, workers)
	}
	return u.String(), migrated
}

// templateDigest names the migrated template of this code
// (pgtemplate.SourceDigest) with its spare schemas; the suffix keeps it
// apart from a template of the same code without them (store's own tests
// build one).
func templateDigest(tb testing.TB) string {
	tb.Helper()
	digest, err := pgtemplate.SourceDigest()
	if err != nil {
		tb.Fatalf("digest of the migrations: %v", err)
	}
	return fmt.Sprintf("%s_spare%d", digest, SpareTenantSchemas)
}

// migrateTemplate is the template's build: MigrateAll on the empty
// database, as NewDB did for every test before templates, then the spare
// tenant schemas.
func migrateTemplate(ctx context.Context, dbURL string) error {
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.MigrateAll(ctx, nil); err != nil {
		return err
	}
	for id := int64(1); id <= SpareTenantSchemas; id++ {
		if err := db.CreateTenantSchema(ctx, store.SchemaName(id)); err != nil {
			return fmt.Errorf("spare schema %d: %w", id, err)
		}
	}
	return nil
}

// RandomSuffix returns 12 random hex characters for unique names.
func RandomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// EnrolmentSeed describes a topic or pathway enrolment for SeedEnrolment.
//
// SeedEnrolment writes the topic or pathway and the enrolment rows
// directly, so that certificate and job tests set up an enrolment in any
// state (a removed one, a certified date of their choosing) in one call.
// Tests of the enrolment rules themselves go through store.AssignEnrolments
// or the API.
type EnrolmentSeed struct {
	// Kind is store.TopicCertificate or store.PathwayCertificate.
	Kind string
	// UserID is the learner (a user made with store.CreateUser).
	UserID int64
	// Title and ShowCertificate describe the new topic or pathway.
	Title           string
	ShowCertificate bool
	// Status defaults to Conquered; ConqueredAt is required when it is Conquered.
	Status        string
	ConqueredAt   *time.Time
	CertifiedDate *time.Time
	// Removed marks the enrolment unenrolled (removed_at set).
	Removed bool
}

// SeedEnrolment creates a topic or pathway and the user's enrolment in it
// in tdb's tenant, and returns the enrolment's id.
func SeedEnrolment(tb testing.TB, tdb *store.TenantDB, s EnrolmentSeed) int64 {
	tb.Helper()
	if s.Status == "" {
		s.Status = "Conquered"
	}
	conquered := s.ConqueredAt
	if s.Status != "Conquered" && s.Kind == store.TopicCertificate {
		conquered = nil // topic_enrolments ties completed_topic_at to Conquered
	}
	var removedAt *time.Time
	if s.Removed {
		now := time.Now()
		removedAt = &now
	}
	table, owner, column, conqueredColumn := "topics", "topic_enrolments", "topic_id", "completed_topic_at"
	if s.Kind == store.PathwayCertificate {
		table, owner, column, conqueredColumn = "pathways", "pathway_enrolments", "pathway_id", "conquered_at"
	}
	var id int64
	err := tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		var ownerID int64
		if err := tx.Get(&ownerID, `INSERT INTO `+table+` (title, show_certificate) VALUES ($1, $2) RETURNING id`,
			s.Title, s.ShowCertificate); err != nil {
			return err
		}
		return tx.Get(&id, `INSERT INTO `+owner+` (user_id, `+column+`, status, `+conqueredColumn+`, certified_date, removed_at)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			s.UserID, ownerID, s.Status, conquered, s.CertifiedDate, removedAt)
	})
	if err != nil {
		tb.Fatalf("seed %s enrolment: %v", s.Kind, err)
	}
	return id
}

// SeedConqueredEnrolment is SeedEnrolment of a conquered topic enrolment,
// conquered at conquered, whose topic shows certificates.
func SeedConqueredEnrolment(tb testing.TB, tdb *store.TenantDB, userID int64, title string, conquered time.Time) int64 {
	tb.Helper()
	return SeedEnrolment(tb, tdb, EnrolmentSeed{Kind: store.TopicCertificate, UserID: userID, Title: title,
		ShowCertificate: true, ConqueredAt: &conquered})
}
