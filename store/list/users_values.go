package list

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/input"
)

// The x-<name> filters of GET /users (docs/decisions.md, "GET /papi/users"):
// strings match partially, numbers and dates exactly, lists when any of the
// comma-separated items is part of any of the user's items; all ignoring case.

// valuesFilter is one x- filter as SQL.
type valuesFilter struct {
	// cond is the condition over users; "" when the filter matches every user.
	cond string
	// values is the same condition over the field's values v alone.
	values string
	// set, when not "", is the placeholder of the exact values (text[],
	// several) that match: the page then reads each value's users in list
	// order on user_custom_values_value and merges them (ReadMerged).
	set string
}

// valueSetLimit is how many distinct short values a text or list field may
// hold for its filter to be matched against them (valueSetSQL); a field
// with more is filtered on the trigram index.
const valueSetLimit = 1000

// customFilter is the filter x-<name>=raw (param) on field, its arguments
// added to q. Numbers and dates match one exact value. A text or list field
// of at most valueSetLimit distinct values, none over ShortValueMax
// characters (departments, regions, job titles), has its matching values
// found among them first (valueSetSQL), then matches those exactly as
// numbers do: 40,000 of 1M users matching a department are counted and
// paged on user_custom_values_value in milliseconds, where the trigram
// index's candidates (a row each, on as many heap pages) took about 90 ms.
// Any other text or list field is `users.id IN (the field's matching user
// ids)`, found first on the trigram index user_custom_values_lower_trgm
// (lower(value) LIKE '%part%', migration 00019), with the field checked on
// the rows found.
func customFilter(ctx context.Context, tx *sqlx.Tx, q *Query, field learngate.CustomField, param, raw string) (valuesFilter, error) {
	switch field.FieldType {
	case learngate.FieldNumber:
		f, err := input.Decimal(param, raw)
		if err != nil {
			return valuesFilter{}, err
		}
		return exactValueFilter(q, field, strconv.FormatFloat(f, 'f', -1, 64)), nil
	case learngate.FieldDate:
		d, err := input.Date(param, raw)
		if err != nil || input.FormatDate(d) != strings.TrimSpace(raw) {
			return valuesFilter{}, input.IllegalValue(param, raw)
		}
		return exactValueFilter(q, field, input.FormatDate(d)), nil
	}
	var match string
	var matchArg any
	var items []string
	if field.FieldType == learngate.FieldList {
		for _, item := range strings.Split(raw, ",") {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
		if len(items) == 0 {
			return valuesFilter{}, nil
		}
		match = `EXISTS (SELECT 1 FROM unnest(string_to_array(%[1]s, ';')) AS item, unnest(%[2]s::text[]) AS want
			WHERE strpos(lower(item), lower(want)) > 0)`
		matchArg = pq.StringArray(items)
	} else {
		match = `lower(%[1]s) LIKE lower(%[2]s)`
		matchArg = likeContains(strings.TrimSpace(raw))
	}
	set, ok, err := matchingValueSet(ctx, tx, field.ID, match, matchArg)
	if err != nil {
		return valuesFilter{}, err
	}
	if ok {
		return valueSetFilter(q, field, set), nil
	}
	// On the trigram index. A stored item holding a wanted part means the
	// whole value holds it: the whole-value matches, ORed, are a necessary
	// prefilter the index serves; the exact per-item condition decides.
	values := `v.field_id = ` + q.Arg(field.ID) + ` AND `
	if items != nil {
		pre := make([]string, len(items))
		for i, item := range items {
			pre[i] = "lower(v.value) LIKE lower(" + q.Arg(likeContains(item)) + ")"
		}
		values += "(" + strings.Join(pre, " OR ") + ") AND "
	}
	values += fmt.Sprintf(match, "v.value", q.Arg(matchArg))
	return valuesFilter{cond: `users.id IN (SELECT v.user_id FROM user_custom_values v WHERE ` + values + `)`, values: values}, nil
}

// exactValueFilter matches one exact value: a value of up to ShortValueMax
// characters on user_custom_values_value (field, value, the user's
// created_at and id: migration 00021), whose entries are the short values.
func exactValueFilter(q *Query, field learngate.CustomField, want string) valuesFilter {
	if utf8.RuneCountInString(want) > ShortValueMax {
		values := "v.field_id = " + q.Arg(field.ID) + " AND v.value = " + q.Arg(want)
		return valuesFilter{cond: `EXISTS (SELECT 1 FROM user_custom_values v WHERE v.user_id = users.id AND ` + values + `)`,
			values: values}
	}
	return valueSetFilter(q, field, []string{want})
}

// valueSetFilter matches the short values set exactly. One value is an
// equality, whose index entries are already in list order: a deep page
// skips them without sorting (the middle of 125,000 users holding one
// list value: 63 ms merged and sorted per value).
func valueSetFilter(q *Query, field learngate.CustomField, set []string) valuesFilter {
	var f valuesFilter
	if len(set) == 1 {
		f.values = "v.field_id = " + q.Arg(field.ID) + " AND v.value = " + q.Arg(set[0]) + " AND " + ShortValue("v.value")
	} else {
		id := q.Arg(field.ID)
		f.set = q.Arg(pq.StringArray(set))
		f.values = "v.field_id = " + id + " AND v.value = ANY(" + f.set + "::text[]) AND " + ShortValue("v.value")
	}
	f.cond = `EXISTS (SELECT 1 FROM user_custom_values v WHERE v.user_created_at = users.created_at AND v.user_id = users.id AND ` +
		f.values + `)`
	return f
}

// valueSetSQL finds the distinct values of field $1 by skipping through
// user_custom_values_value (a step per distinct value, the first
// valueSetLimit+1 at most), says whether the field has more or has values
// too long for that index (user_custom_values_long, migration 00022), and
// returns those that pass a condition on value (%[2]s; its argument $2).
var valueSetSQL = `WITH RECURSIVE distinct_values AS (
		(SELECT value FROM user_custom_values WHERE field_id = $1 AND ` + ShortValue("value") + ` ORDER BY value LIMIT 1)
		UNION ALL
		SELECT (SELECT v.value FROM user_custom_values v WHERE v.field_id = $1 AND ` + ShortValue("v.value") + ` AND v.value > d.value
			ORDER BY v.value LIMIT 1)
		FROM distinct_values d WHERE d.value IS NOT NULL),
	found AS MATERIALIZED (SELECT value FROM distinct_values WHERE value IS NOT NULL LIMIT %[1]d + 1)
	SELECT (SELECT count(*) FROM found) <= %[1]d
			AND NOT EXISTS (SELECT 1 FROM user_custom_values WHERE field_id = $1 AND ` + LongValue("value") + `) AS ok,
		COALESCE((SELECT array_agg(value ORDER BY value) FROM found WHERE %[2]s), '{}') AS matched`

// matchingValueSet returns the values of field fieldID that pass match (a
// condition on %[1]s, the value, and %[2]s, the placeholder of arg); ok is
// false when the field has too many distinct values or long ones to tell.
func matchingValueSet(ctx context.Context, tx *sqlx.Tx, fieldID int64, match string, arg any) ([]string, bool, error) {
	var res struct {
		OK      bool           `db:"ok"`
		Matched pq.StringArray `db:"matched"`
	}
	q := fmt.Sprintf(valueSetSQL, valueSetLimit, fmt.Sprintf(match, "value", "$2"))
	if err := tx.GetContext(ctx, &res, q, fieldID, arg); err != nil {
		return nil, false, fmt.Errorf("custom field values: %w", err)
	}
	return res.Matched, res.OK, nil
}

// likeEscaper escapes LIKE's wildcards and its default escape character.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// likeContains is the LIKE pattern of the values holding part as it is:
// `%`, `_` and `\` in part are plain characters (docs/decisions.md,
// "GET /papi/users").
func likeContains(part string) string {
	return "%" + likeEscaper.Replace(part) + "%"
}
