package learngate

import "time"

// Key is a record's position in its list's order (docs/api.md, "Walking a
// list with links"): its id, and for users (ordered by created_at, then id)
// its created_at too. A cursor page starts after a Key.
type Key struct {
	CreatedAt time.Time
	ID        int64
}

// Keyed is a list record that knows its position in its list.
type Keyed interface {
	// ListKey is the record's position in its list's order.
	ListKey() Key
}
