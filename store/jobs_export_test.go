package store

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// QueueInvitationTx runs queueInvitation for userID in a tenant transaction
// of tdb, which rolls back when rollback is set.
func QueueInvitationTx(ctx context.Context, tdb *TenantDB, userID int64, rollback bool) (bool, error) {
	var queued bool
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		if queued, err = tdb.queueInvitation(ctx, tx, userID); err != nil {
			return err
		}
		if rollback {
			return errRollback
		}
		return nil
	})
	if err == errRollback {
		err = nil
	}
	return queued, err
}

var errRollback = rollbackError{}

type rollbackError struct{}

func (rollbackError) Error() string { return "rollback" }
