package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	filter "github.com/scim2/filter-parser/v2"

	"learngate"
	"learngate/input"
	"learngate/scim"
	"learngate/store/list"
)

// SCIM Users (docs/scim.md): every user of the tenant but those deleted
// through SCIM, written with the Public API's saveUser and events.

// SCIMUser is a user as SCIM shows it.
type SCIMUser struct {
	ID                            int64
	UserName, FirstName, LastName string
	Email                         string
	ExternalID                    *string
	Active                        bool
	Type, Language, Timezone      string
	EmployeeNumber                *string
	// ManagerID is the id of the visible user whose email is the user's
	// manager_email; nil when there is none.
	ManagerID            *int64
	Groups               []SCIMRef
	CreatedAt, UpdatedAt time.Time
}

// SCIMRef is a member or group reference: its id and display text.
type SCIMRef struct {
	ID      int64  `db:"id"`
	Display string `db:"display"`
}

// SCIMUserExtras is what a SCIM write carries beside the UserInput.
type SCIMUserExtras struct {
	// ExternalID replaces the externalId (nil clears it).
	ExternalID *string
	// ManagerID, when set, makes the user with that id the manager: its
	// email becomes manager_email. Invalid (invalidValue) when no visible
	// user has that id.
	ManagerID *int64
}

// scimUserRow is a users row with the SCIM columns.
type scimUserRow struct {
	userRow
	ExternalID *string `db:"scim_external_id"`
	Deleted    bool    `db:"scim_deleted"`
}

const scimUserSelect = `SELECT ` + userColumns + `, scim_external_id, scim_deleted FROM users`

// ListSCIMUsers returns the visible users that pass expr (nil: all), by
// id, from the 1-based startIndex, at most count of them, and how many pass
// it, in one snapshot. A filter learngate cannot apply is Invalid
// (invalidFilter).
func ListSCIMUsers(ctx context.Context, tdb *TenantDB, expr filter.Expression, startIndex, count int) ([]SCIMUser, int64, error) {
	q, err := list.SCIMQuery(list.SCIMUsers, expr)
	if err != nil {
		return nil, 0, err
	}
	users := []SCIMUser{}
	var total int64
	err = tdb.SnapshotTx(ctx, func(tx *sqlx.Tx) error {
		var rows []scimUserRow
		var err error
		total, err = list.Select(ctx, tx, &rows, list.SCIMUsers, scimUserSelect, q,
			list.Page{Size: count, Offset: int64(startIndex - 1)})
		if err != nil {
			return scimQueryError(err)
		}
		users, err = loadSCIMUsers(ctx, tx, rows)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return users, total, nil
}

// scimQueryError turns a value PostgreSQL refuses in a filter (say a
// string too long for an index) into invalidFilter.
func scimQueryError(err error) error {
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && (strings.HasPrefix(string(pqErr.Code), "22") || pqErr.Code == "54000") {
		return &learngate.Error{Code: learngate.Invalid, Message: "the filter cannot be applied", SCIMType: scim.InvalidFilter, Err: err}
	}
	return fmt.Errorf("list scim users: %w", err)
}

// GetSCIMUser returns visible user id; NotFound when there is none.
func GetSCIMUser(ctx context.Context, tdb *TenantDB, id int64) (SCIMUser, error) {
	var user SCIMUser
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		user, err = scimUserByID(ctx, tx, id)
		return err
	})
	return user, err
}

func scimUserByID(ctx context.Context, tx *sqlx.Tx, id int64) (SCIMUser, error) {
	var row scimUserRow
	if err := tx.GetContext(ctx, &row, scimUserSelect+` WHERE id = $1 AND NOT scim_deleted`, id); err != nil {
		return SCIMUser{}, notFound(err)
	}
	users, err := loadSCIMUsers(ctx, tx, []scimUserRow{row})
	if err != nil {
		return SCIMUser{}, err
	}
	return users[0], nil
}

