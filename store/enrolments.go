package store

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
)

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

func (r topicEnrolmentRow) toTopicEnrolment() learngate.TopicEnrolment {
	return learngate.TopicEnrolment{
		ID: r.ID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, CompletedTopicAt: r.CompletedTopicAt,
		Status: r.Status, DueDate: r.DueDate, Relationship: r.Relationship, ConqueredMinutes: r.ConqueredMinutes,
		ConqueredCPDMinutes: r.ConqueredCPDMinutes, EnrolledBy: r.EnrolledBy, CertifiedDate: r.CertifiedDate,
		RecertificationAllowed: r.RecertificationAllowed, Version: r.Version,
		SkillsAttained: []learngate.CatalogItem{}, Categories: []learngate.EnrolmentCategory{},
		User: learngate.EnrolledUser{ID: r.UserID, Name: fullName(r.UserFirstName, r.UserLastName), UserName: r.UserName,
			Link: userLink(r.UserName)},
		Topic: learngate.EnrolledTopic{ID: r.TopicID, Title: r.TopicTitle, Link: "/topics/" + strconv.FormatInt(r.TopicID, 10),
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
func loadTopicEnrolments(ctx context.Context, q sqlx.QueryerContext, rows []topicEnrolmentRow) ([]learngate.TopicEnrolment, error) {
	out := make([]learngate.TopicEnrolment, len(rows))
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
	if err := sqlx.SelectContext(ctx, q, &skills, topicEnrolmentSkillsSQL, ids); err != nil {
		return nil, fmt.Errorf("load topic enrolment skills: %w", err)
	}
	for _, s := range skills {
		for _, i := range byID[s.EnrolmentID] {
			out[i].SkillsAttained = append(out[i].SkillsAttained, learngate.CatalogItem{ID: s.ID, Name: s.Name})
		}
	}
	var cats []struct {
		TopicID int64 `db:"topic_id"`
		learngate.EnrolmentCategory
	}
	err := sqlx.SelectContext(ctx, q, &cats, topicCategoriesSQL, topicIDs)
	if err != nil {
		return nil, fmt.Errorf("load topic enrolment categories: %w", err)
	}
	byTopic := make(map[int64][]learngate.EnrolmentCategory, len(topicIDs))
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

// topicEnrolmentSkillsSQL selects the skills attained with the enrolments $1:
// those given with their codes, and their topics' once conquered. The benchmark's baseline
// (bench/baseline) keeps a copy.
const topicEnrolmentSkillsSQL = `SELECT * FROM (
	SELECT es.enrolment_id, s.id, s.name FROM topic_enrolment_skills es JOIN skills s ON s.id = es.skill_id
	WHERE es.enrolment_id = ANY($1)
	UNION
	SELECT e.id, s.id, s.name FROM topic_enrolments e
		JOIN topic_skills ts ON ts.topic_id = e.topic_id JOIN skills s ON s.id = ts.skill_id
	WHERE e.id = ANY($1) AND e.status = 'Conquered'
) x ORDER BY enrolment_id, lower(name), name`

// topicCategoriesSQL selects the categories of the topics $1, with their
// minutes and points, by topic and name ignoring case. The benchmark's baseline
// (bench/baseline) keeps a copy.
const topicCategoriesSQL = `SELECT tc.topic_id, c.name, tc.minutes, tc.points
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
func loadPathwayEnrolments(ctx context.Context, q sqlx.QueryerContext, rows []pathwayEnrolmentRow) ([]learngate.PathwayEnrolment, error) {
	out := make([]learngate.PathwayEnrolment, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make(pq.Int64Array, len(rows))
	byID := make(map[int64][]int, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
		byID[r.ID] = append(byID[r.ID], i)
		out[i] = learngate.PathwayEnrolment{
			ID: r.ID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ConqueredAt: r.ConqueredAt, Status: r.Status,
			DueDate: r.DueDate, EnrolledBy: r.EnrolledBy, CertifiedDate: r.CertifiedDate,
			RecertificationAllowed: r.RecertificationAllowed, SkillsAttained: []learngate.CatalogItem{},
			User: learngate.EnrolledUser{ID: r.UserID, Name: fullName(r.UserFirstName, r.UserLastName), UserName: r.UserName,
				Link: userLink(r.UserName)},
			Pathway: learngate.EnrolledPathway{ID: r.PathwayID, Title: r.PathwayTitle,
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
			out[i].SkillsAttained = append(out[i].SkillsAttained, learngate.CatalogItem{ID: s.ID, Name: s.Name})
		}
	}
	return out, nil
}
