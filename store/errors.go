package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"syscall"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/input"
)

// isUniqueViolation reports whether err is PostgreSQL's unique_violation:
// the one check of it in the store.
func isUniqueViolation(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "23505"
}

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
	if isUniqueViolation(err) {
		return &learngate.Error{Code: learngate.Conflict, Message: "already exists", Err: err}
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		switch pqErr.Code {
		case "57P01", "57P02", "57P03", "53300": // admin/crash shutdown, cannot connect now, too many connections
			return &learngate.Error{Code: learngate.Unavailable, Message: "service unavailable", Err: err}
		}
		if pqErr.Code.Class() == "08" {
			// A connection exception: on a Citus coordinator, the worker
			// holding the tenant's schema cannot be reached (08006). Only
			// that worker's tenants get it; the others keep working.
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
// error, or "" (used to tell which unique value was taken). A Citus
// coordinator relays a worker's violation with the constraint field empty
// and the shard's constraint name (the table's name plus "_<shard id>")
// only in the message: the name is then taken from the message and the
// shard suffix dropped, so both topologies give the same name.
func ConstraintName(err error) string {
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) {
		return ""
	}
	if pqErr.Constraint != "" {
		return pqErr.Constraint
	}
	m := relayedConstraint.FindStringSubmatch(pqErr.Message)
	if m == nil {
		return ""
	}
	return m[1]
}

// relayedConstraint finds the constraint in a unique violation's message as
// a Citus worker words it: `... unique constraint "groups_name_102010"`.
var relayedConstraint = regexp.MustCompile(`constraint "(.+?)(?:_[0-9]+)?"`)

// notFound makes a missing row the Public API's "not found".
func notFound(err error) error {
	if learngate.IsCode(translate(err), learngate.NotFound) {
		return &learngate.Error{Code: learngate.NotFound, Message: "not found", Err: err}
	}
	return err
}

// nilIfNotFound drops a missing row: the caller's result stays at its zero value.
func nilIfNotFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}

// deleteByID deletes row id of table, which must be a constant of this
// package; NotFound when there is no such row.
func deleteByID(ctx context.Context, tx *sqlx.Tx, table string, id int64) error {
	res, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("delete from %s: %w", table, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return learngate.Errorf(learngate.NotFound, "not found")
	}
	return nil
}

// alreadyExists turns the Conflict of a taken name into the Unprocessable
// error the Public API answers with; other errors pass through.
func alreadyExists(err error, what, name string) error {
	if learngate.IsCode(err, learngate.Conflict) {
		return &learngate.Error{Code: learngate.Unprocessable, Message: fmt.Sprintf("%s '%s' already exists", what, input.Quote(name)), Err: err}
	}
	return err
}
