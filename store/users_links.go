package store

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/input"
)

// linkCatalog is what resolving the links of some user inputs needs: the
// ids of the role, group and goal names they use (by the name as sent) and,
// when one of them sets a custom field, the tenant's custom fields.
type linkCatalog struct {
	roles, groups, goals map[string]int64
	fields               map[string]learngate.CustomField
}

// lookupLinkCatalog looks up the role, group and goal names ins use
// (ignoring case, locked as lookupNames locks them) and, when one of them
// sets a custom field, the tenant's custom fields, in one query (none when
// there is nothing to look up).
func lookupLinkCatalog(ctx context.Context, tx *sqlx.Tx, ins []learngate.UserInput) (linkCatalog, error) {
	var roles, groups, goals pq.StringArray
	custom := false
	for _, in := range ins {
		for _, name := range in.Roles {
			if name != nil && *name != "" {
				roles = append(roles, *name)
			}
		}
		groups = append(groups, in.Groups...)
		goals = append(goals, in.Goals...)
		custom = custom || len(in.CustomFields) > 0
	}
	roles, groups, goals = distinct(roles), distinct(groups), distinct(goals)
	cat := linkCatalog{roles: map[string]int64{}, groups: map[string]int64{}, goals: map[string]int64{}}
	if len(roles)+len(groups)+len(goals) == 0 && !custom {
		return cat, nil
	}
	var rows []struct {
		Kind      string         `db:"kind"`
		Name      string         `db:"name"`
		ID        int64          `db:"id"`
		FieldType string         `db:"field_type"`
		Options   pq.StringArray `db:"options"`
	}
	err := tx.SelectContext(ctx, &rows, `
		WITH r AS (SELECT t.n AS name, c.id FROM unnest($1::text[]) AS t(n) JOIN roles c ON lower(c.name) = lower(t.n) FOR KEY SHARE OF c),
		g AS (SELECT t.n AS name, c.id FROM unnest($2::text[]) AS t(n) JOIN groups c ON lower(c.name) = lower(t.n) FOR KEY SHARE OF c),
		o AS (SELECT t.n AS name, c.id FROM unnest($3::text[]) AS t(n) JOIN goals c ON lower(c.name) = lower(t.n) FOR KEY SHARE OF c)
		SELECT 'role' AS kind, name, id, '' AS field_type, '{}'::text[] AS options FROM r
		UNION ALL SELECT 'group', name, id, '', '{}' FROM g
		UNION ALL SELECT 'goal', name, id, '', '{}' FROM o
		UNION ALL SELECT 'field', name, id, field_type, options FROM custom_fields WHERE $4`, roles, groups, goals, custom)
	if err != nil {
		return cat, fmt.Errorf("look up roles, groups, goals and custom fields: %w", err)
	}
	if custom {
		cat.fields = map[string]learngate.CustomField{}
	}
	for _, r := range rows {
		switch r.Kind {
		case "role":
			cat.roles[r.Name] = r.ID
		case "group":
			cat.groups[r.Name] = r.ID
		case "goal":
			cat.goals[r.Name] = r.ID
		case "field":
			f := customFieldRow{ID: r.ID, Name: r.Name, FieldType: r.FieldType, Options: r.Options}
			cat.fields[strings.ToLower(r.Name)] = f.toCustomField()
		}
	}
	return cat, nil
}

