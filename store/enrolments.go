package store

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Topic enrolment statuses, in the order a learner moves through them
// (docs/decisions.md, "Enrolments").
const (
	StatusUnexplored = "Unexplored"
	StatusExploring  = "Exploring"
	StatusApplying   = "Applying"
	StatusConquered  = "Conquered"
	// StatusRecertify is a pathway enrolment whose certification has run out.
	StatusRecertify = "recertify"
)

// EnrolledUser is the user of an enrolment as the spec's enrolment objects
// show it: the internal id, the full name, the user_name and the user's path.
type EnrolledUser struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	UserName string `json:"user_name"`
	Link     string `json:"link"`
}

// EnrolledTopic is the topic of a topic enrolment.
type EnrolledTopic struct {
	ID              int64  `json:"id"`
	Title           string `json:"title"`
	Link            string `json:"link"`
	KnowledgeType   int    `json:"knowledge_type"`
	ShowCertificate bool   `json:"show_certificate"`
	ExternalID      string `json:"external_id"`
}

// EnrolledPathway is the pathway of a pathway enrolment.
type EnrolledPathway struct {
	ID              int64  `json:"id"`
	Title           string `json:"title"`
	Link            string `json:"link"`
	ShowCertificate bool   `json:"show_certificate"`
	ExternalID      string `json:"external_id"`
}

// EnrolmentCategory is one category a topic enrolment counts towards: the
// topic's category with its minutes and points.
type EnrolmentCategory struct {
	Name    string  `json:"name"`
	Minutes int     `json:"minutes"`
	Points  float64 `json:"points"`
}

// TopicEnrolment is a user's enrolment in a topic (docs/api.md, "Enrolment
// codes and enrolments"); its JSON is the spec's object, in the spec's field
// order.
type TopicEnrolment struct {
	ID                     int64
	CreatedAt, UpdatedAt   time.Time
	CompletedTopicAt       *time.Time
	Status                 string
	DueDate                *time.Time
	Relationship           string
	ConqueredMinutes       int
	ConqueredCPDMinutes    int
	EnrolledBy             *string
	CertifiedDate          *time.Time
	RecertificationAllowed bool
	Version                *string
	// SkillsAttained are the skills given with the code, plus the topic's
	// own once conquered, sorted by name ignoring case.
	SkillsAttained []CatalogItem
	Categories     []EnrolmentCategory
	User           EnrolledUser
	Topic          EnrolledTopic
}

// MarshalJSON writes the spec's topic enrolment object.
func (e TopicEnrolment) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID                     int64               `json:"id"`
		CreatedAt              timestamp           `json:"created_at"`
		UpdatedAt              timestamp           `json:"updated_at"`
		CompletedTopicAt       *timestamp          `json:"completed_topic_at"`
		Status                 string              `json:"status"`
		DueDate                *timestamp          `json:"due_date"`
		Relationship           string              `json:"relationship"`
		ConqueredMinutes       int                 `json:"conquered_minutes"`
		ConqueredCPDMinutes    int                 `json:"conquered_cpd_minutes"`
		EnrolledBy             *string             `json:"enrolled_by"`
		CertifiedDate          *timestamp          `json:"certified_date"`
		RecertificationAllowed bool                `json:"recertification_allowed"`
		Version                *string             `json:"version"`
		SkillsAttained         []CatalogItem       `json:"skills_attained"`
		Categories             []EnrolmentCategory `json:"categories"`
		User                   EnrolledUser        `json:"user"`
		Topic                  EnrolledTopic       `json:"topic"`
	}{
		e.ID, timestamp(e.CreatedAt), timestamp(e.UpdatedAt), optionalTimestamp(e.CompletedTopicAt), e.Status,
		optionalTimestamp(e.DueDate), e.Relationship, e.ConqueredMinutes, e.ConqueredCPDMinutes, e.EnrolledBy,
		optionalTimestamp(e.CertifiedDate), e.RecertificationAllowed, e.Version, nonNil(e.SkillsAttained),
		nonNil(e.Categories), e.User, e.Topic,
	})
}

// PathwayEnrolment is a user's enrolment in a pathway (docs/api.md,
// "Enrolment codes and enrolments"); its JSON is the spec's object, in the spec's order.
type PathwayEnrolment struct {
	ID                     int64
	CreatedAt, UpdatedAt   time.Time
	ConqueredAt            *time.Time
	Status                 string
	DueDate                *time.Time
	EnrolledBy             string
	CertifiedDate          *time.Time
	RecertificationAllowed bool
	// SkillsAttained are the skills given with the code, plus the pathway's
	// own once conquered, sorted by name ignoring case.
	SkillsAttained []CatalogItem
	User           EnrolledUser
	Pathway        EnrolledPathway
}

