package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lib/pq"
	"github.com/riverqueue/river"

	"learngate"
)

// Learners' server-side sessions (docs/decisions.md, "Sign-in"), in the
// shared table web_sessions. Every read and write names the tenant: a
// session made on one tenant's host is never found on another's.

// FindWebSession returns the data of tenant's unexpired session token.
func (db *DB) FindWebSession(ctx context.Context, tenantID int64, token string, now time.Time) ([]byte, bool, error) {
	var data []byte
	err := db.pool.GetContext(ctx, &data, `SELECT data FROM public.web_sessions
		WHERE token = $1 AND tenant_id = $2 AND expiry > $3`, token, tenantID, now)
	if isNoRows(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, translate(fmt.Errorf("find session: %w", err))
	}
	return data, true, nil
}

// CommitWebSession saves tenant's session token with data until expiry,
// held by the signed-in user userID (0: none), whose sessions
// DeleteUserWebSessions ends. A token another tenant holds is never taken
// over.
func (db *DB) CommitWebSession(ctx context.Context, tenantID, userID int64, token string, data []byte, expiry time.Time) error {
	var uid *int64
	if userID > 0 {
		uid = &userID
	}
	_, err := db.pool.ExecContext(ctx, `INSERT INTO public.web_sessions (token, tenant_id, data, expiry, user_id)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (token) DO UPDATE SET data = $3, expiry = $4, user_id = $5 WHERE web_sessions.tenant_id = $2`,
		token, tenantID, data, expiry, uid)
	return translate(err)
}

// deleteUserWebSessionsSQL ends every session of the users $2 of tenant $1
// (found through web_sessions_tenant).
const deleteUserWebSessionsSQL = `DELETE FROM public.web_sessions WHERE tenant_id = $1 AND user_id = ANY($2::bigint[])`

// endWebSessions ends, inside tx, every learner session of the tenant's
// users ids: a password was set for them, so a session opened with the
// old one (or by whoever knew it) must not outlive it. The learner who set
// their own password at /password keeps going under a renewed session id,
// committed after this.
func (t *TenantDB) endWebSessions(ctx context.Context, tx execer, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	tenantID, err := t.tenantID()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, deleteUserWebSessionsSQL, tenantID, pq.Int64Array(ids)); err != nil {
		return fmt.Errorf("end sessions: %w", err)
	}
	return nil
}

// passwordWritten reports whether saving in over the stored user old sets
// a password (or removes one it had).
func passwordWritten(old *userRow, in learngate.UserInput) bool {
	return old != nil && in.PasswordHash != nil && (*in.PasswordHash != "" || old.PasswordHash != nil)
}

// tenantID returns the id of the tenant whose schema the handle scopes to
// (SchemaName).
func (t *TenantDB) tenantID() (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(t.schema, "tenant_"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("tenant id of schema %q: %w", t.schema, err)
	}
	return id, nil
}

// execer is what endWebSessions needs of a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// DeleteWebSession removes tenant's session token.
func (db *DB) DeleteWebSession(ctx context.Context, tenantID int64, token string) error {
	_, err := db.pool.ExecContext(ctx, `DELETE FROM public.web_sessions WHERE token = $1 AND tenant_id = $2`, token, tenantID)
	return translate(err)
}

// DeleteExpiredWebSessions removes every session expired by now and
// returns how many.
func (db *DB) DeleteExpiredWebSessions(ctx context.Context, now time.Time) (int64, error) {
	res, err := db.pool.ExecContext(ctx, `DELETE FROM public.web_sessions WHERE expiry <= $1`, now)
	if err != nil {
		return 0, translate(err)
	}
	return res.RowsAffected()
}

const (
	// KindWebSessionPurge deletes expired learner sessions.
	KindWebSessionPurge = "web_session_purge"
	// WebSessionPurgeInterval is how often expired learner sessions are
	// deleted.
	WebSessionPurgeInterval = 10 * time.Minute
)

// WebSessionPurgeArgs are the (empty) arguments of the periodic job that
// deletes expired learner sessions (DeleteExpiredWebSessions).
type WebSessionPurgeArgs struct{}

// Kind is the job kind of WebSessionPurgeArgs.
func (WebSessionPurgeArgs) Kind() string { return KindWebSessionPurge }

// InsertOpts keeps at most one run waiting: a missed run is caught up by
// the next one.
func (WebSessionPurgeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: WebSessionPurgeInterval}}
}
