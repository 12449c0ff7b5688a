package list

import "strings"

// Order is a list's order, by its key.
type Order int

const (
	// Oldest is id ascending.
	Oldest Order = iota
	// NewestByID is id descending.
	NewestByID
	// Newest is created_at descending, then id descending (the users list).
	Newest
)

// Spec declares one list: its table (and the alias its conditions and the
// store's SELECT use), its order, the condition of the rows its
// unfiltered form shows, its page's form, and its rank anchors. Every
// name in it is a constant of this package, never input.
type Spec struct {
	// Name names the list in errors.
	Name string
	// Table and Alias: the list's table and the alias every condition uses
	// ("" for the table's own name).
	Table, Alias string
	// Order is the list's order.
	Order Order
	// Listed is the condition of the rows the list shows ("": all).
	Listed string
	// IDsFirst: a page reads its ids on an index first, then their rows
	// (the lists whose SELECT joins other tables); otherwise the rows in
	// order.
	IDsFirst bool
	// Anchors are the list's rank anchors; nil when it has none.
	Anchors *Anchors
}

// ref is how the list's conditions name its table.
func (s Spec) ref() string {
	if s.Alias == "" {
		return s.Table
	}
	return s.Alias
}

// from is the list's table in a FROM clause.
func (s Spec) from() string {
	if s.Alias == "" || s.Alias == s.Table {
		return s.Table
	}
	return s.Table + " " + s.Alias
}

// keyColumns are the columns of the list's key, unqualified, in key order.
func (s Spec) keyColumns() []string {
	if s.Order == Newest {
		return []string{"created_at", "id"}
	}
	return []string{"id"}
}

// keys are the key's columns qualified with the list's alias.
func (s Spec) keys() []string { return qualified(s.ref(), s.keyColumns()) }

// desc says whether the list runs from the largest key down.
func (s Spec) desc() bool { return s.Order != Oldest }

// qualified is cols, each prefixed with alias.
func qualified(alias string, cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = alias + "." + c
	}
	return out
}

// unqualified is cols without their aliases.
func unqualified(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c[strings.LastIndexByte(c, '.')+1:]
	}
	return out
}

// orderBy is an ORDER BY list of cols, each descending when desc.
func orderBy(cols []string, desc bool) string {
	if !desc {
		return strings.Join(cols, ", ")
	}
	return strings.Join(cols, " DESC, ") + " DESC"
}

// tuple is cols as one row value, "(a, b)", or the one column.
func tuple(cols []string) string {
	if len(cols) == 1 {
		return cols[0]
	}
	return "(" + strings.Join(cols, ", ") + ")"
}
