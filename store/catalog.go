package store

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/input"

	"learngate/store/list"
)

// catalogTable is where a kind's names live and what one of them is called.
type catalogTable struct {
	table    string
	singular string
}

// catalogTables is the whitelist of catalog tables: SQL only ever names a
// table found here, never one taken from input.
var catalogTables = map[learngate.CatalogKind]catalogTable{
	learngate.Roles:      {table: "roles", singular: "role"},
	learngate.Groups:     {table: "groups", singular: "group"},
	learngate.Goals:      {table: "goals", singular: "goal"},
	learngate.Skills:     {table: "skills", singular: "skill"},
	learngate.Categories: {table: "categories", singular: "category"},
}

func catalogTableOf(kind learngate.CatalogKind) (catalogTable, error) {
	t, ok := catalogTables[kind]
	if !ok {
		return catalogTable{}, fmt.Errorf("unknown catalog kind %q", kind)
	}
	return t, nil
}

// MaxCatalogNameLength is the longest name (in characters) a catalog entry may have.
const MaxCatalogNameLength = 200

// ListCatalog returns one page of a catalog, oldest first (id ascending),
// and the number of entries in the whole catalog.
func ListCatalog(ctx context.Context, tdb *TenantDB, kind learngate.CatalogKind, page list.Page) ([]learngate.CatalogItem, int64, error) {
	t, err := catalogTableOf(kind)
	if err != nil {
		return nil, 0, err
	}
	items := []learngate.CatalogItem{}
	var total int64
	err = tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		total, err = list.Select(ctx, tx, &items, list.Catalog(t.table), `SELECT id, name FROM `+t.table, list.All(), page)
		if err != nil {
			return fmt.Errorf("list %s: %w", t.table, err)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return items, total, nil
}

// CreateCatalogItem adds name, trimmed, to a catalog. Invalid when the name
// is empty or longer than MaxCatalogNameLength; Unprocessable when the
// catalog already holds it in any letter case.
func CreateCatalogItem(ctx context.Context, tdb *TenantDB, kind learngate.CatalogKind, name string) (learngate.CatalogItem, error) {
	t, err := catalogTableOf(kind)
	if err != nil {
		return learngate.CatalogItem{}, err
	}
	name, err = catalogName(name)
	if err != nil {
		return learngate.CatalogItem{}, err
	}
	var item learngate.CatalogItem
	err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		return tx.GetContext(ctx, &item, `INSERT INTO `+t.table+` (name) VALUES ($1) RETURNING id, name`, name)
	})
	if err != nil {
		return learngate.CatalogItem{}, alreadyExists(err, t.singular, name)
	}
	return item, nil
}

// catalogName is a catalog entry's name trimmed; Invalid when it is empty
// or longer than MaxCatalogNameLength.
func catalogName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", learngate.Errorf(learngate.Invalid, "name is required")
	case utf8.RuneCountInString(name) > MaxCatalogNameLength:
		return "", learngate.Errorf(learngate.Invalid, "name must be at most %d characters", MaxCatalogNameLength)
	}
	return name, nil
}

// DeleteCatalogItem removes the entry id from a catalog; NotFound when there
// is no such entry.
func DeleteCatalogItem(ctx context.Context, tdb *TenantDB, kind learngate.CatalogKind, id int64) error {
	t, err := catalogTableOf(kind)
	if err != nil {
		return err
	}
	return tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := deleteByID(ctx, tx, t.table, id); err != nil {
			return err
		}
		// The name is also to be removed from the users and records that
		// carry it: the issues that add those tables add that cleanup here,
		// in this transaction.
		return nil
	})
}

// MaxCustomFields is how many custom fields a tenant may have.
const MaxCustomFields = 20

// MaxCustomFieldOptions is how many options a list field may have
// (docs/reliability.md, B5).
const MaxCustomFieldOptions = 200

// customFieldName is the form of a custom field name: it is used as the
// property name X-<name>.
var customFieldName = regexp.MustCompile(`^[\p{L}\p{Nd} _-]{1,64}$`)

