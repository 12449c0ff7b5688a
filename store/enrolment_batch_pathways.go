package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
)

// The pathway rules of codeSet (docs/decisions.md, "Enrolments"): a
// pathway code enrolling in the pathway's topics, a due date reaching
// them, UNENROL removing the untouched ones, and pathway statuses
// following their topics.

// loadPathways loads, locked, the current pathway enrolments of the users
// of pairs (every pathway of theirs: a topic code moves any of them) with
// their given skills, then the topics of those pathways and of the
// pathways pairs name: at most two queries.
func (set *codeSet) loadPathways(ctx context.Context, tx *sqlx.Tx, pairs *codePairs) error {
	pathways := append(pq.Int64Array{}, pairs.named...)
	if len(pairs.userIDs) > 0 {
		var err error
		if pathways, err = set.lockPathwayEnrolments(ctx, tx, pairs.userIDs, pathways); err != nil {
			return err
		}
	}
	if len(pathways) == 0 {
		return nil
	}
	var topics []pathwayTopic
	err := tx.SelectContext(ctx, &topics, `SELECT pt.pathway_id, pt.topic_id, pt.mandatory, p.certify_days, t.recertification_allowed
		FROM pathway_topics pt JOIN pathways p ON p.id = pt.pathway_id JOIN topics t ON t.id = pt.topic_id
		WHERE pt.pathway_id = ANY($1)
		ORDER BY pt.pathway_id, pt.position`, pathways)
	if err != nil {
		return fmt.Errorf("load the topics of pathways: %w", err)
	}
	for _, pt := range topics {
		set.pathwayTopics[pt.PathwayID] = append(set.pathwayTopics[pt.PathwayID], pt)
		set.certifyDays[pt.PathwayID] = pt.CertifyDays
	}
	return nil
}

// lockPathwayEnrolments loads, locked, the current pathway enrolments of
// users with their given skills and returns pathways with theirs added.
func (set *codeSet) lockPathwayEnrolments(ctx context.Context, tx *sqlx.Tx, users, pathways pq.Int64Array) (pq.Int64Array, error) {
	var rows []struct {
		enrolmentState
		UserID    int64         `db:"user_id"`
		PathwayID int64         `db:"pathway_id"`
		Recert    bool          `db:"recertification_allowed"`
		Skills    pq.Int64Array `db:"skills"`
	}
	err := tx.SelectContext(ctx, &rows, `WITH cur AS (
			SELECT e.id, e.user_id, e.pathway_id, e.status, e.due_date, e.conquered_at AS conquered, e.certified_date,
				e.recertification_allowed
			FROM pathway_enrolments e
			WHERE e.user_id = ANY($1) AND e.removed_at IS NULL
			FOR UPDATE)
		SELECT cur.*, ARRAY(SELECT s.skill_id FROM pathway_enrolment_skills s WHERE s.enrolment_id = cur.id ORDER BY s.skill_id) AS skills
		FROM cur ORDER BY cur.id`, users)
	if err != nil {
		return nil, fmt.Errorf("load current pathway enrolments: %w", err)
	}
	for _, r := range rows {
		e := &plannedEnrolment{enrolmentState: r.enrolmentState, userID: r.UserID, targetID: r.PathwayID,
			recertificationAllowed: r.Recert, skills: []int64(r.Skills)}
		set.pathways.loaded(e)
		set.userPathways[r.UserID] = append(set.userPathways[r.UserID], e)
		pathways = append(pathways, r.PathwayID)
	}
	return pathways, nil
}

// applyPathway applies the change to the user's enrolment in a pathway and
// adds what it changed to own. ENROL and COMPLETE also enrol the user in
// each of the pathway's topics without a current enrolment (relationship
// pathway, due when the code gives a due date); the pathway's status then
// follows its topics. UPDATE with a due date gives it to the topic
// enrolments held through the pathway too. UNENROL: see unenrolPathway.
// Like applyTopic, a problem for UPDATE or UNENROL without a current
// enrolment.
func (set *codeSet) applyPathway(ch enrolmentChange, own *changes) (enrolmentRef, string, error) {
	user, pathway := ch.user.ID, *ch.target.PathwayID
	e, found := set.pathways.current[[2]int64{user, pathway}]
	var cur enrolmentState
	if found {
		cur = e.enrolmentState
	}
	if !found && (ch.req.Action == learngate.ActionUpdate || ch.req.Action == learngate.ActionUnenrol) {
		return enrolmentRef{}, ch.missing(), nil
	}
	if ch.req.Action == learngate.ActionUnenrol {
		set.unenrolPathway(e, own)
		return enrolmentRef{ID: e.ID, Pathway: true}, "", nil
	}
	next := ch.next(cur, found)
	written := !found || !next.equal(cur)
	if !found {
		e = set.pathways.create(user, pathway)
		e.recertificationAllowed = ch.target.RecertificationAllowed
		set.userPathways[user] = append(set.userPathways[user], e)
	}
	next.ID = e.ID
	if written {
		e.enrolmentState, e.dirty = next, true
	}
	skillsChanged := e.setSkills(ch)
	ch.noteWrite(own, pathwayEnrolmentEvents, cur, next, found, written, skillsChanged)
	if ch.req.Action == learngate.ActionUpdate && ch.req.DueDate != nil {
		set.dueDateToTopics(user, pathway, next, own)
	}
	if ch.req.Action == learngate.ActionEnrol || ch.req.Action == learngate.ActionComplete {
		for _, pt := range set.pathwayTopics[pathway] { // in position order: the order of their ids
			if _, held := set.topics.current[[2]int64{user, pt.TopicID}]; held {
				continue
			}
			te := set.topics.create(user, pt.TopicID)
			te.relationship, te.recertificationAllowed = "pathway", pt.Recert
			te.Status, te.DueDate = learngate.StatusUnexplored, given(ch.req.DueDate)
			own.note(kindTopicEnrolment, te.ID, EventTopicEnrolmentCreated)
		}
		set.updatePathwayStatuses(user, own)
	}
	return enrolmentRef{ID: e.ID, Pathway: true}, "", nil
}

