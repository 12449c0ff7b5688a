package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// userChange is what a save did to a user: userUnchanged, or the type of
// the event the change causes.
type userChange string

// userUnchanged: nothing was written.
const userUnchanged userChange = ""

// changeOf is the event of a save that wrote something: user.created for a
// new user (old nil); user.deactivated or user.reactivated when active
// flipped; user.updated for any other change. One save causes one event.
func changeOf(old *userRow, active bool) userChange {
	switch {
	case old == nil:
		return EventUserCreated
	case old.Active && !active:
		return EventUserDeactivated
	case !old.Active && active:
		return EventUserReactivated
	}
	return EventUserUpdated
}

// changedUser is a user that a batch or the scheduled sweep changed.
type changedUser struct {
	id     int64
	change userChange
}

// recordUser records the event of one save (nothing when unchanged), with
// user as it now stands.
func (t *TenantDB) recordUser(ctx context.Context, tx *sqlx.Tx, change userChange, user User, at time.Time) error {
	if change == userUnchanged {
		return nil
	}
	return t.RecordEvent(ctx, tx, string(change), user, at)
}

// recordUserEvents records the events of changes, in order, each with its
// user as it stands in tx. Only users whose event some endpoint subscribes
// to are loaded, with a fixed number of queries whatever their number.
func (t *TenantDB) recordUserEvents(ctx context.Context, tx *sqlx.Tx, changes []changedUser, at time.Time) error {
	if len(changes) == 0 {
		return nil
	}
	targets, err := webhookTargets(ctx, tx)
	if err != nil {
		return err
	}
	var ids pq.Int64Array
	for _, c := range changes {
		if anyWants(targets, string(c.change)) {
			ids = append(ids, c.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var rows []userRow
	if err := tx.SelectContext(ctx, &rows, `SELECT `+userColumns+` FROM users WHERE id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("load changed users: %w", err)
	}
	users, err := loadUsers(ctx, tx, rows)
	if err != nil {
		return err
	}
	byID := make(map[int64]User, len(users))
	for _, u := range users {
		byID[u.ID] = u
	}
	events := make([]Event, 0, len(ids))
	for _, c := range changes {
		if u, ok := byID[c.id]; ok && anyWants(targets, string(c.change)) {
			events = append(events, Event{Type: string(c.change), Data: u, At: at})
		}
	}
	return t.recordEventsFor(ctx, tx, targets, events)
}
