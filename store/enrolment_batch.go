package store

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
)

// codeSet applies enrolment codes set-based (docs/decisions.md, "Users
// batch save"): a users batch's, and POST /topic_assignments' as a batch
// of one; topic codes and pathway codes alike. Everything the batch's codes can read is loaded, locked, with a
// fixed number of queries: the current topic enrolments of the (user,
// topic) pairs the codes name and of the topics of the pathways the codes
// name or the users hold, the users' current pathway enrolments, and those
// pathways' topics. Each group is then applied in memory, in order, by the
// enrolment rules (applyTopic here, the pathway rules in
// enrolment_batch_pathways.go), so a later group or a later row sees what
// the earlier ones left. The new enrolments then take their ids
// from the sequences in creation order (as INSERTs one by one would) and
// everything is written with one statement per kind: a fixed number of
// statements whatever the number of users and codes.
type codeSet struct {
	now              time.Time
	topics, pathways enrolmentSet
	// pathwayTopics are the topics of every pathway the batch may read,
	// in position order; certifyDays the pathways' certify days.
	pathwayTopics map[int64][]pathwayTopic
	certifyDays   map[int64]*int
	// userPathways are each user's pathway enrolments the batch knows,
	// current or removed by it, in the order it met them.
	userPathways map[int64][]*plannedEnrolment
}

// enrolmentSet are the planned enrolments of one kind (topic or pathway).
type enrolmentSet struct {
	// current are the current enrolments by user and topic (or pathway).
	current map[[2]int64]*plannedEnrolment
	// all are every enrolment the batch touched: loaded ones first, then
	// the new ones in creation order.
	all []*plannedEnrolment
	// created counts the new enrolments; the n-th has temporary id -n, and
	// ids[n-1] once written.
	created int64
	ids     []int64
}

// plannedEnrolment is a topic or pathway enrolment as the batch leaves it.
type plannedEnrolment struct {
	enrolmentState
	// targetID is the topic (or pathway) enrolled in.
	userID, targetID       int64
	recertificationAllowed bool
	// relationship and progress are a topic enrolment's relationship
	// (direct or pathway) and progress_minutes.
	relationship          string
	progress              int
	isNew, removed, dirty bool
	skills, loadedSkills  []int64 // sorted
}

// pathwayTopic is a topic of a pathway, with what the pathway's rules read.
type pathwayTopic struct {
	PathwayID   int64 `db:"pathway_id"`
	TopicID     int64 `db:"topic_id"`
	Mandatory   bool  `db:"mandatory"`
	CertifyDays *int  `db:"certify_days"` // the pathway's
	// Recert is the topic's recertification_allowed.
	Recert bool `db:"recertification_allowed"`
}

// order sorts e among enrolments of its kind as their ids will: the loaded
// ones by id, then the new ones in creation order.
func (e *plannedEnrolment) order() int64 {
	if e.ID > 0 {
		return e.ID
	}
	return math.MaxInt64/2 - e.ID
}

// sortByID sorts es as their ids will be sorted.
func sortByID(es []*plannedEnrolment) {
	slices.SortFunc(es, func(a, b *plannedEnrolment) int { return cmp.Compare(a.order(), b.order()) })
}

// create adds a new enrolment of user in target to s and returns it.
func (s *enrolmentSet) create(user, target int64) *plannedEnrolment {
	s.created++
	e := &plannedEnrolment{userID: user, targetID: target, isNew: true, dirty: true}
	e.ID = -s.created
	s.current[[2]int64{user, target}] = e
	s.all = append(s.all, e)
	return e
}

// remove removes e, a current enrolment.
func (s *enrolmentSet) remove(e *plannedEnrolment) {
	e.removed, e.dirty = true, true
	delete(s.current, [2]int64{e.userID, e.targetID})
}

// loaded adds an enrolment loaded from the database to s.
func (s *enrolmentSet) loaded(e *plannedEnrolment) {
	e.loadedSkills = e.skills
	s.current[[2]int64{e.userID, e.targetID}] = e
	s.all = append(s.all, e)
}