// MarshalJSON writes the spec's pathway enrolment object.
func (e PathwayEnrolment) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID                     int64           `json:"id"`
		CreatedAt              timestamp       `json:"created_at"`
		UpdatedAt              timestamp       `json:"updated_at"`
		ConqueredAt            *timestamp      `json:"conquered_at"`
		Status                 string          `json:"status"`
		DueDate                *timestamp      `json:"due_date"`
		EnrolledBy             string          `json:"enrolled_by"`
		CertifiedDate          *timestamp      `json:"certified_date"`
		RecertificationAllowed bool            `json:"recertification_allowed"`
		SkillsAttained         []CatalogItem   `json:"skills_attained"`
		User                   EnrolledUser    `json:"user"`
		Pathway                EnrolledPathway `json:"pathway"`
	}{
		e.ID, timestamp(e.CreatedAt), timestamp(e.UpdatedAt), optionalTimestamp(e.ConqueredAt), e.Status,
		optionalTimestamp(e.DueDate), e.EnrolledBy, optionalTimestamp(e.CertifiedDate), e.RecertificationAllowed,
		nonNil(e.SkillsAttained), e.User, e.Pathway,
	})
}

// nonNil makes an absent list an empty JSON array.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// userLink is the path of a user, as the user API addresses it.
func userLink(userName string) string { return "/users/" + url.PathEscape(userName) }

// topicEnrolmentRow is a topic enrolment joined with its user and topic.
type topicEnrolmentRow struct {
	ID                     int64      `db:"id"`
	CreatedAt              time.Time  `db:"created_at"`
	UpdatedAt              time.Time  `db:"updated_at"`
	CompletedTopicAt       *time.Time `db:"completed_topic_at"`
	Status                 string     `db:"status"`
	DueDate                *time.Time `db:"due_date"`
	Relationship           string     `db:"relationship"`
	ConqueredMinutes       int        `db:"conquered_minutes"`
	ConqueredCPDMinutes    int        `db:"conquered_cpd_minutes"`
	EnrolledBy             *string    `db:"enrolled_by"`
	CertifiedDate          *time.Time `db:"certified_date"`
	RecertificationAllowed bool       `db:"recertification_allowed"`
	Version                *string    `db:"version"`
	UserID                 int64      `db:"user_id"`
	UserFirstName          string     `db:"user_first_name"`
	UserLastName           string     `db:"user_last_name"`
	UserName               string     `db:"user_name"`
	TopicID                int64      `db:"topic_id"`
	TopicTitle             string     `db:"topic_title"`
	KnowledgeType          int        `db:"knowledge_type"`
	ShowCertificate        bool       `db:"show_certificate"`
	ExternalID             string     `db:"external_id"`
}

// topicEnrolmentSelect reads topicEnrolmentRow from topic_enrolments e;
// callers add WHERE, ORDER BY and LIMIT. Conquered minutes are the topic's
// (CPD) minutes plus the progress minutes, once conquered.
const topicEnrolmentSelect = `SELECT e.id, e.created_at, e.updated_at, e.completed_topic_at, e.status, e.due_date,
	e.relationship,
	CASE WHEN e.status = 'Conquered' THEN t.minutes + e.progress_minutes ELSE 0 END AS conquered_minutes,
	CASE WHEN e.status = 'Conquered' THEN t.cpd_minutes + e.progress_minutes ELSE 0 END AS conquered_cpd_minutes,
	e.enrolled_by, e.certified_date, e.recertification_allowed, e.version,
	u.id AS user_id, u.first_name AS user_first_name, u.last_name AS user_last_name, u.user_name,
	t.id AS topic_id, t.title AS topic_title, t.knowledge_type, t.show_certificate, t.external_id
FROM topic_enrolments e JOIN users u ON u.id = e.user_id JOIN topics t ON t.id = e.topic_id`

