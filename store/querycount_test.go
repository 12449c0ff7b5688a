package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate/secrets"
	"learngate/store/storetest/pgtemplate"
)

// ownDatabase creates an empty database of its own for tb, dropped at
// the end, and returns its URL.
func ownDatabase(tb testing.TB) string {
	tb.Helper()
	admin := os.Getenv("LEARNGATE_TEST_DATABASE_URL")
	if admin == "" {
		admin = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	name := fmt.Sprintf("lgbench_%d", time.Now().UnixNano())
	adminDB, err := sql.Open("postgres", admin)
	if err != nil {
		tb.Fatal(err)
	}
	defer adminDB.Close()
	if _, err := adminDB.Exec(`CREATE DATABASE ` + name); err != nil {
		tb.Fatalf("create database: %v", err)
	}
	tb.Cleanup(func() {
		if a, err := sql.Open("postgres", admin); err == nil {
			a.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
			a.Close()
		}
	})
	u, _ := url.Parse(admin)
	u.Path = "/" + name
	return u.String()
}

// migratedDatabase is ownDatabase already migrated: a copy of the
// migrated template (pgtemplate) that storetest.NewDB copies too, made by
// MigrateAll on an empty database.
func migratedDatabase(tb testing.TB) string {
	tb.Helper()
	admin := os.Getenv("LEARNGATE_TEST_DATABASE_URL")
	if admin == "" {
		admin = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	digest, err := pgtemplate.SourceDigest()
	if err != nil {
		tb.Fatalf("digest of the migrations: %v", err)
	}
	name := fmt.Sprintf("lgbench_%d", time.Now().UnixNano())
	tb.Cleanup(func() {
		if a, err := sql.Open("postgres", admin); err == nil {
			a.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
			a.Close()
		}
	})
	build := func(ctx context.Context, url string) error {
		db, err := Open(ctx, url)
		if err != nil {
			return err
		}
		defer db.Close()
		return db.MigrateAll(ctx, nil)
	}
	if err := pgtemplate.Create(context.Background(), admin, name, digest, build); err != nil {
		tb.Fatalf("create database: %v", err)
	}
	u, _ := url.Parse(admin)
	u.Path = "/" + name
	return u.String()
}

// openCounting opens a store over url whose every statement sent to
// PostgreSQL (ExecContext and QueryContext, BEGIN and COMMIT not included)
// adds one to the returned counter.
func openCounting(tb testing.TB, url string) (*DB, *atomic.Int64) {
	tb.Helper()
	inner, err := pq.NewConnector(url)
	if err != nil {
		tb.Fatalf("connector: %v", err)
	}
	n := new(atomic.Int64)
	pool := sqlx.NewDb(sql.OpenDB(countingConnector{inner: inner, n: n}), "postgres")
	tb.Cleanup(func() { pool.Close() })
	return &DB{pool: pool, url: url, migrations: pool.DB, migrationsConnector: countingConnector{inner: inner, n: n},
		secrets: secrets.DevKeyring()}, n
}

type countingConnector struct {
	inner driver.Connector
	n     *atomic.Int64
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return countingConn{pqConn: conn.(pqConn), n: c.n}, nil
}

func (c countingConnector) Driver() driver.Driver { return c.inner.Driver() }

// pqConn is what lib/pq's connection implements and the pool uses.
type pqConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ExecerContext
	driver.QueryerContext
	driver.NamedValueChecker
}

type countingConn struct {
	pqConn
	n *atomic.Int64
}

func (c countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.n.Add(1)
	return c.pqConn.ExecContext(ctx, q, args)
}

func (c countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.n.Add(1)
	return c.pqConn.QueryContext(ctx, q, args)
}
