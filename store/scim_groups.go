package store

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	filter "github.com/scim2/filter-parser/v2"

	"learngate"
	"learngate/scim"
	"learngate/store/list"
)

// SCIM Groups (docs/scim.md): the tenant's groups catalog, members from
// user_groups. Membership changes are one set-based statement, and each
// user whose groups changed gets updated_at and a user.updated event, as
// a change of its groups through the API would give it.

// SCIMGroup is a group as SCIM shows it.
type SCIMGroup struct {
	ID         int64     `db:"id"`
	Name       string    `db:"name"`
	ExternalID *string   `db:"scim_external_id"`
	CreatedAt  time.Time `db:"created_at"`
	UpdatedAt  time.Time `db:"updated_at"`
	// Members are the visible users in the group, by id; nil when they
	// were not asked for.
	Members []SCIMRef `db:"-"`
}

// SCIMGroupChange is a write to a group. Nil fields stay as they are.
type SCIMGroupChange struct {
	// Name renames the group.
	Name *string
	// SetExternalID replaces the externalId with ExternalID (nil clears).
	SetExternalID bool
	ExternalID    *string
	Members       MemberChange
}

// MemberChange is a change of a group's members (scim.MemberChange).
type MemberChange = scim.MemberChange

const scimGroupSelect = `SELECT id, name, scim_external_id, created_at, updated_at FROM groups`

// ListSCIMGroups returns the groups that pass expr (nil: all), by id, from
// the 1-based startIndex, at most count, with their members when
// withMembers, and how many pass it.
func ListSCIMGroups(ctx context.Context, tdb *TenantDB, expr filter.Expression, startIndex, count int, withMembers bool) ([]SCIMGroup, int64, error) {
	q, err := list.SCIMQuery(list.SCIMGroups, expr)
	if err != nil {
		return nil, 0, err
	}
	groups := []SCIMGroup{}
	var total int64
	err = tdb.SnapshotTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		total, err = list.Select(ctx, tx, &groups, list.SCIMGroups, scimGroupSelect, q,
			list.Page{Size: count, Offset: int64(startIndex - 1)})
		if err != nil {
			return scimQueryError(err)
		}
		if withMembers {
			return loadMembers(ctx, tx, groups)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return groups, total, nil
}

// GetSCIMGroup returns group id, with its members when withMembers;
// NotFound when there is none.
func GetSCIMGroup(ctx context.Context, tdb *TenantDB, id int64, withMembers bool) (SCIMGroup, error) {
	var g SCIMGroup
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		g, err = scimGroupByID(ctx, tx, id, withMembers)
		return err
	})
	return g, err
}

func scimGroupByID(ctx context.Context, tx *sqlx.Tx, id int64, withMembers bool) (SCIMGroup, error) {
	groups := make([]SCIMGroup, 1)
	if err := tx.GetContext(ctx, &groups[0], scimGroupSelect+` WHERE id = $1`, id); err != nil {
		return SCIMGroup{}, notFound(err)
	}
	if withMembers {
		if err := loadMembers(ctx, tx, groups); err != nil {
			return SCIMGroup{}, err
		}
	}
	return groups[0], nil
}