// loadSCIMUsers turns rows into SCIMUsers with their groups and managers,
// in two queries whatever their number.
func loadSCIMUsers(ctx context.Context, tx *sqlx.Tx, rows []scimUserRow) ([]SCIMUser, error) {
	ids := make(pq.Int64Array, len(rows))
	var managerEmails pq.StringArray
	for i, r := range rows {
		ids[i] = r.ID
		if r.ManagerEmail != nil && *r.ManagerEmail != "" {
			managerEmails = append(managerEmails, strings.ToLower(*r.ManagerEmail))
		}
	}
	var groups []struct {
		UserID int64 `db:"user_id"`
		SCIMRef
	}
	if err := tx.SelectContext(ctx, &groups, `SELECT ug.user_id, g.id, g.name AS display
		FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ANY($1) ORDER BY g.id`, ids); err != nil {
		return nil, fmt.Errorf("load scim user groups: %w", err)
	}
	byUser := map[int64][]SCIMRef{}
	for _, g := range groups {
		byUser[g.UserID] = append(byUser[g.UserID], g.SCIMRef)
	}
	managers := map[string]int64{}
	if len(managerEmails) > 0 {
		var found []struct {
			ID    int64  `db:"id"`
			Email string `db:"email"`
		}
		if err := tx.SelectContext(ctx, &found, `SELECT id, lower(email) AS email FROM users
			WHERE lower(email) = ANY($1) AND NOT scim_deleted`, managerEmails); err != nil {
			return nil, fmt.Errorf("load scim managers: %w", err)
		}
		for _, m := range found {
			managers[m.Email] = m.ID
		}
	}
	users := make([]SCIMUser, len(rows))
	for i, r := range rows {
		u := SCIMUser{
			ID: r.ID, UserName: r.UserName, FirstName: r.FirstName, LastName: r.LastName, Email: r.Email,
			ExternalID: r.ExternalID, Active: r.Active, Type: r.Type, Language: r.Language, Timezone: r.Timezone,
			EmployeeNumber: r.LMSLearnerID, Groups: byUser[r.ID], CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		}
		if r.ManagerEmail != nil {
			if id, ok := managers[strings.ToLower(*r.ManagerEmail)]; ok {
				u.ManagerID = &id
			}
		}
		users[i] = u
	}
	return users, nil
}

// CreateSCIMUser creates the user of in (created_by scim), or brings back
// the user of that user_name deleted through SCIM: active unless in says
// otherwise, with in's attributes and no groups, its login kept. Conflict (uniqueness)
// when a visible user has the user_name, or another user the email;
// other errors as CreateUser. The event is user.created, or the one the
// revival causes (user.reactivated). created reports which it was.
func CreateSCIMUser(ctx context.Context, tdb *TenantDB, in learngate.UserInput, x SCIMUserExtras, now time.Time) (user SCIMUser, created bool, err error) {
	if in.UserName == nil {
		return SCIMUser{}, false, fmt.Errorf("create scim user: user_name is required")
	}
	err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var old scimUserRow
		err := tx.GetContext(ctx, &old, scimUserSelect+` WHERE user_name = $1 FOR UPDATE`, strings.ToLower(*in.UserName))
		if err = nilIfNotFound(err); err != nil {
			return err
		}
		var base *userRow
		switch {
		case old.ID != 0 && !old.Deleted:
			return &learngate.Error{Code: learngate.Conflict, SCIMType: scim.Uniqueness,
				Message: fmt.Sprintf("userName '%s' is already taken", input.Quote(old.UserName))}
		case old.ID != 0:
			base = &old.userRow
			in.Login = nil
			if in.Active == nil {
				active := true
				in.Active = &active
			}
			// The user comes back as a new SCIM user: without the group
			// memberships it had when deleted (SCIM never showed them
			// since), which the identity system grants again if it means
			// to. A reactivation through /papi keeps them.
			in.Groups = []string{}
		}
		created = base == nil
		var id int64
		id, err = saveSCIMUser(ctx, tdb, tx, base, in, x, now)
		if err != nil {
			return err
		}
		user, err = scimUserByID(ctx, tx, id)
		return err
	})
	return user, created, err
}