// dueDateToTopics gives pe's due date to the user's current topic
// enrolments held through the pathway (relationship pathway, a topic of
// the pathway), each one changed noted as updated. Direct enrolments keep
// their own due date.
func (set *codeSet) dueDateToTopics(user, pathway int64, pe enrolmentState, own *changes) {
	var changed []*plannedEnrolment
	for _, pt := range set.pathwayTopics[pathway] {
		te, ok := set.topics.current[[2]int64{user, pt.TopicID}]
		if ok && te.relationship == "pathway" && !sameTime(te.DueDate, pe.DueDate) {
			te.DueDate, te.dirty = pe.DueDate, true
			changed = append(changed, te)
		}
	}
	sortByID(changed)
	for _, te := range changed {
		own.note(kindTopicEnrolment, te.ID, EventTopicEnrolmentUpdated)
	}
}

// unenrolPathway removes pe, and the topic enrolments it brought that were
// never started and that no other current pathway of the user holds; each
// removed one is noted as updated.
func (set *codeSet) unenrolPathway(pe *plannedEnrolment, own *changes) {
	set.pathways.remove(pe)
	own.note(kindPathwayEnrolment, pe.ID, EventPathwayEnrolmentUpdated)
	var removed []*plannedEnrolment
	for _, pt := range set.pathwayTopics[pe.targetID] {
		te, ok := set.topics.current[[2]int64{pe.userID, pt.TopicID}]
		if ok && te.relationship == "pathway" && te.Status == learngate.StatusUnexplored && te.progress == 0 &&
			!set.heldByPathway(pe.userID, pt.TopicID) {
			removed = append(removed, te)
		}
	}
	sortByID(removed)
	for _, te := range removed {
		set.topics.remove(te)
		own.note(kindTopicEnrolment, te.ID, EventTopicEnrolmentUpdated)
	}
}

// heldByPathway reports whether a current pathway enrolment of user holds
// topic.
func (set *codeSet) heldByPathway(user, topic int64) bool {
	for _, pe := range set.userPathways[user] {
		if pe.removed {
			continue
		}
		for _, pt := range set.pathwayTopics[pe.targetID] {
			if pt.TopicID == topic {
				return true
			}
		}
	}
	return false
}

// updatePathwayStatuses moves the user's current pathway enrolments that
// are not Conquered forward to follow their topics (see moveStatus) and
// adds each one it moved to own, in id order: conquered when it became
// Conquered, else updated. A code's change and a progress report
// (RecordProgress) both move them here.
func (set *codeSet) updatePathwayStatuses(user int64, own *changes) {
	var moved []*plannedEnrolment
	for _, pe := range set.userPathways[user] {
		if pe.removed || pe.Status == learngate.StatusConquered {
			continue
		}
		if set.moveStatus(pe) {
			moved = append(moved, pe)
		}
	}
	sortByID(moved)
	for _, pe := range moved {
		typ := EventPathwayEnrolmentUpdated
		if pe.Status == learngate.StatusConquered {
			typ = EventPathwayEnrolmentConquered
		}
		own.note(kindPathwayEnrolment, pe.ID, typ)
	}
}

// moveStatus gives pe (current, not Conquered) the status its topics call
// for and reports whether that moved it: Conquered when every required
// topic (the mandatory ones, or all when none is) has a conquered current
// enrolment, conquered at the last of their dates (a pathway waiting for
// recertification only by a later conquest); Exploring from Pre-enrolled
// or Unexplored once any topic is past Unexplored. A pathway without
// topics never moves.
func (set *codeSet) moveStatus(pe *plannedEnrolment) bool {
	topics := set.pathwayTopics[pe.targetID]
	if len(topics) == 0 {
		return false
	}
	anyMandatory := false
	for _, pt := range topics {
		anyMandatory = anyMandatory || pt.Mandatory
	}
	started, done := false, true
	var doneAt *enrolmentState // the required enrolment conquered last
	for _, pt := range topics {
		te := set.topics.current[[2]int64{pe.userID, pt.TopicID}]
		if te != nil && te.Status != learngate.StatusUnexplored {
			started = true
		}
		if !pt.Mandatory && anyMandatory {
			continue
		}
		if te == nil || te.Status != learngate.StatusConquered {
			done = false
		}
		if te != nil && te.Conquered != nil && (doneAt == nil || te.Conquered.After(*doneAt.Conquered)) {
			doneAt = &te.enrolmentState
		}
	}
	status := pe.Status
	switch {
	case done && (pe.Status != learngate.StatusRecertify ||
		(doneAt != nil && pe.Conquered != nil && doneAt.Conquered.After(*pe.Conquered))):
		status = learngate.StatusConquered
	case started && (pe.Status == "Pre-enrolled" || pe.Status == learngate.StatusUnexplored):
		status = learngate.StatusExploring
	}
	if status == pe.Status {
		return false
	}
	pe.Status, pe.dirty = status, true
	if status == learngate.StatusConquered {
		pe.Conquered, pe.CertifiedDate = nil, nil
		if doneAt != nil {
			at := *doneAt.Conquered
			pe.Conquered = &at
			if days := set.certifyDays[pe.targetID]; days != nil {
				// The database runs in UTC: adding days there and here agree.
				until := at.UTC().AddDate(0, 0, *days)
				pe.CertifiedDate = &until
			}
		}
	}
	return true
}
