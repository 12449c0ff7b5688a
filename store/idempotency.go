package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"learngate/secrets"
)

// Idempotency keys (docs/decisions.md, "Idempotency-Key"). Times are the
// database's clock (now()), the one clock every node shares.
const (
	// IdempotencyKeyLifetime is how long a key lives from its first use.
	IdempotencyKeyLifetime = 24 * time.Hour
	// IdempotencyLease is how long a claimed key is held by the request that
	// claimed it before another request with the key may take it over (the
	// first one's node died). It outlasts any request: the whole body within
	// the read timeout (30 s by default), then the handler's work.
	IdempotencyLease = 2 * time.Minute
	// KindIdempotencyPurge deletes expired idempotency keys in every tenant.
	KindIdempotencyPurge = "idempotency_purge"
)

// ClaimOutcome says what a keyed request is to do (ClaimIdempotencyKey).
type ClaimOutcome int

const (
	// ClaimRun: the key is the request's; it runs.
	ClaimRun ClaimOutcome = iota + 1
	// ClaimReplay: the same request succeeded before; its answer is replayed.
	ClaimReplay
	// ClaimMismatch: the key was used with another request (422).
	ClaimMismatch
	// ClaimInProgress: the same key is held by a request still running (409).
	ClaimInProgress
)

// StoredResponse is the answer stored with a key: replayed byte for byte.
type StoredResponse struct {
	Status      int    `db:"status"`
	ContentType string `db:"content_type"`
	Location    string `db:"location"`
	Body        []byte `db:"body"`
}

// IdempotencyClaim is the result of ClaimIdempotencyKey.
type IdempotencyClaim struct {
	Outcome ClaimOutcome
	// Stored is the answer to replay (ClaimReplay).
	Stored StoredResponse
	key    string
	// token identifies this claim among the takers of the key (ClaimRun).
	token []byte
}

// ErrClaimLost is CompleteIdempotentRequest's error when the request's
// claim was taken over by another request with the key (its lease ran
// out): nothing of the request was saved.
var ErrClaimLost = errors.New("the Idempotency-Key claim was taken over")

// claimAttempts bounds the rounds of ClaimIdempotencyKey: a key whose row
// vanishes between the claim and the look-up (its request failed) is
// claimed again.
const claimAttempts = 3

// ClaimIdempotencyKey claims key for a request whose fingerprint is
// fingerprint, in a short transaction of its own. The key is the request's
// (ClaimRun) when nobody used it, when its row expired, or when the request
// that held it with the same fingerprint let its lease run out. Otherwise
// the key's row decides: another fingerprint → ClaimMismatch; done →
// ClaimReplay with the stored answer; running → ClaimInProgress.
func ClaimIdempotencyKey(ctx context.Context, tdb *TenantDB, key string, fingerprint []byte) (IdempotencyClaim, error) {
	// The database's clock is read once, in the CTE: the DO UPDATE part
	// uses only EXCLUDED values (Citus refuses a non-immutable function
	// there, DECISIONS section 20).
	const claim = `WITH clock AS (SELECT now() AS t)
		INSERT INTO idempotency_keys AS k (key, fingerprint, state, claim, locked_until, expires_at, created_at)
		SELECT $1, $2, 'running', $3, t + make_interval(secs => $4), t + make_interval(secs => $5), t FROM clock
		ON CONFLICT (key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'running', claim = EXCLUDED.claim,
			status = NULL, content_type = NULL, location = NULL, body = NULL,
			locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at, created_at = EXCLUDED.created_at
		WHERE k.expires_at <= EXCLUDED.created_at
			OR (k.state = 'running' AND k.locked_until < EXCLUDED.created_at AND k.fingerprint = EXCLUDED.fingerprint)
		RETURNING expires_at`
	const look = `SELECT fingerprint, state, coalesce(status, 0) AS status, coalesce(content_type, '') AS content_type,
		coalesce(location, '') AS location, coalesce(body, '') AS body
		FROM idempotency_keys WHERE key = $1`
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return IdempotencyClaim{}, fmt.Errorf("claim token: %w", err)
	}
	var out IdempotencyClaim
	for range claimAttempts {
		err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
			if err := asyncCommit(ctx, tx); err != nil {
				return err
			}
			var expires time.Time
			err := tx.GetContext(ctx, &expires, claim, key, fingerprint, token,
				IdempotencyLease.Seconds(), IdempotencyKeyLifetime.Seconds())
			if err == nil {
				out = IdempotencyClaim{Outcome: ClaimRun, key: key, token: token}
				// The purge deletes the row once it expires.
				return markDue(ctx, tx, tdb.schema, DueIdempotencyPurge, expires)
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("claim idempotency key: %w", err)
			}
			var row struct {
				Fingerprint []byte `db:"fingerprint"`
				State       string `db:"state"`
				StoredResponse
			}
			if err := tx.GetContext(ctx, &row, look, key); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					out = IdempotencyClaim{} // gone since: claim again
					return nil
				}
				return fmt.Errorf("look up idempotency key: %w", err)
			}
			switch {
			case !bytes.Equal(row.Fingerprint, fingerprint):
				out = IdempotencyClaim{Outcome: ClaimMismatch}
			case row.State == "done":
				stored := row.StoredResponse
				if stored.Body, err = tdb.openAnswer(stored.Body); err != nil {
					return err
				}
				out = IdempotencyClaim{Outcome: ClaimReplay, Stored: stored}
			default:
				out = IdempotencyClaim{Outcome: ClaimInProgress}
			}
			return nil
		})
		if err != nil || out.Outcome != 0 {
			return out, err
		}
	}
	return IdempotencyClaim{Outcome: ClaimInProgress}, nil
}

