package list

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lib/pq"
)

// The topic and pathway enrolment lists (GET /papi/topic_assignments,
// /papi/pathway_assignments and their by_topic, by_pathway, by_user and
// user/{user_name} forms): current enrolments, oldest first. Their indexes:
// *_listed (id, current rows) for the unfiltered list and its anchors;
// (topic_id, id) or (pathway_id, id); (user_id, id); (updated_at, id).
var (
	// TopicEnrolments is the topic enrolment list.
	TopicEnrolments = Spec{Name: "topic enrolments", Table: "topic_enrolments", Alias: "e",
		Listed: "e.removed_at IS NULL", IDsFirst: true,
		Anchors: &Anchors{Table: "topic_enrolment_rank_anchors", Dirty: "topic_enrolment_rank_dirty"}}
	// PathwayEnrolments is the pathway enrolment list.
	PathwayEnrolments = Spec{Name: "pathway enrolments", Table: "pathway_enrolments", Alias: "e",
		Listed: "e.removed_at IS NULL", IDsFirst: true,
		Anchors: &Anchors{Table: "pathway_enrolment_rank_anchors", Dirty: "pathway_enrolment_rank_dirty"}}
)

// EnrolmentFilter narrows the topic and pathway enrolment lists
// (docs/decisions.md, "Lists and paging"). Zero values filter nothing; every filter given
// must match, so a filter naming no topic, pathway or user matches nothing.
type EnrolmentFilter struct {
	// TargetIDs are topic ids (topic_ids) or pathway ids (pathway_ids); nil: any.
	TargetIDs []int64
	// TargetID is topic_id or pathway_id.
	TargetID *int64
	// UserName matches ignoring case.
	UserName *string
	// UserID is the internal user id.
	UserID *int64
	// UpdatedFilter bounds updated_at.
	UpdatedFilter
}

// one says whether f narrows the list to one user or one target, whose
// (user_id, id) or (topic_id, id) index gives the matches in list order.
func (f EnrolmentFilter) one() bool {
	return f.TargetID != nil || len(f.TargetIDs) == 1 || f.UserName != nil || f.UserID != nil
}

// plan is f's plan: unfiltered, from the anchors; several targets and
// nothing else, merged per target; several targets or updated_at without
// one user or target, sorted; otherwise in order on the one's index.
func (f EnrolmentFilter) plan() Plan {
	switch {
	case !f.one() && f.TargetIDs == nil && !f.any():
		return Plan{Count: CountAnchored}
	case len(f.TargetIDs) > 1 && !f.one() && !f.any():
		return Plan{Read: ReadMerged}
	case !f.one() && (len(f.TargetIDs) > 1 || f.any()):
		return Plan{Read: ReadSorted}
	}
	return Plan{}
}

// Query is f as a query of the enrolment list s (TopicEnrolments: target
// column topic_id; PathwayEnrolments: pathway_id).
func (f EnrolmentFilter) Query(s Spec) *Query {
	target := "e.topic_id"
	if s.Table == PathwayEnrolments.Table {
		target = "e.pathway_id"
	}
	q := NewQuery(f.plan())
	switch {
	case len(f.TargetIDs) == 1: // as topic_id: an equality PostgreSQL estimates from its statistics
		q.Where(target + " = " + q.Arg(f.TargetIDs[0]))
	case f.TargetIDs != nil:
		ids := q.Arg(distinctIDs(f.TargetIDs))
		q.Where(target + " = ANY(" + ids + ")")
		if q.Plan.Read == ReadMerged {
			q.MergeOn(target, ids, "bigint")
		}
	}
	if f.TargetID != nil {
		q.Where(target + " = " + q.Arg(*f.TargetID))
	}
	if f.UserID != nil {
		q.Where("e.user_id = " + q.Arg(*f.UserID))
	}
	if f.UserName != nil {
		name := strings.ToLower(strings.TrimSpace(*f.UserName))
		if utf8.ValidString(name) && !strings.ContainsRune(name, 0) {
			q.Where("e.user_id = (SELECT id FROM users WHERE user_name = " + q.Arg(name) + ")")
		} else {
			q.Where("false") // no user has such a name
		}
	}
	f.addTo(q, "e")
	return q
}

// distinctIDs are ids without repeats, in their first order.
func distinctIDs(ids []int64) pq.Int64Array {
	out := make(pq.Int64Array, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
