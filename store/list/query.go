package list

import (
	"fmt"
	"strings"
)

// Query is a list's filter as SQL: its conditions over the list's rows and
// their arguments, with the placeholders the builder numbered, and the Plan
// its filter chose. Build one with NewQuery, Arg and Where (miniflux's
// EntryQueryBuilder is the model): no caller numbers a placeholder.
type Query struct {
	conds []string
	args  []any
	// Plan is how the list is counted and its page read.
	Plan Plan
	// source, when set, is where the matches are counted and a numbered
	// page's ids read, instead of the list's own table (Read IDs, Sorted
	// or Merged only).
	source *Source
	// merge is the column and the array of values of a Merged read.
	merge *merge
	// except is AnchoredExcept's condition of the rows to take off the
	// anchored total.
	except string
}

// merge is a Merged read's column (in the source) and its values'
// placeholder and element type.
type merge struct {
	column, values, elem string
}

// Source is a table other than the list's whose rows stand one for one
// for the list's matches: the matches are counted there and a numbered
// page's keys read from it. Keys are its columns holding the list's key,
// in the list's key order (the last one the list's id); Cond its
// condition of the matches.
type Source struct {
	Table, Alias string
	Keys         []string
	Cond         string
}

// NewQuery is an empty query (every row of the list) with plan p.
func NewQuery(p Plan) *Query { return &Query{Plan: p} }

// Arg adds v as the next argument and returns its placeholder.
func (q *Query) Arg(v any) string {
	q.args = append(q.args, v)
	return fmt.Sprintf("$%d", len(q.args))
}

// Where adds cond, a condition over the list's rows (its table alias) that
// every match passes.
func (q *Query) Where(cond string) { q.conds = append(q.conds, cond) }

// From sets the source of the matches' count and of a numbered page's keys.
func (q *Query) From(s Source) { q.source = &s }

// MergeOn sets a Merged read's column and values (a placeholder of an array
// of elem, e.g. "bigint" or "text").
func (q *Query) MergeOn(column, values, elem string) {
	q.merge = &merge{column: column, values: values, elem: elem}
}

// Except sets AnchoredExcept's condition: the rows the filter leaves out.
func (q *Query) Except(cond string) { q.except = cond }

// Args are the query's arguments, in placeholder order.
func (q *Query) Args() []any { return q.args }

// where is the conditions joined, with the list's listed condition first.
func (q *Query) where(s Spec) string {
	conds := make([]string, 0, len(q.conds)+1)
	if s.Listed != "" {
		conds = append(conds, s.Listed)
	}
	conds = append(conds, q.conds...)
	if len(conds) == 0 {
		return "true"
	}
	return strings.Join(conds, " AND ")
}

// filtered says whether q has a condition of its own.
func (q *Query) filtered() bool { return len(q.conds) > 0 }