// CompleteIdempotentRequest stores resp as the answer of claim in the
// request transaction of rtdb (a WithRequestTx handle) and commits it, so
// the answer is saved with the request's changes or not at all. The
// request transaction has ended when it returns. ErrClaimLost: the claim
// was taken over by another request and nothing was saved.
func CompleteIdempotentRequest(ctx context.Context, rtdb *TenantDB, claim IdempotencyClaim, resp StoredResponse) error {
	if rtdb.req == nil {
		return errors.New("complete idempotent request: not a request transaction")
	}
	const q = `UPDATE idempotency_keys SET state = 'done', status = $3, content_type = $4, location = $5, body = $6
		WHERE key = $1 AND claim = $2 AND state = 'running'`
	body, err := rtdb.sealAnswer(resp.Body)
	if err != nil {
		return err
	}
	return rtdb.req.finish(ctx, rtdb, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, q, claim.key, claim.token, resp.Status,
			nullString(resp.ContentType), nullString(resp.Location), body)
		if err != nil {
			return fmt.Errorf("store idempotent answer: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return ErrClaimLost
		}
		return nil
	})
}

// ReleaseIdempotencyKey deletes the key claimed by claim, if claim still
// holds it, so that a retry of a request that failed runs again.
func ReleaseIdempotencyKey(ctx context.Context, tdb *TenantDB, claim IdempotencyClaim) error {
	return tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := asyncCommit(ctx, tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE key = $1 AND claim = $2 AND state = 'running'`,
			claim.key, claim.token)
		if err != nil {
			return fmt.Errorf("release idempotency key: %w", err)
		}
		return nil
	})
}

// PurgeIdempotencyKeys deletes the tenant's expired idempotency keys and
// returns how many.
func PurgeIdempotencyKeys(ctx context.Context, tdb *TenantDB) (int64, error) {
	var n int64
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE expires_at <= now()`)
		if err != nil {
			return fmt.Errorf("purge idempotency keys: %w", err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// IdempotencyPurgeArgs are the (empty) arguments of the periodic job that
// deletes expired idempotency keys in every tenant.
type IdempotencyPurgeArgs struct{}

// Kind is the job kind of IdempotencyPurgeArgs.
func (IdempotencyPurgeArgs) Kind() string { return KindIdempotencyPurge }

// InsertOpts keeps at most one run waiting: a missed run is caught up by
// the next one.
func (IdempotencyPurgeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: IdempotencyPurgeInterval}}
}

// IdempotencyPurgeInterval is how often expired idempotency keys are deleted.
const IdempotencyPurgeInterval = 10 * time.Minute

// asyncCommit lets tx commit without waiting for its WAL to reach the
// disk (synchronous_commit off, for tx only). The claim and the release
// of a key use it: a crash may lose them, which frees the key, and never
// loses more, because the request transaction that turns a claim into a
// stored answer commits later, durably, and its flush carries the claim's
// commit with it. This spares each keyed request a second disk flush.
func asyncCommit(ctx context.Context, tx *sqlx.Tx) error {
	if _, err := tx.ExecContext(ctx, `SELECT set_config('synchronous_commit', 'off', true)`); err != nil {
		return fmt.Errorf("claim without waiting for the disk: %w", err)
	}
	return nil
}

// sealAnswer encrypts a stored answer's body with the DB's secrets
// keyring (docs/decisions.md, "Sealed Idempotency-Key answers"): an
// answer may show a secret once (a webhook's whsec_), which must not lie
// in clear in idempotency_keys for a day. The sealed text goes into the
// bytea column as its bytes.
func (t *TenantDB) sealAnswer(body []byte) ([]byte, error) {
	sealed, err := t.db.secrets.Encrypt(string(body))
	if err != nil {
		return nil, fmt.Errorf("seal idempotent answer: %w", err)
	}
	return []byte(sealed), nil
}

// openAnswer returns the body of a stored answer: sealed ones (starting
// with secrets.Prefix) decrypted, those stored in clear by a version
// before sealing as they are. A stored body is a JSON document or empty,
// so it never starts with the prefix by itself. An answer sealed under a
// key no longer in LEARNGATE_SECRETS_KEY fails (secrets.ErrUnknownKey).
func (t *TenantDB) openAnswer(stored []byte) ([]byte, error) {
	if !secrets.IsEncrypted(string(stored)) {
		return stored, nil
	}
	plain, err := t.db.secrets.Decrypt(string(stored))
	if err != nil {
		return nil, fmt.Errorf("open idempotent answer: %w", err)
	}
	return []byte(plain), nil
}

// resealBatch is how many stored answers one transaction of
// resealIdempotencyAnswers rewrites: its row locks stay short.
const resealBatch = 500

// resealIdempotencyAnswers seals again with the first key of the keyring
// the tenant's stored answers sealed under another key (after a key
// rotation: `learngate migrate` then lets the old key be dropped, as for
// every other secret), in batches of their own transactions. Answers in
// clear (written by a version before sealing, possibly still serving
// during an upgrade) are left as they are: they expire within 24 hours.
// An answer under a key the keyring lacks is left too: its replay fails
// until it expires, and migrating goes on.
func (db *DB) resealIdempotencyAnswers(ctx context.Context, schema string) error {
	tdb, err := db.Tenant(schema)
	if err != nil {
		return err
	}
	current := []byte(secrets.Prefix + db.secrets.KeyIDs()[0] + ":")
	after := ""
	for {
		var n int
		err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
			var rows []struct {
				Key  string `db:"key"`
				Body []byte `db:"body"`
			}
			if err := tx.SelectContext(ctx, &rows, `SELECT key, body FROM idempotency_keys
				WHERE key > $1 AND state = 'done' AND substring(body FOR $2) = $3 AND substring(body FOR $4) <> $5
				ORDER BY key LIMIT $6 FOR UPDATE`,
				after, len(secrets.Prefix), []byte(secrets.Prefix), len(current), current, resealBatch); err != nil {
				return fmt.Errorf("find idempotent answers to seal again: %w", err)
			}
			n = len(rows)
			for _, r := range rows {
				after = r.Key
				plain, err := db.secrets.Decrypt(string(r.Body))
				if err != nil {
					continue // a dropped key: left to expire
				}
				sealed, err := db.secrets.Encrypt(plain)
				if err != nil {
					return fmt.Errorf("seal idempotent answer again: %w", err)
				}
				if _, err := tx.ExecContext(ctx, `UPDATE idempotency_keys SET body = $2 WHERE key = $1`, r.Key, []byte(sealed)); err != nil {
					return fmt.Errorf("seal idempotent answer again: %w", err)
				}
			}
			return nil
		})
		if err != nil || n < resealBatch {
			return err
		}
	}
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