// loadMembers fills the members of groups in one query.
func loadMembers(ctx context.Context, tx *sqlx.Tx, groups []SCIMGroup) error {
	ids := make(pq.Int64Array, len(groups))
	for i, g := range groups {
		ids[i] = g.ID
		groups[i].Members = []SCIMRef{}
	}
	var rows []struct {
		GroupID int64 `db:"group_id"`
		SCIMRef
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT ug.group_id, u.id, u.user_name AS display
		FROM user_groups ug JOIN users u ON u.id = ug.user_id
		WHERE ug.group_id = ANY($1) AND NOT u.scim_deleted ORDER BY ug.group_id, u.id`, ids); err != nil {
		return fmt.Errorf("load scim group members: %w", err)
	}
	at := make(map[int64]int, len(groups))
	for i, g := range groups {
		at[g.ID] = i
	}
	for _, r := range rows {
		i := at[r.GroupID]
		groups[i].Members = append(groups[i].Members, r.SCIMRef)
	}
	return nil
}

// CreateSCIMGroup adds a group named name to the catalog with its
// externalId and members. Invalid for a bad name (as the catalog's) or a
// member that is no visible user (invalidValue); Conflict (uniqueness)
// when the name is taken in any letter case.
func CreateSCIMGroup(ctx context.Context, tdb *TenantDB, name string, externalID *string, members []int64, now time.Time) (SCIMGroup, error) {
	name, err := catalogName(name)
	if err != nil {
		return SCIMGroup{}, err
	}
	var g SCIMGroup
	err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		stamp := now.UTC().Truncate(time.Microsecond)
		var id int64
		if err := tx.GetContext(ctx, &id, `INSERT INTO groups (name, scim_external_id, created_at, updated_at)
			VALUES ($1, $2, $3, $3) RETURNING id`, name, externalID, stamp); err != nil {
			return groupNameTaken(err, name)
		}
		if err := changeMembers(ctx, tdb, tx, id, MemberChange{ReplaceAll: true, Add: members}, stamp); err != nil {
			return err
		}
		g, err = scimGroupByID(ctx, tx, id, true)
		return err
	})
	return g, err
}

// UpdateSCIMGroup applies c to group id in one transaction and returns the
// group with its members. NotFound when there is no such group; other
// errors as CreateSCIMGroup, and MemberChange's noTarget.
func UpdateSCIMGroup(ctx context.Context, tdb *TenantDB, id int64, c SCIMGroupChange, now time.Time) (SCIMGroup, error) {
	var g SCIMGroup
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		stamp := now.UTC().Truncate(time.Microsecond)
		var old SCIMGroup
		if err := tx.GetContext(ctx, &old, scimGroupSelect+` WHERE id = $1 FOR UPDATE`, id); err != nil {
			return notFound(err)
		}
		name := old.Name
		if c.Name != nil {
			var err error
			if name, err = catalogName(*c.Name); err != nil {
				return err
			}
		}
		ext := old.ExternalID
		if c.SetExternalID {
			ext = c.ExternalID
		}
		if _, err := tx.ExecContext(ctx, `UPDATE groups SET name = $2, scim_external_id = $3, updated_at = $4
			WHERE id = $1 AND (name <> $2 OR scim_external_id IS DISTINCT FROM $3)`, id, name, ext, stamp); err != nil {
			return groupNameTaken(err, name)
		}
		if err := changeMembers(ctx, tdb, tx, id, c.Members, stamp); err != nil {
			return err
		}
		var err error
		g, err = scimGroupByID(ctx, tx, id, true)
		return err
	})
	return g, err
}

// groupNameTaken turns the unique violation of a group name into Conflict
// (uniqueness).
func groupNameTaken(err error, name string) error {
	if isUniqueViolation(err) {
		return &learngate.Error{Code: learngate.Conflict, SCIMType: scim.Uniqueness, Err: err,
			Message: fmt.Sprintf("displayName '%s' is already taken", name)}
	}
	return fmt.Errorf("write group: %w", err)
}

// changeMembersSQL changes group $1's members in one statement: with $2
// (replace all) the members not in $3 leave, else those in $4; those in $3
// join. Each user whose membership changed gets updated_at $5; their ids
// are returned.
const changeMembersSQL = `
WITH del AS (
    DELETE FROM user_groups
    WHERE group_id = $1 AND CASE WHEN $2 THEN NOT (user_id = ANY($3::bigint[])) ELSE user_id = ANY($4::bigint[]) END
    RETURNING user_id),
ins AS (
    INSERT INTO user_groups (user_id, group_id) SELECT u, $1 FROM unnest($3::bigint[]) AS u
    ON CONFLICT DO NOTHING RETURNING user_id),
changed AS (SELECT user_id FROM del UNION SELECT user_id FROM ins)
UPDATE users SET updated_at = $5 FROM changed WHERE users.id = changed.user_id RETURNING users.id`

// changeMembers applies c to group id: the ids it adds must be visible
// users (else Invalid, invalidValue), those it must find members (else
// noTarget). The changed users' user.updated events are recorded, and
// the group's updated_at moves when any changed.
func changeMembers(ctx context.Context, tdb *TenantDB, tx *sqlx.Tx, id int64, c MemberChange, now time.Time) error {
	add := uniqueIDs(c.Add)
	if !c.ReplaceAll && len(add) == 0 && len(c.Remove) == 0 {
		return nil
	}
	if len(add) > 0 {
		var missing pq.Int64Array
		if err := tx.GetContext(ctx, &missing, `SELECT coalesce(array_agg(a ORDER BY a), '{}') FROM unnest($1::bigint[]) AS a
			WHERE NOT EXISTS (SELECT 1 FROM users WHERE users.id = a AND NOT scim_deleted)`, pq.Int64Array(add)); err != nil {
			return fmt.Errorf("check scim members: %w", err)
		}
		if len(missing) > 0 {
			return scim.Errorf(scim.InvalidValue, "member '%d' is no user", missing[0])
		}
	}
	if must := uniqueIDs(c.MustBeMembers); len(must) > 0 {
		var absent pq.Int64Array
		if err := tx.GetContext(ctx, &absent, `SELECT coalesce(array_agg(m ORDER BY m), '{}') FROM unnest($1::bigint[]) AS m
			WHERE NOT EXISTS (SELECT 1 FROM user_groups ug JOIN users u ON u.id = ug.user_id
			                  WHERE ug.group_id = $2 AND ug.user_id = m AND NOT u.scim_deleted)
			  AND NOT (m = ANY($3::bigint[]))`, pq.Int64Array(must), id, pq.Int64Array(add)); err != nil {
			return fmt.Errorf("check scim member targets: %w", err)
		}
		if len(absent) > 0 {
			return scim.Errorf(scim.NoTarget, "user '%d' is no member of the group", absent[0])
		}
	}
	var changed []int64
	if err := tx.SelectContext(ctx, &changed, changeMembersSQL, id, c.ReplaceAll, pq.Int64Array(add),
		pq.Int64Array(uniqueIDs(c.Remove)), now); err != nil {
		return fmt.Errorf("change scim members: %w", err)
	}
	if len(changed) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE groups SET updated_at = $2 WHERE id = $1`, id, now); err != nil {
		return fmt.Errorf("stamp scim group: %w", err)
	}
	sort.Slice(changed, func(i, j int) bool { return changed[i] < changed[j] })
	var cs changes
	for _, u := range changed {
		cs.add(kindUser, u, EventUserUpdated)
	}
	return tdb.recordChanges(ctx, tx, cs, now)
}

// uniqueIDs returns ids without repeats, sorted.
func uniqueIDs(ids []int64) []int64 {
	out := append([]int64{}, ids...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	n := 0
	for i, v := range out {
		if i == 0 || v != out[n-1] {
			out[n] = v
			n++
		}
	}
	return out[:n]
}

// DeleteSCIMGroup deletes group id as DELETE /papi/groups/{id} does (its
// users lose it); NotFound when there is none.
func DeleteSCIMGroup(ctx context.Context, tdb *TenantDB, id int64) error {
	return DeleteCatalogItem(ctx, tdb, learngate.Groups, id)
}