// validateCustomField returns in with its name and options trimmed, or an Invalid
// error naming the first rule it breaks.
func validateCustomField(in learngate.NewCustomField) (learngate.NewCustomField, error) {
	out := learngate.NewCustomField{Name: strings.TrimSpace(in.Name), FieldType: in.FieldType, Options: []string{}}
	switch {
	case out.Name == "":
		return out, learngate.Errorf(learngate.Invalid, "name is required")
	case !customFieldName.MatchString(out.Name):
		return out, learngate.Errorf(learngate.Invalid, "name must be 1 to 64 letters, digits, spaces, '_' or '-'")
	case out.FieldType == "":
		return out, learngate.Errorf(learngate.Invalid, "field_type is required")
	}
	switch out.FieldType {
	case learngate.FieldString, learngate.FieldNumber, learngate.FieldDate:
		if len(in.Options) > 0 {
			return out, learngate.Errorf(learngate.Invalid, "options are only allowed for list fields")
		}
		return out, nil
	case learngate.FieldList:
	default:
		return out, learngate.Errorf(learngate.Invalid, "field_type must be one of string, number, date, list")
	}
	if len(in.Options) == 0 {
		return out, learngate.Errorf(learngate.Invalid, "options are required for a list field")
	}
	if len(in.Options) > MaxCustomFieldOptions {
		return out, learngate.Errorf(learngate.Invalid, "a list field may have at most %d options", MaxCustomFieldOptions)
	}
	seen := make(map[string]bool, len(in.Options))
	for _, o := range in.Options {
		o = strings.TrimSpace(o)
		if o == "" {
			return out, learngate.Errorf(learngate.Invalid, "options must be non-empty strings")
		}
		if utf8.RuneCountInString(o) > MaxCatalogNameLength {
			return out, learngate.Errorf(learngate.Invalid, "options must be at most %d characters", MaxCatalogNameLength)
		}
		if strings.Contains(o, ";") {
			// List values are sent and returned joined with ';'.
			return out, learngate.Errorf(learngate.Invalid, "option '%s' must not contain ';'", input.Quote(o))
		}
		if seen[strings.ToLower(o)] {
			return out, learngate.Errorf(learngate.Invalid, "option '%s' is given more than once", input.Quote(o))
		}
		seen[strings.ToLower(o)] = true
		out.Options = append(out.Options, o)
	}
	return out, nil
}

// customFieldRow is a custom_fields row as the driver reads it.
type customFieldRow struct {
	ID        int64          `db:"id"`
	Name      string         `db:"name"`
	FieldType string         `db:"field_type"`
	Options   pq.StringArray `db:"options"`
}

func (r customFieldRow) toCustomField() learngate.CustomField {
	return learngate.CustomField{ID: r.ID, Name: r.Name, FieldType: r.FieldType, Options: append([]string{}, r.Options...)}
}

const customFieldColumns = `id, name, field_type, options`

// ListCustomFields returns one page of the tenant's custom fields, oldest
// first, and how many there are.
func ListCustomFields(ctx context.Context, tdb *TenantDB, page list.Page) ([]learngate.CustomField, int64, error) {
	var rows []customFieldRow
	var total int64
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		total, err = list.Select(ctx, tx, &rows, list.CustomFields, `SELECT `+customFieldColumns+` FROM custom_fields`, list.All(), page)
		if err != nil {
			return fmt.Errorf("list custom_fields: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	fields := make([]learngate.CustomField, len(rows))
	for i, r := range rows {
		fields[i] = r.toCustomField()
	}
	return fields, total, nil
}

// CreateCustomField adds a custom field. Invalid when in breaks a rule of
// docs/decisions.md, "Catalog, topics and pathways"; Unprocessable when the tenant already has
// MaxCustomFields fields or one of the same name in any letter case. The
// count is taken under a lock that serialises concurrent creates, so the
// limit holds under races.
func CreateCustomField(ctx context.Context, tdb *TenantDB, in learngate.NewCustomField) (learngate.CustomField, error) {
	in, err := validateCustomField(in)
	if err != nil {
		return learngate.CustomField{}, err
	}
	var row customFieldRow
	err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		// SHARE ROW EXCLUSIVE conflicts with itself and with the row locks of
		// INSERT and DELETE: the count below stays true until commit.
		if _, err := tx.ExecContext(ctx, `LOCK TABLE custom_fields IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("lock custom_fields: %w", err)
		}
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM custom_fields`); err != nil {
			return fmt.Errorf("count custom_fields: %w", err)
		}
		if n >= MaxCustomFields {
			return learngate.Errorf(learngate.Unprocessable, "a tenant may have at most %d custom fields", MaxCustomFields)
		}
		return tx.GetContext(ctx, &row, `INSERT INTO custom_fields (name, field_type, options) VALUES ($1, $2, $3)
			RETURNING `+customFieldColumns, in.Name, in.FieldType, pq.StringArray(in.Options))
	})
	if err != nil {
		return learngate.CustomField{}, alreadyExists(err, "custom field", in.Name)
	}
	return row.toCustomField(), nil
}

// DeleteCustomField removes the custom field id; NotFound when there is none.
func DeleteCustomField(ctx context.Context, tdb *TenantDB, id int64) error {
	return tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		// The issue that stores users' custom values removes this field's
		// values here, in this transaction.
		return deleteByID(ctx, tx, "custom_fields", id)
	})
}
