package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
)

// NewAPIKey is the stored form of a freshly made key: its hash and a short
// prefix for people to recognise it by.
type NewAPIKey struct {
	Hash   []byte
	Prefix string
}

// KeyRecord is what authentication needs to know of an active key.
type KeyRecord struct {
	ID        int64      `db:"id"`
	TenantID  int64      `db:"tenant_id"`
	Hash      []byte     `db:"hash"`
	RevokedAt *time.Time `db:"revoked_at"`
}

const apiKeyColumns = `id, tenant_id, prefix, created_at, last_used_at, revoked_at`

// CreateAPIKey stores a new key for a tenant.
func (db *DB) CreateAPIKey(ctx context.Context, tenantID int64, key NewAPIKey) (learngate.APIKey, error) {
	var k learngate.APIKey
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		k, err = insertAPIKey(ctx, tx, tenantID, key)
		return err
	})
	return k, err
}

func insertAPIKey(ctx context.Context, tx *sqlx.Tx, tenantID int64, key NewAPIKey) (learngate.APIKey, error) {
	var k learngate.APIKey
	err := tx.GetContext(ctx, &k, `INSERT INTO public.api_keys (tenant_id, prefix, hash) VALUES ($1, $2, $3)
		RETURNING `+apiKeyColumns, tenantID, key.Prefix, key.Hash)
	return k, translate(err)
}

// ListAPIKeys returns a tenant's keys, revoked ones included, oldest first.
func (db *DB) ListAPIKeys(ctx context.Context, tenantID int64) ([]learngate.APIKey, error) {
	keys := []learngate.APIKey{}
	err := db.pool.SelectContext(ctx, &keys, `SELECT `+apiKeyColumns+` FROM public.api_keys
		WHERE tenant_id = $1 ORDER BY id`, tenantID)
	return keys, translate(err)
}

// RevokeAPIKey revokes one of a tenant's keys; NotFound when the tenant has
// no such active key.
func (db *DB) RevokeAPIKey(ctx context.Context, tenantID, keyID int64) error {
	res, err := db.pool.ExecContext(ctx, `UPDATE public.api_keys SET revoked_at = now()
		WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL`, tenantID, keyID)
	if err != nil {
		return translate(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return learngate.Errorf(learngate.NotFound, "api key %d not found", keyID)
	}
	return nil
}

// ActiveAPIKeys returns the hashes of a tenant's keys that are not revoked,
// oldest first: authentication holds them in memory per tenant, so that a
// wrong key is refused without a database lookup (docs/decisions.md,
// "API keys").
func (db *DB) ActiveAPIKeys(ctx context.Context, tenantID int64) ([]KeyRecord, error) {
	keys := []KeyRecord{}
	err := db.pool.SelectContext(ctx, &keys, `SELECT id, tenant_id, hash, revoked_at FROM public.api_keys
		WHERE tenant_id = $1 AND revoked_at IS NULL ORDER BY id`, tenantID)
	return keys, translate(err)
}

// TouchAPIKeys records when keys were last used, in one statement.
func (db *DB) TouchAPIKeys(ctx context.Context, used map[int64]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(used))
	times := make([]string, 0, len(used))
	for id, at := range used {
		ids = append(ids, id)
		times = append(times, at.UTC().Format(time.RFC3339Nano))
	}
	_, err := db.pool.ExecContext(ctx, `UPDATE public.api_keys k SET last_used_at = u.at
		FROM unnest($1::bigint[], $2::timestamptz[]) AS u(id, at)
		WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
		pq.Array(ids), pq.Array(times))
	return translate(err)
}