// distinct returns names without repeats, in their first order.
func distinct(names pq.StringArray) pq.StringArray {
	seen := make(map[string]bool, len(names))
	out := names[:0]
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// resolve returns cur changed by the roles, groups, goals and custom
// fields of in, their names resolved to ids with c, which must hold those
// of in (lookupLinkCatalog). Invalid for a name that names nothing, in the
// order role_1..role_5, groups, goals, custom fields (by name), and for a
// custom value its field does not accept.
func (c linkCatalog) resolve(in learngate.UserInput, cur userLinks) (userLinks, error) {
	next := userLinks{roles: cur.roles, groups: cur.groups, goals: cur.goals, custom: make(map[int64]string, len(cur.custom))}
	for id, v := range cur.custom {
		next.custom[id] = v
	}
	for i, name := range in.Roles {
		switch {
		case name == nil:
		case *name == "":
			next.roles[i] = 0
		default:
			id, ok := c.roles[*name]
			if !ok {
				return next, input.IllegalValue(fmt.Sprintf("role_%d", i+1), *name)
			}
			next.roles[i] = id
		}
	}
	var err error
	if in.Groups != nil {
		if next.groups, err = idsOf(c.groups, "groups", in.Groups); err != nil {
			return next, err
		}
	}
	if in.Goals != nil {
		if next.goals, err = idsOf(c.goals, "goals", in.Goals); err != nil {
			return next, err
		}
	}
	if len(in.CustomFields) > 0 {
		if err := customValuesInto(c.fields, in.CustomFields, next.custom); err != nil {
			return next, err
		}
	}
	return next, nil
}

// resolveNameSet returns the sorted ids of names in catalog kind; Invalid
// naming field and the first unknown name.
func resolveNameSet(ctx context.Context, tx *sqlx.Tx, kind learngate.CatalogKind, field string, names []string) ([]int64, error) {
	found, err := lookupNames(ctx, tx, kind, names)
	if err != nil {
		return nil, err
	}
	return idsOf(found, field, names)
}

// idsOf returns the sorted, distinct ids found (lookupNames) gives names;
// Invalid naming field and the first name it lacks.
func idsOf(found map[string]int64, field string, names []string) ([]int64, error) {
	ids := make([]int64, 0, len(names))
	seen := make(map[int64]bool, len(names))
	for _, name := range names {
		id, ok := found[name]
		if !ok {
			return nil, input.IllegalValue(field, name)
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

// lookupNames maps each of names that is in catalog kind, ignoring case, to
// its id, in one query. The entries found are locked (FOR KEY SHARE) until
// tx ends, so a concurrent DELETE of one waits instead of breaking the
// links tx is about to insert; tx must be read-write.
func lookupNames(ctx context.Context, tx *sqlx.Tx, kind learngate.CatalogKind, names []string) (map[string]int64, error) {
	found := make(map[string]int64, len(names))
	if len(names) == 0 {
		return found, nil
	}
	t, err := catalogTableOf(kind)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		Name string `db:"name"`
		ID   int64  `db:"id"`
	}
	err = tx.SelectContext(ctx, &rows, `SELECT t.n AS name, c.id FROM unnest($1::text[]) AS t(n)
		JOIN `+t.table+` c ON lower(c.name) = lower(t.n) FOR KEY SHARE OF c`, pq.StringArray(names))
	if err != nil {
		return nil, fmt.Errorf("look up %s: %w", t.table, err)
	}
	for _, r := range rows {
		found[r.Name] = r.ID
	}
	return found, nil
}

// customFieldsSQL lists the tenant's custom fields with their types and
// options. The benchmark's baseline
// (bench/baseline) keeps a copy.
const customFieldsSQL = `SELECT ` + customFieldColumns + ` FROM custom_fields`

// customFieldsByName returns the tenant's custom fields keyed by their
// lower-cased names.
func customFieldsByName(ctx context.Context, tx *sqlx.Tx) (map[string]learngate.CustomField, error) {
	var rows []customFieldRow
	if err := tx.SelectContext(ctx, &rows, customFieldsSQL); err != nil {
		return nil, fmt.Errorf("load custom fields: %w", err)
	}
	fields := make(map[string]learngate.CustomField, len(rows))
	for _, r := range rows {
		fields[strings.ToLower(r.Name)] = r.toCustomField()
	}
	return fields, nil
}

// customValuesInto sets or clears in values (by field id) each X- value
// of given (by the name after the prefix), in name order, with fields
// (customFieldsByName). Invalid for a name of no custom field and for a
// value the field does not accept.
func customValuesInto(fields map[string]learngate.CustomField, given map[string]any, values map[int64]string) error {
	names := make([]string, 0, len(given))
	for name := range given {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		label := "X-" + name
		field, ok := fields[strings.ToLower(name)]
		if !ok {
			return learngate.Errorf(learngate.Invalid, "Unknown custom field '%s'", label)
		}
		value, set, err := customValue(field, label, given[name])
		if err != nil {
			return err
		}
		if set {
			values[field.ID] = value
		} else {
			delete(values, field.ID)
		}
	}
	return nil
}

// customValue parses v for field (docs/decisions.md, "Users") into its stored
// form: text as sent, a number in shortest form, a date as yyyy-mm-dd, list
// options in their canonical spelling, sorted and joined with ';'. set is
// false when v clears the value.
func customValue(field learngate.CustomField, label string, v any) (value string, set bool, err error) {
	if input.IsClear(v) {
		return "", false, nil
	}
	switch field.FieldType {
	case learngate.FieldNumber:
		f, err := input.Decimal(label, v)
		if err != nil {
			return "", false, err
		}
		return formatNumber(f), true, nil
	case learngate.FieldDate:
		d, err := input.Date(label, v)
		if err != nil {
			return "", false, err
		}
		return input.FormatDate(d), true, nil
	case learngate.FieldList:
		items, err := input.NameList(label, v)
		if err != nil {
			return "", false, err
		}
		chosen := make([]string, 0, len(items))
		for _, item := range items {
			option, ok := matchOption(field.Options, item)
			if !ok {
				return "", false, input.IllegalValue(label, item)
			}
			chosen = append(chosen, option)
		}
		if len(chosen) == 0 {
			return "", false, nil
		}
		sortNames(chosen)
		return strings.Join(chosen, ";"), true, nil
	}
	s, err := input.Text(label, v)
	if err != nil {
		return "", false, err
	}
	if utf8.RuneCountInString(s) > MaxCustomTextLength {
		return "", false, learngate.Errorf(learngate.Invalid, "%s is too long (at most %d characters)",
			label, MaxCustomTextLength)
	}
	return s, true, nil
}

// MaxCustomTextLength is the longest value of a string custom field, in
// characters, as for the user's own text fields (docs/reliability.md, B4).
const MaxCustomTextLength = 255

// matchOption returns the option equal to item ignoring case.
func matchOption(options []string, item string) (string, bool) {
	for _, o := range options {
		if strings.EqualFold(o, item) {
			return o, true
		}
	}
	return "", false
}

// formatNumber writes f in its shortest decimal form without an exponent.
func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// sortNames sorts names ignoring case, then by their exact spelling.
func sortNames(names []string) {
	sort.Slice(names, func(i, j int) bool {
		a, b := strings.ToLower(names[i]), strings.ToLower(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
}
