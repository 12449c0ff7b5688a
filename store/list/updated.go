package list

import "time"

// UpdatedFilter is the updated_after/updated_before part of every list's
// filter (docs/api.md, "Lists and paging"). Nil bounds filter nothing; both
// are exclusive.
type UpdatedFilter struct {
	UpdatedAfter, UpdatedBefore *time.Time
}

// any says whether f bounds updated_at at all.
func (f UpdatedFilter) any() bool { return f.UpdatedAfter != nil || f.UpdatedBefore != nil }

// addTo adds f's bounds on the updated_at column of alias to q.
func (f UpdatedFilter) addTo(q *Query, alias string) {
	if f.UpdatedAfter != nil {
		q.Where(alias + ".updated_at > " + q.Arg(*f.UpdatedAfter))
	}
	if f.UpdatedBefore != nil {
		q.Where(alias + ".updated_at < " + q.Arg(*f.UpdatedBefore))
	}
}

// Query is f as a query of a small list s (topics, pathways): its bounds
// read in list order.
func (f UpdatedFilter) Query(s Spec) *Query {
	q := NewQuery(Plan{})
	f.addTo(q, s.ref())
	return q
}

// The small lists: oldest first (newest first for deliveries), every row
// shown, read in order with their rows (a page of a few rows from a table
// of hundreds); the catalogs are declared by Catalog.
var (
	// Topics is GET /papi/topics.
	Topics = Spec{Name: "topics", Table: "topics", Alias: "t"}
	// Pathways is GET /papi/pathways.
	Pathways = Spec{Name: "pathways", Table: "pathways", Alias: "p"}
	// CustomFields is GET /papi/custom_fields.
	CustomFields = Spec{Name: "custom fields", Table: "custom_fields"}
	// Webhooks is GET /papi/webhooks.
	Webhooks = Spec{Name: "webhooks", Table: "webhook_endpoints"}
	// Deliveries is GET /papi/webhooks/{id}/deliveries, newest first.
	Deliveries = Spec{Name: "deliveries", Table: "webhook_deliveries", Alias: "d", Order: NewestByID}
)

// Catalog is the list of catalog table (skills, categories, ...: a
// constant of the store's, never input).
func Catalog(table string) Spec { return Spec{Name: table, Table: table} }

// All is the query of every row of a list, read in order.
func All() *Query { return NewQuery(Plan{}) }
