package store

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
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

// CommitWebSession saves tenant's session token with data until expiry.
// A token another tenant holds is never taken over.
func (db *DB) CommitWebSession(ctx context.Context, tenantID int64, token string, data []byte, expiry time.Time) error {
	_, err := db.pool.ExecContext(ctx, `INSERT INTO public.web_sessions (token, tenant_id, data, expiry)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (token) DO UPDATE SET data = $3, expiry = $4 WHERE web_sessions.tenant_id = $2`,
		token, tenantID, data, expiry)
	return translate(err)
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