func (r topicEnrolmentRow) toTopicEnrolment() TopicEnrolment {
	return TopicEnrolment{
		ID: r.ID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, CompletedTopicAt: r.CompletedTopicAt,
		Status: r.Status, DueDate: r.DueDate, Relationship: r.Relationship, ConqueredMinutes: r.ConqueredMinutes,
		ConqueredCPDMinutes: r.ConqueredCPDMinutes, EnrolledBy: r.EnrolledBy, CertifiedDate: r.CertifiedDate,
		RecertificationAllowed: r.RecertificationAllowed, Version: r.Version,
		SkillsAttained: []CatalogItem{}, Categories: []EnrolmentCategory{},
		User: EnrolledUser{ID: r.UserID, Name: fullName(r.UserFirstName, r.UserLastName), UserName: r.UserName,
			Link: userLink(r.UserName)},
		Topic: EnrolledTopic{ID: r.TopicID, Title: r.TopicTitle, Link: "/topics/" + strconv.FormatInt(r.TopicID, 10),
			KnowledgeType: r.KnowledgeType, ShowCertificate: r.ShowCertificate, ExternalID: r.ExternalID},
	}
}

// fullName joins a user's first and last names.
func fullName(first, last string) string {
	switch {
	case first == "":
		return last
	case last == "":
		return first
	}
	return first + " " + last
}