// ReplaceSCIMUser replaces visible user id with what build makes of it
// (PUT builds from the request alone, PATCH from the user as it stands),
// in one transaction with the user locked. NotFound when there is no such
// user; build's errors as they are; the others as CreateSCIMUser.
func ReplaceSCIMUser(ctx context.Context, tdb *TenantDB, id int64, build func(SCIMUser) (learngate.UserInput, SCIMUserExtras, error), now time.Time) (SCIMUser, error) {
	var user SCIMUser
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var old scimUserRow
		if err := tx.GetContext(ctx, &old, scimUserSelect+` WHERE id = $1 AND NOT scim_deleted FOR UPDATE`, id); err != nil {
			return notFound(err)
		}
		current, err := loadSCIMUsers(ctx, tx, []scimUserRow{old})
		if err != nil {
			return err
		}
		in, x, err := build(current[0])
		if err != nil {
			return err
		}
		if _, err := saveSCIMUser(ctx, tdb, tx, &old.userRow, in, x, now); err != nil {
			return err
		}
		user, err = scimUserByID(ctx, tx, id)
		return err
	})
	return user, err
}

// saveSCIMUser is saveUser and its event for a SCIM write: the manager
// resolved from its id, a taken user_name or email as Conflict
// (uniqueness), a new user marked created_by scim, and the externalId
// written (moving updated_at when it changes).
func saveSCIMUser(ctx context.Context, tdb *TenantDB, tx *sqlx.Tx, old *userRow, in learngate.UserInput, x SCIMUserExtras, now time.Time) (int64, error) {
	if x.ManagerID != nil {
		var email string
		err := tx.GetContext(ctx, &email, `SELECT email FROM users WHERE id = $1 AND NOT scim_deleted`, *x.ManagerID)
		if err != nil {
			if learngate.IsCode(notFound(err), learngate.NotFound) {
				return 0, scim.Errorf(scim.InvalidValue, "manager '%d' is no user", *x.ManagerID)
			}
			return 0, err
		}
		in.ManagerEmails[0] = &email
	}
	id, change, err := saveUser(ctx, tx, old, in, now)
	if learngate.IsCode(err, learngate.Unprocessable) {
		// saveUser's only Unprocessable is a taken user_name, email or LMS pair.
		var e *learngate.Error
		errors.As(err, &e)
		conflict := *e
		conflict.Code, conflict.SCIMType = learngate.Conflict, scim.Uniqueness
		return 0, &conflict
	}
	if err != nil {
		return 0, err
	}
	stamp := now.UTC().Truncate(time.Microsecond)
	if old == nil {
		if _, err := tx.ExecContext(ctx, `UPDATE users SET created_by = 'scim', scim_external_id = $2 WHERE id = $1`, id, x.ExternalID); err != nil {
			return 0, fmt.Errorf("mark scim user: %w", err)
		}
	} else if _, err := tx.ExecContext(ctx, `UPDATE users SET scim_external_id = $2, updated_at = $3
		WHERE id = $1 AND scim_external_id IS DISTINCT FROM $2`, id, x.ExternalID, stamp); err != nil {
		return 0, fmt.Errorf("write scim external id: %w", err)
	}
	if change == userUnchanged {
		return id, nil
	}
	user, err := userByID(ctx, tx, id)
	if err != nil {
		return 0, err
	}
	return id, tdb.recordUser(ctx, tx, change, user, now)
}

// DeleteSCIMUser deletes visible user id through SCIM: it is deactivated
// and hidden from SCIM; its learning records stay. Every such DELETE
// records user.deactivated, whether or not the user was still active
// (updated_at moves only when it was). NotFound when there is no such user.
func DeleteSCIMUser(ctx context.Context, tdb *TenantDB, id int64, now time.Time) error {
	return tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		now := now.UTC().Truncate(time.Microsecond)
		var deleted int64
		err := tx.GetContext(ctx, &deleted, `WITH old AS (
			SELECT id, active FROM users WHERE id = $1 AND NOT scim_deleted FOR UPDATE)
			UPDATE users u SET active = false, scim_deleted = true,
				updated_at = CASE WHEN old.active THEN $2 ELSE u.updated_at END
			FROM old WHERE u.id = old.id RETURNING u.id`, id, now)
		if err != nil {
			return notFound(err)
		}
		var cs changes
		cs.add(kindUser, deleted, EventUserDeactivated)
		return tdb.recordChanges(ctx, tx, cs, now)
	})
}
