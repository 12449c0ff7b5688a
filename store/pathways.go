package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/input"

	"learngate/store/list"
)

// pathwayFields are the pathways columns a request can change.
type pathwayFields struct {
	Title                  string `db:"title"`
	ExternalID             string `db:"external_id"`
	ShowCertificate        bool   `db:"show_certificate"`
	RecertificationAllowed bool   `db:"recertification_allowed"`
	CertifyDays            *int   `db:"certify_days"`
	Ordered                bool   `db:"ordered"`
}

// equal compares f and g by value (certify_days by its number).
func (f pathwayFields) equal(g pathwayFields) bool {
	fd, gd := f.CertifyDays, g.CertifyDays
	f.CertifyDays, g.CertifyDays = nil, nil
	return f == g && sameDays(fd, gd)
}

// pathwayRow is a pathways row with its enrolment code.
type pathwayRow struct {
	ID int64 `db:"id"`
	pathwayFields
	EnrolmentCode string    `db:"enrolment_code"`
	CreatedAt     time.Time `db:"created_at"`
	UpdatedAt     time.Time `db:"updated_at"`
}

const pathwaySelect = `SELECT p.id, p.title, p.external_id, p.show_certificate, p.recertification_allowed,
	p.certify_days, p.ordered, coalesce(c.code, '') AS enrolment_code, p.created_at, p.updated_at
	FROM pathways p LEFT JOIN enrolment_codes c ON c.pathway_id = p.id`

// applyPathwayInput sets the given fields of in on f.
func applyPathwayInput(in learngate.PathwayInput, f *pathwayFields) {
	setString(&f.Title, in.Title)
	setString(&f.ExternalID, in.ExternalID)
	setBool(&f.ShowCertificate, in.ShowCertificate)
	setBool(&f.RecertificationAllowed, in.RecertificationAllowed)
	setDays(&f.CertifyDays, in.CertifyDays)
	setBool(&f.Ordered, in.Ordered)
}

// pathwayTopicLink is a pathway_topics row's values; its position is its
// index in the pathway's list plus one.
type pathwayTopicLink struct {
	TopicID   int64 `db:"topic_id"`
	Mandatory bool  `db:"mandatory"`
}

// CreatePathway stores a new pathway with its topics, skills and enrolment
// code in one transaction and returns it; created_at and updated_at are
// now. in.Title must be given. Invalid for a topic id that is not one of
// the tenant's topics, a topic given twice, or an unknown skill;
// Unprocessable when the enrolment code is taken by another topic or
// pathway in any letter case.
func CreatePathway(ctx context.Context, tdb *TenantDB, in learngate.PathwayInput, now time.Time) (learngate.Pathway, error) {
	if in.Title == nil || *in.Title == "" {
		return learngate.Pathway{}, fmt.Errorf("create pathway: title is required")
	}
	var pathway learngate.Pathway
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		id, err := savePathway(ctx, tx, nil, in, now)
		if err != nil {
			return err
		}
		pathway, err = pathwayByID(ctx, tx, id)
		return err
	})
	return pathway, err
}

// UpdatePathway changes the given fields of pathway id and returns it;
// updated_at moves to now only when something changed. NotFound when there
// is no such pathway; other errors as CreatePathway.
func UpdatePathway(ctx context.Context, tdb *TenantDB, id int64, in learngate.PathwayInput, now time.Time) (learngate.Pathway, error) {
	var pathway learngate.Pathway
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var old pathwayRow
		if err := tx.GetContext(ctx, &old, pathwaySelect+` WHERE p.id = $1 FOR UPDATE OF p`, id); err != nil {
			return notFound(err)
		}
		if _, err := savePathway(ctx, tx, &old, in, now); err != nil {
			return err
		}
		var err error
		pathway, err = pathwayByID(ctx, tx, id)
		return err
	})
	return pathway, err
}

// GetPathway returns pathway id; NotFound when there is none.
func GetPathway(ctx context.Context, tdb *TenantDB, id int64) (learngate.Pathway, error) {
	var pathway learngate.Pathway
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		pathway, err = pathwayByID(ctx, tx, id)
		return err
	})
	return pathway, err
}