// namesPathways reports whether a code of rows names a pathway or a topic
// of a pathway: then the pathways are loaded too.
func namesPathways(cat enrolmentCatalog, rows []learngate.BatchRow) bool {
	for _, row := range rows {
		for _, r := range row.Enrolments {
			t, ok := cat.targets[strings.ToLower(r.Code)]
			if ok && (t.PathwayID != nil || t.InPathway) {
				return true
			}
		}
	}
	return false
}

// codePairs are what the saved rows' codes name: the (user, topic) and
// (user, pathway) pairs of the users that existed before the batch (a user
// it created holds no enrolment yet, so nothing of theirs is looked up) and
// every pathway named.
type codePairs struct {
	// users[i] names topics[i], pathwayUsers[i] pathways[i].
	users, topics, pathwayUsers, pathways pq.Int64Array
	// userIDs are the users of any pair; named every pathway named.
	userIDs, named pq.Int64Array
	seenT, seenP   map[[2]int64]bool
	seen           map[int64]bool
}

// newCodePairs returns empty pairs.
func newCodePairs() *codePairs {
	return &codePairs{seenT: map[[2]int64]bool{}, seenP: map[[2]int64]bool{}, seen: map[int64]bool{}}
}

// addUser adds user, whose every current pathway enrolment is to be
// loaded (with the pathways' topic enrolments), though no code names any.
func (p *codePairs) addUser(user int64) {
	if !p.seen[user] {
		p.seen[user] = true
		p.userIDs = append(p.userIDs, user)
	}
}

// add adds what a code of user names; fresh: the batch created the user.
func (p *codePairs) add(user int64, fresh bool, t enrolmentTarget) {
	if t.PathwayID != nil && !p.seen[-*t.PathwayID] {
		p.seen[-*t.PathwayID] = true // pathway ids as negative keys
		p.named = append(p.named, *t.PathwayID)
	}
	if fresh {
		return
	}
	p.addUser(user)
	switch {
	case t.TopicID != nil && !p.seenT[[2]int64{user, *t.TopicID}]:
		p.seenT[[2]int64{user, *t.TopicID}] = true
		p.users, p.topics = append(p.users, user), append(p.topics, *t.TopicID)
	case t.PathwayID != nil && !p.seenP[[2]int64{user, *t.PathwayID}]:
		p.seenP[[2]int64{user, *t.PathwayID}] = true
		p.pathwayUsers, p.pathways = append(p.pathwayUsers, user), append(p.pathways, *t.PathwayID)
	}
}

// loadCodeSet loads, locked, what the codes of pairs can read (see
// codeSet): in at most one query when no code names a pathway or a topic
// of one (withPathways false), in at most three otherwise.
func loadCodeSet(ctx context.Context, tx *sqlx.Tx, pairs *codePairs, withPathways bool, now time.Time) (*codeSet, error) {
	set := &codeSet{now: now.UTC().Truncate(time.Microsecond),
		topics:        enrolmentSet{current: map[[2]int64]*plannedEnrolment{}},
		pathways:      enrolmentSet{current: map[[2]int64]*plannedEnrolment{}},
		pathwayTopics: map[int64][]pathwayTopic{}, certifyDays: map[int64]*int{},
		userPathways: map[int64][]*plannedEnrolment{}}
	users, topics := pairs.users, pairs.topics
	if withPathways {
		if err := set.loadPathways(ctx, tx, pairs); err != nil {
			return nil, err
		}
		users, topics = slices.Clone(users), slices.Clone(topics)
		seen := maps.Clone(pairs.seenT)
		addTopics := func(user, pathway int64) {
			for _, pt := range set.pathwayTopics[pathway] {
				if k := [2]int64{user, pt.TopicID}; !seen[k] {
					seen[k] = true
					users, topics = append(users, user), append(topics, pt.TopicID)
				}
			}
		}
		for i, u := range pairs.pathwayUsers {
			addTopics(u, pairs.pathways[i])
		}
		for _, e := range set.pathways.all {
			addTopics(e.userID, e.targetID)
		}
	}
	if len(users) == 0 {
		return set, nil
	}
	var rows []struct {
		enrolmentState
		UserID       int64         `db:"user_id"`
		TopicID      int64         `db:"topic_id"`
		Recert       bool          `db:"recertification_allowed"`
		Relationship string        `db:"relationship"`
		Progress     int           `db:"progress_minutes"`
		Skills       pq.Int64Array `db:"skills"`
	}
	err := tx.SelectContext(ctx, &rows, `WITH cur AS (
			SELECT e.id, e.user_id, e.topic_id, e.status, e.due_date, e.completed_topic_at AS conquered, e.certified_date,
				e.recertification_allowed, e.relationship, e.progress_minutes
			FROM topic_enrolments e
			WHERE (e.user_id, e.topic_id) IN (SELECT * FROM unnest($1::bigint[], $2::bigint[])) AND e.removed_at IS NULL
			FOR UPDATE)
		SELECT cur.*, ARRAY(SELECT s.skill_id FROM topic_enrolment_skills s WHERE s.enrolment_id = cur.id ORDER BY s.skill_id) AS skills
		FROM cur ORDER BY cur.id`, users, topics)
	if err != nil {
		return nil, fmt.Errorf("load current topic enrolments: %w", err)
	}
	for _, r := range rows {
		set.topics.loaded(&plannedEnrolment{enrolmentState: r.enrolmentState, userID: r.UserID, targetID: r.TopicID,
			recertificationAllowed: r.Recert, relationship: r.Relationship, progress: r.Progress, skills: []int64(r.Skills)})
	}
	return set, nil
}

