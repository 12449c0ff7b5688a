// Package store holds all of learngate's SQL: the connection pool, the
// embedded migrations, the shared-schema tables (tenants, domains, API keys)
// and the tenant-scoped handle through which every tenant query runs.
package store

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"

	"learngate/secrets"
)

// DB is the shared connection pool. Only the store and the tenant registry
// use it directly; request handlers get a *TenantDB instead.
type DB struct {
	pool *sqlx.DB
	url  string
	// migrations is the pool of migration work: pool itself, or a pool of
	// its own when Options.DirectURL names another server or when pool's
	// reads time out (Options.ReadTimeout), since a migration may wait
	// minutes for the migration lock or run long DDL without a byte from
	// the server.
	migrations *sql.DB
	// migrationsConnector opens connections like those of migrations:
	// MigrateAll's workers open their own from it (migrateTenants).
	migrationsConnector driver.Connector
	// jobs queues background jobs inside store transactions (insert only).
	jobs *river.Client[*sql.Tx]
	// secrets encrypts the secrets kept at rest (webhook signing secrets).
	secrets *secrets.Keyring
}

// Options tunes the connections of a DB.
type Options struct {
	// ReadTimeout fails a query, and the request waiting on it, when the
	// server sends nothing for that long (the connection is then dropped);
	// zero waits for ever. LEARNGATE_DATABASE_READ_TIMEOUT.
	ReadTimeout time.Duration
	// Secrets encrypts webhook signing secrets at rest
	// (LEARNGATE_SECRETS_KEY); nil uses secrets.DevKeyring, the fixed
	// development key of tests and LEARNGATE_INSECURE_DEV.
	Secrets *secrets.Keyring
	// DirectURL is where migrations connect (LEARNGATE_DATABASE_DIRECT_URL):
	// PostgreSQL itself when the main URL goes through a connection pooler.
	// Empty means the main URL.
	DirectURL string
	// ConnMaxLifetime closes a connection of the pools that long after it
	// opened, when it is next returned (LEARNGATE_DATABASE_CONN_MAX_LIFETIME);
	// zero keeps it.
	ConnMaxLifetime time.Duration
	// ConnMaxSchemas closes a connection of the main pool, when it is next
	// returned, once it served more distinct tenant schemas than that
	// (schemaCapConnector, LEARNGATE_DATABASE_CONN_MAX_SCHEMAS); zero
	// means no limit.
	ConnMaxSchemas int
}

// Open connects to PostgreSQL at url and checks the connection. The DB it
// returns can queue background jobs (in JobSchema) but works none: that is
// the worker's (package jobs).
func Open(ctx context.Context, url string) (*DB, error) {
	return OpenWith(ctx, url, Options{})
}

// OpenWith is Open with opts.
func OpenWith(ctx context.Context, url string, opts Options) (*DB, error) {
	connector, err := newConnector(url)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if opts.ReadTimeout > 0 {
		connector.Dialer(readTimeoutDialer{timeout: opts.ReadTimeout})
	}
	var main driver.Connector = connector
	if opts.ConnMaxSchemas > 0 {
		main = schemaCapConnector{inner: connector, max: opts.ConnMaxSchemas}
	}
	pool := sqlx.NewDb(sql.OpenDB(main), "postgres")
	pool.SetMaxOpenConns(25)
	pool.SetMaxIdleConns(25)
	pool.SetConnMaxIdleTime(5 * time.Minute)
	pool.SetConnMaxLifetime(opts.ConnMaxLifetime)
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := pool.PingContext(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	jobs, err := newJobInserter(pool.DB)
	if err != nil {
		pool.Close()
		return nil, err
	}
	db := &DB{pool: pool, url: url, jobs: jobs, migrations: pool.DB, migrationsConnector: connector, secrets: opts.Secrets}
	if db.secrets == nil {
		db.secrets = secrets.DevKeyring()
	}
	if direct := cmp.Or(opts.DirectURL, url); opts.ReadTimeout > 0 || direct != url {
		migrations, err := newConnector(direct)
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("open migration pool (LEARNGATE_DATABASE_DIRECT_URL): %w", err)
		}
		db.migrations, db.migrationsConnector = sql.OpenDB(migrations), migrations
		db.migrations.SetMaxIdleConns(2)
		db.migrations.SetConnMaxIdleTime(time.Minute)
		db.migrations.SetConnMaxLifetime(opts.ConnMaxLifetime)
	}
	return db, nil
}

// newConnector returns lib/pq's connector of url with binary_parameters
// on: a query with parameters outside a prepared statement then goes to
// the server in one round trip (Parse, Bind, Describe, Execute, Sync)
// instead of two, which a pooler in transaction mode (PgBouncer) may hand
// to two different server connections, running one query with another's
// parameters (docs/decisions.md, "Through PgBouncer"). Every pool opens
// through it.
func newConnector(url string) (*pq.Connector, error) {
	cfg, err := pq.NewConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.BinaryParameters = true
	return pq.NewConnectorConfig(cfg)
}

// Close closes the pools.
func (db *DB) Close() error {
	if db.migrations != db.pool.DB {
		db.migrations.Close()
	}
	return db.pool.Close()
}

// Ping reports whether the database answers; used by /readyz.
func (db *DB) Ping(ctx context.Context) error { return db.pool.PingContext(ctx) }

// SetMaxOpenConns bounds the pool; tests use it to force connection reuse.
func (db *DB) SetMaxOpenConns(n int) {
	db.pool.SetMaxOpenConns(n)
	db.pool.SetMaxIdleConns(n)
}

// Pool exposes the raw pool to tests and to the job queue, which manages its
// own transactions in the shared schema. Request handlers never get it.
func (db *DB) Pool() *sqlx.DB { return db.pool }

// inTx runs fn in a transaction on the shared schema, committing when fn
// returns nil and rolling back otherwise.
func (db *DB) inTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	tx, err := db.pool.BeginTxx(ctx, nil)
	if err != nil {
		return translate(fmt.Errorf("begin: %w", err))
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return translate(err)
	}
	if err := tx.Commit(); err != nil {
		return translate(fmt.Errorf("commit: %w", err))
	}
	return nil
}
