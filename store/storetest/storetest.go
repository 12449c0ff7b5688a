// Package storetest gives tests their own PostgreSQL database and Redis
// address. A test calls NewDB and gets a freshly created, migrated database
// that is dropped when the test ends.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"learngate/store"
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
	admin, err := sql.Open("postgres", AdminURL())
	if err != nil {
		tb.Fatalf("open admin database: %v", err)
	}
	defer admin.Close()
	name := "lgtest_" + RandomSuffix()
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		tb.Fatalf("create test database (is PostgreSQL running? `make test` starts it): %v", err)
	}
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
	return u.String()
}

// NewDB returns an open, migrated store over a fresh database for tb.
func NewDB(tb testing.TB) (*store.DB, string) {
	tb.Helper()
	dbURL := NewDatabase(tb)
	db, err := store.Open(context.Background(), dbURL)
	if err != nil {
		tb.Fatalf("open test database: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	if err := db.MigrateAll(context.Background(), nil); err != nil {
		tb.Fatalf("migrate test database: %v", err)
	}
	return db, dbURL
}

// RandomSuffix returns 12 random hex characters for unique names.
func RandomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
