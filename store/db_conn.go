package store

import (
	"context"
	"net"
	"time"
)

// readTimeoutDialer dials PostgreSQL connections whose reads give up after
// timeout without a byte from the server (readTimeoutConn). It implements
// lib/pq's Dialer and DialerContext.
type readTimeoutDialer struct {
	timeout time.Duration
	net     net.Dialer
}

// Dial connects to address.
func (d readTimeoutDialer) Dial(network, address string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, address)
}

// DialTimeout connects to address, giving up after timeout.
func (d readTimeoutDialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, network, address)
}

// DialContext connects to address until ctx ends.
func (d readTimeoutDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := d.net.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	return &readTimeoutConn{Conn: c, timeout: d.timeout}, nil
}

// readTimeoutConn is a connection whose every read fails with a timeout
// when the server sends nothing for timeout. lib/pq does not interrupt a
// read when the query's context ends (it sends a cancel request the server
// may never read), so without this a database that hangs instead of
// refusing connections holds requests forever (R6 in docs/reliability.md).
// An idle pooled connection reads nothing and is not affected.
type readTimeoutConn struct {
	net.Conn
	timeout time.Duration
}

// Read reads with a deadline timeout from now.
func (c *readTimeoutConn) Read(b []byte) (int, error) {
	if err := c.Conn.SetReadDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, err
	}
	return c.Conn.Read(b)
}
