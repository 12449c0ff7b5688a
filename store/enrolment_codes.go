package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/input"
)

// MaxEnrolmentCodes is the number of enrolment field groups a user input
// may carry: enrolment_code_1 .. enrolment_code_5.
const MaxEnrolmentCodes = 5

// codeField names r's field, enrolment_code_N.
func codeField(r learngate.EnrolmentRequest) string { return fmt.Sprintf("enrolment_code_%d", r.N) }

// EnrolmentProblem is one reason an enrolment field group was not applied.
type EnrolmentProblem struct {
	// Code is enrolment_code_N as sent ("" when missing).
	Code string
	// Message is a sentence naming the field and the value.
	Message string
}

// enrolmentRef addresses an enrolment an applied code left: a topic
// enrolment, or a pathway enrolment when Pathway is set.
type enrolmentRef struct {
	ID      int64
	Pathway bool
}

// enrolmentTarget is the topic or pathway an enrolment code names, with
// what enrolling needs of it.
type enrolmentTarget struct {
	Code                   string `db:"code"`
	TopicID                *int64 `db:"topic_id"`
	PathwayID              *int64 `db:"pathway_id"`
	CertifyDays            *int   `db:"certify_days"`
	RecertificationAllowed bool   `db:"recertification_allowed"`
	// InPathway: the topic belongs to a pathway, whose status may follow it.
	InPathway bool `db:"in_pathway"`
}

// enrolmentUser is the user whose codes are being applied.
type enrolmentUser struct {
	ID   int64
	Name string
}

// groupApplier applies one checked enrolment field group, adding what it
// changed to own; a non-empty problem means it wrote nothing.
type groupApplier func(ch enrolmentChange, own *changes) (ref enrolmentRef, problem string, err error)

// applyGroups checks the user's field groups in order and has apply (a
// codeSet's) apply each one without a problem: the one implementation of
// the enrolment rules behind POST /topic_assignments (a batch of one) and
// a users batch's codes. Each group is checked completely before it
// changes anything, so a group with a problem changes nothing and the
// others still apply; the caller decides whether problems undo the rest
// (POST /topic_assignments) or not (batch save). It returns the enrolment
// each applied group left (the removed one for UNENROL; new ones by
// temporary id, see codeSet.numbered) and the problems, in group order,
// and adds to log the enrolments each applied group changed (see
// enrolmentEvents). Only database failures are returned as an error.
func applyGroups(cat enrolmentCatalog, user enrolmentUser, reqs []learngate.EnrolmentRequest, now time.Time, log *changes,
	apply groupApplier) ([]enrolmentRef, []EnrolmentProblem, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var applied []enrolmentRef
	var problems []EnrolmentProblem
	for _, r := range reqs {
		bad := append([]string(nil), r.Problems...)
		target, known := cat.targets[strings.ToLower(r.Code)]
		switch {
		case r.Code != "" && !known:
			bad = append(bad, fmt.Sprintf("Unknown enrolment code '%s' for '%s'", input.Quote(r.Code), codeField(r)))
		case r.Code == "" && len(bad) == 0:
			bad = append(bad, fmt.Sprintf("Missing parameter '%s'", codeField(r)))
		}
		if d := r.ConqueredDate; d != nil && !d.Day.IsZero() && d.Day.After(now) {
			bad = append(bad, fmt.Sprintf("Illegal value '%s' for '%s_conquered_date': a conquered date cannot be in the future",
				input.Quote(d.Raw), codeField(r)))
		}
		if len(bad) == 0 {
			ch := enrolmentChange{req: r, target: target, user: user, skillIDs: skillIDs(cat.skills, r.Skills), now: now}
			var own changes // this group's changes
			ref, problem, err := apply(ch, &own)
			if err != nil {
				return nil, nil, err
			}
			if problem == "" {
				applied = append(applied, ref)
				*log = append(*log, own...)
				continue
			}
			bad = append(bad, problem)
		}
		for _, msg := range bad {
			problems = append(problems, EnrolmentProblem{Code: r.Raw, Message: msg})
		}
	}
	return applied, problems, nil
}

// enrolmentCatalog is what a set of field groups names, looked up once for
// a request or a whole batch: the topics and pathways of their codes and
// the ids of their skills, by lower-cased code and name.
type enrolmentCatalog struct {
	targets map[string]enrolmentTarget
	skills  map[string]int64
}

// lookupEnrolmentCatalog looks up what reqs name, in at most two queries.
func lookupEnrolmentCatalog(ctx context.Context, tx *sqlx.Tx, reqs []learngate.EnrolmentRequest) (enrolmentCatalog, error) {
	targets, err := lookupEnrolmentCodes(ctx, tx, reqs)
	if err != nil {
		return enrolmentCatalog{}, err
	}
	skills, err := lookupSkillNames(ctx, tx, reqs)
	if err != nil {
		return enrolmentCatalog{}, err
	}
	return enrolmentCatalog{targets: targets, skills: skills}, nil
}

