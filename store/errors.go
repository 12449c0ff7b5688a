package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/lib/pq"

	"learngate"
)

// translate converts driver errors into learngate errors, once, at the store
// boundary: no rows → NotFound, unique violation → Conflict, an unreachable
// database → Unavailable. Errors that are already *learngate.Error pass through.
func translate(err error) error {
	if err == nil {
		return nil
	}
	var le *learngate.Error
	if errors.As(err, &le) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return &learngate.Error{Code: learngate.NotFound, Message: "not found", Err: err}
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		switch pqErr.Code {
		case "23505": // unique_violation
			return &learngate.Error{Code: learngate.Conflict, Message: "already exists", Err: err}
		case "57P01", "57P02", "57P03", "53300": // admin/crash shutdown, cannot connect now, too many connections
			return &learngate.Error{Code: learngate.Unavailable, Message: "service unavailable", Err: err}
		}
		return err
	}
	if isConnectionError(err) {
		return &learngate.Error{Code: learngate.Unavailable, Message: "service unavailable", Err: err}
	}
	return err
}

// isConnectionError reports whether err means the database could not be reached.
func isConnectionError(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF)
}

// ConstraintName returns the name of the violated constraint of a Conflict
// error, or "" (used to tell which unique value was taken).
func ConstraintName(err error) string {
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		return pqErr.Constraint
	}
	return ""
}
