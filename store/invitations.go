package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
)

// Invitee is what an invitation email needs of its user.
type Invitee struct {
	ID        int64  `db:"id"`
	UserName  string `db:"user_name"`
	FirstName string `db:"first_name"`
	LastName  string `db:"last_name"`
	Email     string `db:"email"`
	Active    bool   `db:"active"`
}

// GetInvitee returns the user with id userID of tdb's tenant; NotFound when
// there is none (deleted since the invitation was queued).
func GetInvitee(ctx context.Context, tdb *TenantDB, userID int64) (Invitee, error) {
	var who Invitee
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &who,
			`SELECT id, user_name, first_name, last_name, email, active FROM users WHERE id = $1`, userID)
	})
	if err != nil {
		return Invitee{}, fmt.Errorf("invitee %d in %s: %w", userID, tdb.schema, err)
	}
	return who, nil
}

// TenantIDOfSchema returns the id of the tenant whose tables live in
// schema (the inverse of SchemaName).
func TenantIDOfSchema(schema string) (int64, error) {
	if !schemaPattern.MatchString(schema) {
		return 0, fmt.Errorf("invalid tenant schema name %q", schema)
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(schema, "tenant_"), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("tenant schema name %q: %w", schema, err)
	}
	return id, nil
}
