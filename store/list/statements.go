package list

import (
	"fmt"
	"strings"

	"learngate"
)

// CountStatement is the count of q's matches: on q's source when it has
// one, otherwise on the list's table.
func (s Spec) CountStatement(q *Query) Statement {
	if q.source != nil {
		return Statement{SQL: `SELECT count(*) FROM ` + q.source.from() + ` WHERE ` + q.source.Cond, Args: q.args}
	}
	return Statement{SQL: `SELECT count(*) FROM ` + s.from() + ` WHERE ` + q.where(s), Args: q.args}
}

// ExceptStatement counts the rows CountAnchoredExcept takes off the
// anchored total (q.Except's condition, which has no arguments).
func (s Spec) ExceptStatement(q *Query) Statement {
	return Statement{SQL: `SELECT count(*) FROM ` + s.from() + ` WHERE ` + q.except}
}

// from is the source's table in a FROM clause.
func (src Source) from() string {
	if src.Alias == "" || src.Alias == src.Table {
		return src.Table
	}
	return src.Table + " " + src.Alias
}

// form is the shape of the page statement that reads w of q: a cursor page
// reads the list's own form, except that a Merged read of the list's own
// table seeks each value from the cursor.
func (s Spec) form(q *Query, w Window) Read {
	form := q.Plan.Read
	if w.After != nil && !(form == ReadMerged && q.source == nil) {
		form = ReadInOrder
	}
	if form == ReadInOrder && s.IDsFirst {
		form = ReadIDs
	}
	return form
}

// PageStatement is the statement that reads window w of list s filtered by
// q, its rows selected by selectSQL (see Select). Its placeholders follow
// q's.
func (s Spec) PageStatement(selectSQL string, q *Query, w Window) Statement {
	b := &Query{args: append([]any(nil), q.args...)}
	form := s.form(q, w)
	src := Source{Table: s.Table, Alias: s.ref(), Keys: s.keys(), Cond: q.where(s)}
	if q.source != nil && w.After == nil && form != ReadInOrder {
		src = *q.source
	}
	fromTable := src.from()
	cond := src.Cond
	switch {
	case w.After != nil:
		op := " > "
		if s.desc() {
			op = " < "
		}
		cond += " AND " + tuple(src.Keys) + op + tuple(b.keyArgs(s, *w.After))
	case w.From != nil:
		cond += " AND " + tuple(src.Keys) + " >= " + tuple(b.keyArgs(s, *w.From))
	}
	readDesc := s.desc() != w.Backward
	limit, skip := b.Arg(w.Size), b.Arg(w.Skip)
	listOrder := orderBy(s.keys(), s.desc())
	id := src.Keys[len(src.Keys)-1]
	var sql string
	switch form {
	case ReadInOrder:
		sql = fmt.Sprintf(`%s WHERE %s ORDER BY %s LIMIT %s OFFSET %s`, selectSQL, cond, orderBy(src.Keys, readDesc), limit, skip)
	case ReadIDs:
		sql = fmt.Sprintf(`%s WHERE %s.id IN (SELECT %s FROM %s WHERE %s ORDER BY %s LIMIT %s OFFSET %s) ORDER BY %s`,
			selectSQL, s.ref(), id, fromTable, cond, orderBy(src.Keys, readDesc), limit, skip, listOrder)
	case ReadSorted:
		cols := unqualified(src.Keys)
		sql = fmt.Sprintf(`WITH matches AS MATERIALIZED (SELECT %s FROM %s WHERE %s)
			%s WHERE %s.id IN (SELECT %s FROM matches ORDER BY %s LIMIT %s OFFSET %s) ORDER BY %s`,
			strings.Join(src.Keys, ", "), fromTable, cond, selectSQL, s.ref(), cols[len(cols)-1],
			orderBy(cols, readDesc), limit, skip, listOrder)
	case ReadMerged:
		m := qualified("m", unqualified(src.Keys))
		sql = fmt.Sprintf(`%s WHERE %s.id IN (SELECT %s FROM unnest(%s::%s[]) AS w (value) CROSS JOIN LATERAL (
				SELECT %s FROM %s WHERE %s AND %s = w.value ORDER BY %s LIMIT %s::bigint + %s::bigint) m
			ORDER BY %s LIMIT %s OFFSET %s) ORDER BY %s`,
			selectSQL, s.ref(), m[len(m)-1], q.merge.values, q.merge.elem,
			strings.Join(src.Keys, ", "), fromTable, cond, q.merge.column, orderBy(src.Keys, readDesc), limit, skip,
			orderBy(m, readDesc), limit, skip, listOrder)
	}
	return Statement{SQL: sql, Args: b.args}
}

// keyArgs adds k's values, as s's key holds them, and returns their
// placeholders.
func (q *Query) keyArgs(s Spec, k learngate.Key) []string {
	if s.Order == Newest {
		return []string{q.Arg(k.CreatedAt), q.Arg(k.ID)}
	}
	return []string{q.Arg(k.ID)}
}
