package list

// Plan is how a list finds its total and reads a numbered page: a filter
// picks it from its own typed fields (e.g. EnrolmentFilter.plan), never
// from the text of its SQL.
type Plan struct {
	Count Count
	Read  Read
}

// Count is how a list's total is found.
type Count int

const (
	// CountMatches counts the matches (on the query's source when it has one).
	CountMatches Count = iota
	// CountAnchored is the unfiltered list's total: the rank of its newest
	// valid anchor plus the rows from that anchor on (anchors.go). A deep
	// page then seeks from the anchor at or below it.
	CountAnchored
	// CountAnchoredExcept is CountAnchored less the rows of the query's
	// Except condition, counted on a partial index (users active=true: all
	// users less the inactive ones).
	CountAnchoredExcept
)

// Read is how a numbered page's rows are found. Every read skips from
// whichever end of the list is nearer to the page, so the last page skips
// nothing; a cursor page reads the list's own form from its cursor.
type Read int

const (
	// ReadInOrder reads the page in list order on the index that the
	// filter leaves in that order (the list's key index, or a filter's
	// (column, key) index), in the spec's form: the rows themselves, or
	// their ids first (Spec.IDsFirst).
	ReadInOrder Read = iota
	// ReadIDs reads the page's ids first on an index alone, then only
	// their rows, whatever the spec's form: a deep page skips index
	// entries rather than rows (users active=true or false on their
	// partial indexes).
	ReadIDs
	// ReadSorted reads the keys of every match from the filter's index
	// (one not in list order, such as (updated_at, id)) and sorts them,
	// then reads the page's rows. In list order PostgreSQL would walk the
	// key index testing every row until it found a page of matches: page 1
	// of the newest 1% of 1M enrolments read 990,000 rows (446 ms). The
	// count reads the matches anyway, so sorting them costs the same order
	// of work.
	ReadSorted
	// ReadMerged reads, for each value of one column (MergeOn), that
	// value's first keys in list order on its (column, key) index, at most
	// skip+size of them, and merges them: page 1 of two topics of 15,000
	// enrolments each reads 200 index entries (0.2 ms, against 5 ms to
	// sort all their ids and 330 ms to walk the id index when their
	// enrolments are recent). A cursor page seeks each value from the
	// cursor.
	ReadMerged
)