// loadTopicEnrolments completes rows into enrolments, in rows' order, with
// two queries whatever their number: the skills of all of them, then the
// categories of their topics.
func loadTopicEnrolments(ctx context.Context, q sqlx.QueryerContext, rows []topicEnrolmentRow) ([]TopicEnrolment, error) {
	out := make([]TopicEnrolment, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make(pq.Int64Array, len(rows))
	topicIDs := make(pq.Int64Array, 0, len(rows))
	seenTopic := map[int64]bool{}
	byID := make(map[int64][]int, len(rows))
	for i, r := range rows {
		out[i] = r.toTopicEnrolment()
		ids[i] = r.ID
		byID[r.ID] = append(byID[r.ID], i)
		if !seenTopic[r.TopicID] {
			seenTopic[r.TopicID] = true
			topicIDs = append(topicIDs, r.TopicID)
		}
	}
	var skills []enrolmentSkill
	if err := sqlx.SelectContext(ctx, q, &skills, TopicEnrolmentSkillsSQL, ids); err != nil {
		return nil, fmt.Errorf("load topic enrolment skills: %w", err)
	}
	for _, s := range skills {
		for _, i := range byID[s.EnrolmentID] {
			out[i].SkillsAttained = append(out[i].SkillsAttained, CatalogItem{ID: s.ID, Name: s.Name})
		}
	}
	var cats []struct {
		TopicID int64 `db:"topic_id"`
		EnrolmentCategory
	}
	err := sqlx.SelectContext(ctx, q, &cats, TopicCategoriesSQL, topicIDs)
	if err != nil {
		return nil, fmt.Errorf("load topic enrolment categories: %w", err)
	}
	byTopic := make(map[int64][]EnrolmentCategory, len(topicIDs))
	for _, c := range cats {
		byTopic[c.TopicID] = append(byTopic[c.TopicID], c.EnrolmentCategory)
	}
	for i := range out {
		if c := byTopic[out[i].Topic.ID]; c != nil {
			out[i].Categories = c
		}
	}
	return out, nil
}

// enrolmentSkill is one skill attained with an enrolment.
type enrolmentSkill struct {
	EnrolmentID int64  `db:"enrolment_id"`
	ID          int64  `db:"id"`
	Name        string `db:"name"`
}

// TopicEnrolmentSkillsSQL selects the skills attained with the enrolments $1:
// those given with their codes, and their topics' once conquered. Exported for
// the benchmark's baseline (bench/), which runs the same statement.
const TopicEnrolmentSkillsSQL = `SELECT * FROM (
	SELECT es.enrolment_id, s.id, s.name FROM topic_enrolment_skills es JOIN skills s ON s.id = es.skill_id
	WHERE es.enrolment_id = ANY($1)
	UNION
	SELECT e.id, s.id, s.name FROM topic_enrolments e
		JOIN topic_skills ts ON ts.topic_id = e.topic_id JOIN skills s ON s.id = ts.skill_id
	WHERE e.id = ANY($1) AND e.status = 'Conquered'
) x ORDER BY enrolment_id, lower(name), name`

// TopicCategoriesSQL selects the categories of the topics $1, with their
// minutes and points, by topic and name ignoring case. Exported for the
// benchmark's baseline (bench/), which runs the same statement.
const TopicCategoriesSQL = `SELECT tc.topic_id, c.name, tc.minutes, tc.points
		FROM topic_categories tc JOIN categories c ON c.id = tc.category_id
		WHERE tc.topic_id = ANY($1) ORDER BY tc.topic_id, lower(c.name), c.name`

// pathwayEnrolmentRow is a pathway enrolment joined with its user and pathway.
type pathwayEnrolmentRow struct {
	ID                     int64      `db:"id"`
	CreatedAt              time.Time  `db:"created_at"`
	UpdatedAt              time.Time  `db:"updated_at"`
	ConqueredAt            *time.Time `db:"conquered_at"`
	Status                 string     `db:"status"`
	DueDate                *time.Time `db:"due_date"`
	EnrolledBy             string     `db:"enrolled_by"`
	CertifiedDate          *time.Time `db:"certified_date"`
	RecertificationAllowed bool       `db:"recertification_allowed"`
	UserID                 int64      `db:"user_id"`
	UserFirstName          string     `db:"user_first_name"`
	UserLastName           string     `db:"user_last_name"`
	UserName               string     `db:"user_name"`
	PathwayID              int64      `db:"pathway_id"`
	PathwayTitle           string     `db:"pathway_title"`
	ShowCertificate        bool       `db:"show_certificate"`
	ExternalID             string     `db:"external_id"`
}

// pathwayEnrolmentSelect reads pathwayEnrolmentRow from pathway_enrolments e.
const pathwayEnrolmentSelect = `SELECT e.id, e.created_at, e.updated_at, e.conquered_at, e.status, e.due_date,
	e.enrolled_by, e.certified_date, e.recertification_allowed,
	u.id AS user_id, u.first_name AS user_first_name, u.last_name AS user_last_name, u.user_name,
	p.id AS pathway_id, p.title AS pathway_title, p.show_certificate, p.external_id
FROM pathway_enrolments e JOIN users u ON u.id = e.user_id JOIN pathways p ON p.id = e.pathway_id`

// pathwayEnrolmentSkillsSQL selects the skills attained with the pathway
// enrolments $1: those given with their codes, and their pathways' once
// conquered (also while they wait for recertification).
const pathwayEnrolmentSkillsSQL = `SELECT * FROM (
	SELECT es.enrolment_id, s.id, s.name FROM pathway_enrolment_skills es JOIN skills s ON s.id = es.skill_id
	WHERE es.enrolment_id = ANY($1)
	UNION
	SELECT e.id, s.id, s.name FROM pathway_enrolments e
		JOIN pathway_skills ps ON ps.pathway_id = e.pathway_id JOIN skills s ON s.id = ps.skill_id
	WHERE e.id = ANY($1) AND e.status IN ('Conquered', 'recertify')
) x ORDER BY enrolment_id, lower(name), name`

// loadPathwayEnrolments completes rows into enrolments, in rows' order,
// with one query for the skills of all of them.
func loadPathwayEnrolments(ctx context.Context, q sqlx.QueryerContext, rows []pathwayEnrolmentRow) ([]PathwayEnrolment, error) {
	out := make([]PathwayEnrolment, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make(pq.Int64Array, len(rows))
	byID := make(map[int64][]int, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
		byID[r.ID] = append(byID[r.ID], i)
		out[i] = PathwayEnrolment{
			ID: r.ID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ConqueredAt: r.ConqueredAt, Status: r.Status,
			DueDate: r.DueDate, EnrolledBy: r.EnrolledBy, CertifiedDate: r.CertifiedDate,
			RecertificationAllowed: r.RecertificationAllowed, SkillsAttained: []CatalogItem{},
			User: EnrolledUser{ID: r.UserID, Name: fullName(r.UserFirstName, r.UserLastName), UserName: r.UserName,
				Link: userLink(r.UserName)},
			Pathway: EnrolledPathway{ID: r.PathwayID, Title: r.PathwayTitle,
				Link:            "/pathways/" + strconv.FormatInt(r.PathwayID, 10),
				ShowCertificate: r.ShowCertificate, ExternalID: r.ExternalID},
		}
	}
	var skills []enrolmentSkill
	if err := sqlx.SelectContext(ctx, q, &skills, pathwayEnrolmentSkillsSQL, ids); err != nil {
		return nil, fmt.Errorf("load pathway enrolment skills: %w", err)
	}
	for _, s := range skills {
		for _, i := range byID[s.EnrolmentID] {
			out[i].SkillsAttained = append(out[i].SkillsAttained, CatalogItem{ID: s.ID, Name: s.Name})
		}
	}
	return out, nil
}
