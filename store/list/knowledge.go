package list

import "strings"

// Knowledge is the external knowledge list (GET
// /papi/external_knowledges): every record, oldest first. Its indexes: the
// primary key for the unfiltered list and its anchors; (user_id, id);
// (updated_at, id).
var Knowledge = Spec{Name: "external knowledge", Table: "external_knowledges", Alias: "k", IDsFirst: true,
	Anchors: &Anchors{Table: "knowledge_rank_anchors", Dirty: "knowledge_rank_dirty"}}

// KnowledgeFilter narrows the external knowledge list. Zero values filter nothing.
type KnowledgeFilter struct {
	// UpdatedFilter bounds updated_at.
	UpdatedFilter
	// UserName keeps the records of that user (any letter case); a name of
	// no user keeps none.
	UserName string
}

// Query is f as a query of Knowledge: a user's records in order on
// (user_id, id); updated_at alone sorted; unfiltered from the anchors.
func (f KnowledgeFilter) Query() *Query {
	name := strings.TrimSpace(f.UserName)
	var q *Query
	switch {
	case name != "":
		q = NewQuery(Plan{})
	case f.any():
		q = NewQuery(Plan{Read: ReadSorted})
	default:
		q = NewQuery(Plan{Count: CountAnchored})
	}
	f.addTo(q, "k")
	if name != "" {
		q.Where("k.user_id = (SELECT id FROM users WHERE user_name = " + q.Arg(strings.ToLower(name)) + ")")
	}
	return q
}
