package learngate

import "strings"

// CatalogKind names one of a tenant's name-only catalogs (docs/decisions.md, "Catalog, topics and pathways").
type CatalogKind string

// The name-only catalogs.
const (
	Roles      CatalogKind = "roles"
	Groups     CatalogKind = "groups"
	Goals      CatalogKind = "goals"
	Skills     CatalogKind = "skills"
	Categories CatalogKind = "categories"
)

// CatalogItem is one entry of a name-only catalog.
type CatalogItem struct {
	ID   int64  `db:"id" json:"id"`
	Name string `db:"name" json:"name"`
}

// Custom field types.
const (
	FieldString = "string"
	FieldNumber = "number"
	FieldDate   = "date"
	FieldList   = "list"
)

// CustomField is a tenant's custom user field. Options lists the choices of
// a list field and is empty for the other types.
type CustomField struct {
	ID        int64    `json:"id"`
	Name      string   `json:"name"`
	FieldType string   `json:"field_type"`
	Options   []string `json:"options"`
}

// NewCustomField is the input of store.CreateCustomField.
type NewCustomField struct {
	Name      string
	FieldType string
	Options   []string
}

// skillNames joins skill names with ';', the form topics and pathways
// show their skills in (as users show groups).
func skillNames(skills []CatalogItem) string {
	names := make([]string, len(skills))
	for i, s := range skills {
		names[i] = s.Name
	}
	return strings.Join(names, ";")
}