// lookupEnrolmentCodes maps the lower-cased codes of reqs that name a topic
// or pathway of the tenant to it, in one query.
func lookupEnrolmentCodes(ctx context.Context, tx *sqlx.Tx, reqs []learngate.EnrolmentRequest) (map[string]enrolmentTarget, error) {
	codes := make(pq.StringArray, 0, len(reqs))
	seen := map[string]bool{}
	for _, r := range reqs {
		if c := strings.ToLower(r.Code); c != "" && !seen[c] && storable(r.Code) {
			seen[c] = true
			codes = append(codes, c)
		}
	}
	found := map[string]enrolmentTarget{}
	if len(codes) == 0 {
		return found, nil
	}
	var rows []enrolmentTarget
	err := tx.SelectContext(ctx, &rows, `SELECT lower(c.code) AS code, c.topic_id, c.pathway_id,
			coalesce(t.certify_days, p.certify_days) AS certify_days,
			coalesce(t.recertification_allowed, p.recertification_allowed, false) AS recertification_allowed,
			EXISTS (SELECT 1 FROM pathway_topics pt WHERE pt.topic_id = c.topic_id) AS in_pathway
		FROM enrolment_codes c LEFT JOIN topics t ON t.id = c.topic_id LEFT JOIN pathways p ON p.id = c.pathway_id
		WHERE lower(c.code) = ANY($1)`, codes)
	if err != nil {
		return nil, fmt.Errorf("look up enrolment codes: %w", err)
	}
	for _, r := range rows {
		found[r.Code] = r
	}
	return found, nil
}

// lookupSkillNames maps the lower-cased skill names given with reqs that
// name a skill of the tenant to its id, in one query; unknown names are
// left out (they are ignored).
func lookupSkillNames(ctx context.Context, tx *sqlx.Tx, reqs []learngate.EnrolmentRequest) (map[string]int64, error) {
	var names pq.StringArray
	seen := map[string]bool{}
	for _, r := range reqs {
		for _, s := range r.Skills {
			if n := strings.ToLower(s); !seen[n] && storable(s) {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	ids := map[string]int64{}
	if len(names) == 0 {
		return ids, nil
	}
	var rows []struct {
		ID   int64  `db:"id"`
		Name string `db:"name"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT id, lower(name) AS name FROM skills WHERE lower(name) = ANY($1)`, names); err != nil {
		return nil, fmt.Errorf("look up skills: %w", err)
	}
	for _, r := range rows {
		ids[r.Name] = r.ID
	}
	return ids, nil
}

// storable reports whether PostgreSQL can hold s as text: valid UTF-8
// without NUL. A name that is not can name nothing, so lookups skip it
// rather than send it (an error would abort the whole transaction).
func storable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// skillIDs resolves names with known; nil when names is nil (not given).
func skillIDs(known map[string]int64, names []string) pq.Int64Array {
	if names == nil {
		return nil
	}
	ids := pq.Int64Array{}
	seen := map[int64]bool{}
	for _, n := range names {
		if id, ok := known[strings.ToLower(n)]; ok && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

// enrolmentChange is one enrolment field group about to be applied.
type enrolmentChange struct {
	req    learngate.EnrolmentRequest
	target enrolmentTarget
	user   enrolmentUser
	// skillIDs are the known skills of req.Skills; nil when not given.
	skillIDs pq.Int64Array
	now      time.Time
}

// missing is the problem of an UPDATE or UNENROL without a current enrolment.
func (ch enrolmentChange) missing() string {
	verb := "update"
	if ch.req.Action == learngate.ActionUnenrol {
		verb = "unenrol"
	}
	return fmt.Sprintf("Nothing to %s for '%s': user '%s' has no current enrolment for '%s'",
		verb, codeField(ch.req), ch.user.Name, input.Quote(ch.req.Code))
}

// given returns d's day when d holds one; nil for absent and empty values.
func given(d *learngate.EnrolmentDate) *time.Time {
	if d == nil || d.Day.IsZero() {
		return nil
	}
	day := d.Day
	return &day
}

// datesOf applies the dates of ch to an enrolment's due, conquered and
// certified dates and status, by the rules of COMPLETE and UPDATE, and
// returns the new ones.
func (ch enrolmentChange) datesOf(due, conquered, certified *time.Time, status string) (*time.Time, *time.Time, *time.Time, string) {
	r := ch.req
	update := r.Action == learngate.ActionUpdate
	if d := given(r.DueDate); d != nil {
		due = d
	} else if update && r.DueDate != nil {
		due = nil // "" clears with UPDATE
	}
	newConquest := r.Action == learngate.ActionComplete || given(r.ConqueredDate) != nil
	if newConquest {
		at := ch.now
		if d := given(r.ConqueredDate); d != nil {
			at = *d
		}
		conquered, status = &at, learngate.StatusConquered
	}
	switch {
	case given(r.CertifiedDate) != nil:
		certified = given(r.CertifiedDate)
	case update && r.CertifiedDate != nil:
		certified = nil
	case newConquest && ch.target.CertifyDays != nil:
		until := conquered.AddDate(0, 0, *ch.target.CertifyDays)
		certified = &until
	case newConquest:
		certified = nil
	}
	return due, conquered, certified, status
}
