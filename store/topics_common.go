package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/input"
)

// What topics and pathways share: enrolment codes (docs/decisions.md,
// "Enrolment codes of topics and pathways"), skills and small field helpers.

// codeOwner is the kind of record an enrolment code names: the
// enrolment_codes column that holds its id and the prefix of its generated
// codes. Only the two values below exist; SQL names no other column.
type codeOwner struct {
	column string
	prefix string
}

var (
	topicCodes   = codeOwner{column: "topic_id", prefix: "TP"}
	pathwayCodes = codeOwner{column: "pathway_id", prefix: "PW"}
)

// codeTaken reports whether code, in any letter case, names a record other
// than the owner's record id (0: a record not stored yet).
func codeTaken(ctx context.Context, tx *sqlx.Tx, owner codeOwner, id int64, code string) (bool, error) {
	var taken bool
	err := tx.GetContext(ctx, &taken, `SELECT EXISTS (SELECT 1 FROM enrolment_codes
		WHERE lower(code) = lower($1) AND `+owner.column+` IS DISTINCT FROM $2)`, code, id)
	if err != nil {
		return false, fmt.Errorf("look up enrolment code: %w", err)
	}
	return taken, nil
}

// codeTakenError is the 422 of a code that another topic or pathway holds.
func codeTakenError(code string) error {
	return learngate.Errorf(learngate.Unprocessable, "enrolment_code '%s' is already taken", input.Quote(code))
}

// setEnrolmentCode gives record id of owner the enrolment code code,
// replacing its current one, and returns it. An empty code gives a
// generated one, <prefix>-<id>-<3 random digits>, never one that is taken.
// Unprocessable when code is taken (in any letter case) by another record.
func setEnrolmentCode(ctx context.Context, tx *sqlx.Tx, owner codeOwner, id int64, code string) (string, error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM enrolment_codes WHERE `+owner.column+` = $1`, id); err != nil {
		return "", fmt.Errorf("remove enrolment code: %w", err)
	}
	if code != "" {
		ok, err := insertCode(ctx, tx, owner, id, code)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", codeTakenError(code)
		}
		return code, nil
	}
	// Every free suffix is tried once, in random order: a code is found
	// whenever one is free, even when clients have taken most of them.
	for _, n := range rand.Perm(1000) {
		generated := fmt.Sprintf("%s-%d-%03d", owner.prefix, id, n)
		ok, err := insertCode(ctx, tx, owner, id, generated)
		if err != nil {
			return "", err
		}
		if ok {
			return generated, nil
		}
	}
	return "", fmt.Errorf("every enrolment code %s-%d-nnn is taken", owner.prefix, id)
}

// insertCode stores code for record id unless it is taken in any letter
// case; ON CONFLICT waits for a concurrent insert of the same code to
// settle instead of failing the transaction.
func insertCode(ctx context.Context, tx *sqlx.Tx, owner codeOwner, id int64, code string) (bool, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO enrolment_codes (code, `+owner.column+`) VALUES ($1, $2)
		ON CONFLICT ((lower(code))) DO NOTHING`, code, id)
	if err != nil {
		return false, fmt.Errorf("insert enrolment code: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("insert enrolment code: %w", err)
	}
	return n == 1, nil
}

// sortItems sorts catalog items by name ignoring case, then by spelling.
func sortItems(items []learngate.CatalogItem) {
	sort.Slice(items, func(i, j int) bool {
		a, b := strings.ToLower(items[i].Name), strings.ToLower(items[j].Name)
		if a != b {
			return a < b
		}
		return items[i].Name < items[j].Name
	})
}

// skillsOf loads the skills of every owner in ids from the link table
// (topic_skills or pathway_skills, whose owner column is column), sorted by
// name, keyed by owner id.
func skillsOf(ctx context.Context, q sqlx.QueryerContext, table, column string, ids []int64) (map[int64][]learngate.CatalogItem, error) {
	var rows []struct {
		OwnerID int64  `db:"owner_id"`
		ID      int64  `db:"id"`
		Name    string `db:"name"`
	}
	err := sqlx.SelectContext(ctx, q, &rows, `SELECT l.`+column+` AS owner_id, s.id, s.name
		FROM `+table+` l JOIN skills s ON s.id = l.skill_id WHERE l.`+column+` = ANY($1)`, pq.Int64Array(ids))
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", table, err)
	}
	skills := make(map[int64][]learngate.CatalogItem, len(ids))
	for _, r := range rows {
		skills[r.OwnerID] = append(skills[r.OwnerID], learngate.CatalogItem{ID: r.ID, Name: r.Name})
	}
	for _, s := range skills {
		sortItems(s)
	}
	return skills, nil
}

// writeSkills replaces the skills of owner id in the link table with ids.
func writeSkills(ctx context.Context, tx *sqlx.Tx, table, column string, id int64, ids []int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE `+column+` = $1`, id); err != nil {
		return fmt.Errorf("clear %s: %w", table, err)
	}
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO `+table+` (`+column+`, skill_id) SELECT $1, unnest($2::bigint[])`,
		id, pq.Int64Array(ids))
	if err != nil {
		return fmt.Errorf("write %s: %w", table, err)
	}
	return nil
}

// resolveSkills returns the sorted ids of the skill names; Invalid naming
// 'skills' and the first unknown name.
func resolveSkills(ctx context.Context, tx *sqlx.Tx, names []string) ([]int64, error) {
	return resolveNameSet(ctx, tx, learngate.Skills, "skills", names)
}

// checkCode is the check of a save's code: whether the code must be
// written (always for a new record, else when one is given that differs
// from current) and, when a code is named, Unprocessable if another record
// holds it in any letter case. The code to write is "" to generate one.
func checkCode(ctx context.Context, tx *sqlx.Tx, owner codeOwner, id int64, current string, given *string, creating bool) (string, bool, error) {
	code := ""
	if given != nil {
		code = *given
	}
	if !creating && (given == nil || code == current) {
		return current, false, nil
	}
	if code != "" {
		taken, err := codeTaken(ctx, tx, owner, id, code)
		if err != nil {
			return "", false, err
		}
		if taken {
			return "", false, codeTakenError(code)
		}
	}
	return code, true, nil
}

func setInt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}

// setDays sets certify_days: 0 clears it.
func setDays(dst **int, v *int) {
	switch {
	case v == nil:
	case *v == 0:
		*dst = nil
	default:
		d := *v
		*dst = &d
	}
}

// sameDays reports whether two certify_days values are equal.
func sameDays(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