// apply is a groupApplier: applyTopic or applyPathway on the planned
// enrolments.
func (set *codeSet) apply(ch enrolmentChange, own *changes) (enrolmentRef, string, error) {
	if ch.target.PathwayID != nil {
		return set.applyPathway(ch, own)
	}
	return set.applyTopic(ch, own)
}

// applyTopic applies the change to the user's enrolment in a topic and
// adds what it changed to own. It returns a problem, and changes nothing,
// for UPDATE or UNENROL without a current enrolment. UNENROL's change is
// topic_enrolment.updated, with the removed enrolment. A status change of
// a topic in a pathway moves the user's pathway statuses.
func (set *codeSet) applyTopic(ch enrolmentChange, own *changes) (enrolmentRef, string, error) {
	key := [2]int64{ch.user.ID, *ch.target.TopicID}
	e, found := set.topics.current[key]
	var cur enrolmentState
	if found {
		cur = e.enrolmentState
	}
	if !found && (ch.req.Action == learngate.ActionUpdate || ch.req.Action == learngate.ActionUnenrol) {
		return enrolmentRef{}, ch.missing(), nil
	}
	if ch.req.Action == learngate.ActionUnenrol {
		set.topics.remove(e)
		own.note(kindTopicEnrolment, e.ID, EventTopicEnrolmentUpdated)
		return enrolmentRef{ID: e.ID}, "", nil
	}
	next := ch.next(cur, found)
	written := !found || !next.equal(cur)
	if !found {
		e = set.topics.create(ch.user.ID, *ch.target.TopicID)
		e.relationship, e.recertificationAllowed = "direct", ch.target.RecertificationAllowed
	}
	next.ID = e.ID
	if written {
		e.enrolmentState, e.dirty = next, true
	}
	skillsChanged := e.setSkills(ch)
	ch.noteWrite(own, topicEnrolmentEvents, cur, next, found, written, skillsChanged)
	if next.Status != cur.Status && next.Status != learngate.StatusUnexplored && ch.target.InPathway {
		set.updatePathwayStatuses(ch.user.ID, own)
	}
	return enrolmentRef{ID: e.ID}, "", nil
}

// setSkills gives e the skills of a COMPLETE or UPDATE that names them (a
// plain enrol takes none) and reports whether they changed.
func (e *plannedEnrolment) setSkills(ch enrolmentChange) bool {
	if ch.req.Action == learngate.ActionEnrol || ch.skillIDs == nil {
		return false
	}
	want := slices.Clone([]int64(ch.skillIDs))
	slices.Sort(want)
	if slices.Equal(want, e.skills) {
		return false
	}
	e.skills, e.dirty = want, true
	return true
}
