// Package list is the one engine behind every paged list of the API
// (docs/api.md, "Lists and paging"; docs/decisions.md, "Lists and paging"):
// users, topic and pathway enrolments, external knowledge, the SCIM users
// and groups, and the small lists (topics, pathways, catalogs, custom
// fields, webhooks, deliveries).
//
// Each list is declared once as a Spec: its table, its order (Order) and,
// where it has them, its rank anchors. Each list's filter is a typed value
// (UserFilter, EnrolmentFilter, KnowledgeFilter, UpdatedFilter, a SCIM
// filter expression) that turns itself into a Query through the Query
// builder, which owns the conditions and their placeholders, and whose Plan
// (how to count, how to read the page) the filter picks from its own
// fields: never from the text of the SQL. Select then counts, finds a
// numbered page (from whichever end of the list is nearer, or from a rank
// anchor) or a cursor page, and reads the page's rows through the caller's
// SELECT: the rows' columns and joins are the store's, the page's ids are
// the engine's.
//
// Rank anchors (anchors.go, anchors_maintain.go) are one implementation for
// every anchored list, kept by the periodic rank_anchors job. The partial
// index predicates the filters must repeat for PostgreSQL to use those
// indexes live in indexes.go, and the migrations that build the indexes
// use the same functions.
package list
