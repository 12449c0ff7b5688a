package store

import (
	"context"
	"database/sql/driver"
)

// schemaCapConnector opens connections that count the distinct tenant
// schemas their transactions were scoped to (scopeSQL, the first
// statement of every TenantDB transaction) and call themselves invalid
// once past max, so that database/sql closes one when it is next returned
// to the pool instead of keeping it. A PostgreSQL backend caches the
// catalog of every schema it touched, for as long as it lives: at 10,000
// tenants a long-lived connection would grow to gigabytes; capped, each
// holds at most max schemas' worth (docs/performance.md, "Backend
// memory"). A lifetime alone bounds it only by time, and a busy
// connection meets thousands of schemas in minutes.
type schemaCapConnector struct {
	inner driver.Connector
	max   int
}

// Connect opens a counting connection.
func (c schemaCapConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc, ok := conn.(pqDriverConn)
	if !ok {
		return conn, nil
	}
	return &schemaCapConn{pqDriverConn: pc, max: c.max, seen: map[string]struct{}{}}, nil
}

// Driver is lib/pq's driver.
func (c schemaCapConnector) Driver() driver.Driver { return c.inner.Driver() }

// pqDriverConn is what lib/pq's connection implements and database/sql
// uses.
type pqDriverConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.NamedValueChecker
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// schemaCapConn is a connection that remembers the schemas it served.
// database/sql uses a connection from one goroutine at a time.
type schemaCapConn struct {
	pqDriverConn
	max  int
	seen map[string]struct{}
}

// ExecContext runs query, noting the schema when it is scopeSQL.
func (c *schemaCapConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if query == scopeSQL && len(args) == 1 {
		if schema, ok := args[0].Value.(string); ok {
			c.seen[schema] = struct{}{}
		}
	}
	return c.pqDriverConn.ExecContext(ctx, query, args)
}

// IsValid is false once the connection served more than max schemas, or
// when lib/pq says it is broken.
func (c *schemaCapConn) IsValid() bool {
	return len(c.seen) <= c.max && c.pqDriverConn.IsValid()
}
