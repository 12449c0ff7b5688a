package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"sync/atomic"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate/secrets"
)

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
	return &DB{pool: pool, url: url, migrations: pool.DB, secrets: secrets.DevKeyring()}, n
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