// ListPathways returns one page of the pathways that pass f, oldest first
// (id ascending), and how many pass it.
func ListPathways(ctx context.Context, tdb *TenantDB, f list.UpdatedFilter, page list.Page) ([]learngate.Pathway, int64, error) {
	pathways := []learngate.Pathway{}
	var total int64
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var rows []pathwayRow
		var err error
		total, err = list.Select(ctx, tx, &rows, list.Pathways, pathwaySelect, f.Query(list.Pathways), page)
		if err != nil {
			return fmt.Errorf("list pathways: %w", err)
		}
		pathways, err = loadPathways(ctx, tx, rows)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return pathways, total, nil
}

// savePathway applies in to old (nil for a new pathway) and writes what
// changed, stamping updated_at with now only then. It returns the
// pathway's id. Every check runs before the first write.
func savePathway(ctx context.Context, tx *sqlx.Tx, old *pathwayRow, in learngate.PathwayInput, now time.Time) (int64, error) {
	var row pathwayRow
	skills, topics := []int64{}, []pathwayTopicLink{}
	if old != nil {
		row = *old
		if err := tx.SelectContext(ctx, &skills, `SELECT skill_id FROM pathway_skills WHERE pathway_id = $1 ORDER BY skill_id`, old.ID); err != nil {
			return 0, fmt.Errorf("load pathway skills: %w", err)
		}
		if err := tx.SelectContext(ctx, &topics, `SELECT topic_id, mandatory FROM pathway_topics
			WHERE pathway_id = $1 ORDER BY position`, old.ID); err != nil {
			return 0, fmt.Errorf("load pathway topics: %w", err)
		}
	}
	nextTopics, nextSkills := topics, skills
	var err error
	if in.Topics != nil {
		if nextTopics, err = resolvePathwayTopics(ctx, tx, in.Topics); err != nil {
			return 0, err
		}
	}
	if in.Skills != nil {
		if nextSkills, err = resolveSkills(ctx, tx, in.Skills); err != nil {
			return 0, err
		}
	}
	code, codeChanged, err := checkCode(ctx, tx, pathwayCodes, row.ID, row.EnrolmentCode, in.EnrolmentCode, old == nil)
	if err != nil {
		return 0, err
	}
	applyPathwayInput(in, &row.pathwayFields)
	topicsChanged := old == nil || !slices.Equal(topics, nextTopics)
	skillsChanged := old == nil || !slices.Equal(skills, nextSkills)
	if old != nil && row.pathwayFields.equal(old.pathwayFields) && !topicsChanged && !skillsChanged && !codeChanged {
		return row.ID, nil
	}
	now = now.UTC().Truncate(time.Microsecond)
	f := row.pathwayFields
	if old == nil {
		err = tx.GetContext(ctx, &row.ID, `INSERT INTO pathways (title, external_id, show_certificate,
			recertification_allowed, certify_days, ordered, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id`,
			f.Title, f.ExternalID, f.ShowCertificate, f.RecertificationAllowed, f.CertifyDays, f.Ordered, now)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE pathways SET title = $1, external_id = $2, show_certificate = $3,
			recertification_allowed = $4, certify_days = $5, ordered = $6, updated_at = $7 WHERE id = $8`,
			f.Title, f.ExternalID, f.ShowCertificate, f.RecertificationAllowed, f.CertifyDays, f.Ordered, now, row.ID)
	}
	if err != nil {
		return 0, fmt.Errorf("save pathway: %w", err)
	}
	if topicsChanged {
		if err := writePathwayTopics(ctx, tx, row.ID, nextTopics); err != nil {
			return 0, err
		}
	}
	if skillsChanged {
		if err := writeSkills(ctx, tx, "pathway_skills", "pathway_id", row.ID, nextSkills); err != nil {
			return 0, err
		}
	}
	if codeChanged {
		if _, err := setEnrolmentCode(ctx, tx, pathwayCodes, row.ID, code); err != nil {
			return 0, err
		}
	}
	return row.ID, nil
}

// resolvePathwayTopics checks a request's topics, in order: Invalid for a
// topic given twice and for an id that is not one of the tenant's topics.
func resolvePathwayTopics(ctx context.Context, tx *sqlx.Tx, topics []learngate.PathwayTopicInput) ([]pathwayTopicLink, error) {
	ids := make(pq.Int64Array, len(topics))
	seen := make(map[int64]bool, len(topics))
	for i, t := range topics {
		if seen[t.TopicID] {
			return nil, learngate.Errorf(learngate.Invalid, "topic_id '%d' appears more than once in 'topics'", t.TopicID)
		}
		seen[t.TopicID] = true
		ids[i] = t.TopicID
	}
	var known []int64
	if err := tx.SelectContext(ctx, &known, `SELECT id FROM topics WHERE id = ANY($1)`, ids); err != nil {
		return nil, fmt.Errorf("look up topics: %w", err)
	}
	exists := make(map[int64]bool, len(known))
	for _, id := range known {
		exists[id] = true
	}
	links := make([]pathwayTopicLink, len(topics))
	for i, t := range topics {
		if !exists[t.TopicID] {
			return nil, input.IllegalValue("topics.topic_id", t.TopicID)
		}
		links[i] = pathwayTopicLink{TopicID: t.TopicID, Mandatory: t.Mandatory == nil || *t.Mandatory}
	}
	return links, nil
}

// writePathwayTopics replaces the topics of pathway id, at positions 1, 2, ...
func writePathwayTopics(ctx context.Context, tx *sqlx.Tx, id int64, topics []pathwayTopicLink) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM pathway_topics WHERE pathway_id = $1`, id); err != nil {
		return fmt.Errorf("clear pathway topics: %w", err)
	}
	if len(topics) == 0 {
		return nil
	}
	ids := make(pq.Int64Array, len(topics))
	mandatory := make(pq.BoolArray, len(topics))
	for i, t := range topics {
		ids[i], mandatory[i] = t.TopicID, t.Mandatory
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO pathway_topics (pathway_id, topic_id, mandatory, position)
		SELECT $1, t.topic_id, t.mandatory, t.position
		FROM unnest($2::bigint[], $3::boolean[]) WITH ORDINALITY AS t(topic_id, mandatory, position)`,
		id, ids, mandatory)
	if err != nil {
		return fmt.Errorf("write pathway topics: %w", err)
	}
	return nil
}

// pathwayByID loads pathway id; NotFound when there is none.
func pathwayByID(ctx context.Context, q sqlx.QueryerContext, id int64) (learngate.Pathway, error) {
	var row pathwayRow
	if err := sqlx.GetContext(ctx, q, &row, pathwaySelect+` WHERE p.id = $1`, id); err != nil {
		return learngate.Pathway{}, notFound(err)
	}
	pathways, err := loadPathways(ctx, q, []pathwayRow{row})
	if err != nil {
		return learngate.Pathway{}, err
	}
	return pathways[0], nil
}

// loadPathways completes rows into pathways, in rows' order, with two
// queries whatever their number: topics, then skills.
func loadPathways(ctx context.Context, q sqlx.QueryerContext, rows []pathwayRow) ([]learngate.Pathway, error) {
	pathways := make([]learngate.Pathway, len(rows))
	if len(rows) == 0 {
		return pathways, nil
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	var topics []struct {
		PathwayID int64 `db:"pathway_id"`
		learngate.PathwayTopic
	}
	err := sqlx.SelectContext(ctx, q, &topics, `SELECT pt.pathway_id, pt.topic_id, t.title, pt.mandatory, pt.position
		FROM pathway_topics pt JOIN topics t ON t.id = pt.topic_id
		WHERE pt.pathway_id = ANY($1) ORDER BY pt.pathway_id, pt.position`, pq.Int64Array(ids))
	if err != nil {
		return nil, fmt.Errorf("load pathway topics: %w", err)
	}
	byPathway := make(map[int64][]learngate.PathwayTopic, len(rows))
	for _, t := range topics {
		byPathway[t.PathwayID] = append(byPathway[t.PathwayID], t.PathwayTopic)
	}
	skills, err := skillsOf(ctx, q, "pathway_skills", "pathway_id", ids)
	if err != nil {
		return nil, err
	}
	for i, r := range rows {
		pathways[i] = learngate.Pathway{
			ID: r.ID, Title: r.Title, ExternalID: r.ExternalID, ShowCertificate: r.ShowCertificate,
			RecertificationAllowed: r.RecertificationAllowed, CertifyDays: r.CertifyDays, Ordered: r.Ordered,
			Topics: byPathway[r.ID], Skills: skills[r.ID], EnrolmentCode: r.EnrolmentCode,
			CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		}
		if pathways[i].Topics == nil {
			pathways[i].Topics = []learngate.PathwayTopic{}
		}
		if pathways[i].Skills == nil {
			pathways[i].Skills = []learngate.CatalogItem{}
		}
	}
	return pathways, nil
}
