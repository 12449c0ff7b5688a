package main

import (
	"database/sql"
	"net/http"
	"net/url"
	"strconv"

	"github.com/lib/pq"
)

// idName is a skill attained (store.CatalogItem).
type idName struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// category is a topic enrolment's category (store.EnrolmentCategory).
type category struct {
	Name    string  `json:"name"`
	Minutes int     `json:"minutes"`
	Points  float64 `json:"points"`
}

type enrolledUser struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	UserName string `json:"user_name"`
	Link     string `json:"link"`
}

type enrolledTopic struct {
	ID              int64  `json:"id"`
	Title           string `json:"title"`
	Link            string `json:"link"`
	KnowledgeType   int    `json:"knowledge_type"`
	ShowCertificate bool   `json:"show_certificate"`
	ExternalID      string `json:"external_id"`
}

// topicEnrolment is learngate's topic enrolment object (store.TopicEnrolment).
type topicEnrolment struct {
	ID                     int64         `json:"id"`
	CreatedAt              timestamp     `json:"created_at"`
	UpdatedAt              timestamp     `json:"updated_at"`
	CompletedTopicAt       *timestamp    `json:"completed_topic_at"`
	Status                 string        `json:"status"`
	DueDate                *timestamp    `json:"due_date"`
	Relationship           string        `json:"relationship"`
	ConqueredMinutes       int           `json:"conquered_minutes"`
	ConqueredCPDMinutes    int           `json:"conquered_cpd_minutes"`
	EnrolledBy             *string       `json:"enrolled_by"`
	CertifiedDate          *timestamp    `json:"certified_date"`
	RecertificationAllowed bool          `json:"recertification_allowed"`
	Version                *string       `json:"version"`
	SkillsAttained         []idName      `json:"skills_attained"`
	Categories             []category    `json:"categories"`
	User                   enrolledUser  `json:"user"`
	Topic                  enrolledTopic `json:"topic"`
}

// listTopicAssignments is GET /papi/topic_assignments without filters.
func (s *server) listTopicAssignments(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	number, size := page(r)
	var out []*topicEnrolment
	var total int64
	err := s.inTx(ctx, true, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, countTopicEnrolmentsSQL).Scan(&total); err != nil {
			return err
		}
		if total <= int64(number-1)*int64(size) {
			return nil
		}
		rows, err := tx.QueryContext(ctx, pageTopicEnrolmentsSQL, size, (number-1)*size)
		if err != nil {
			return err
		}
		byID := map[int64]*topicEnrolment{}
		var ids, topicIDs pq.Int64Array
		seenTopic := map[int64]bool{}
		for rows.Next() {
			e := &topicEnrolment{SkillsAttained: []idName{}, Categories: []category{}}
			var completed, due, certified sql.NullTime
			var created, updated sql.NullTime
			var enrolledBy, version sql.NullString
			var first, last string
			if err := rows.Scan(&e.ID, &created, &updated, &completed, &e.Status, &due, &e.Relationship,
				&e.ConqueredMinutes, &e.ConqueredCPDMinutes, &enrolledBy, &certified, &e.RecertificationAllowed, &version,
				&e.User.ID, &first, &last, &e.User.UserName, &e.Topic.ID, &e.Topic.Title, &e.Topic.KnowledgeType,
				&e.Topic.ShowCertificate, &e.Topic.ExternalID); err != nil {
				rows.Close()
				return err
			}
			e.CreatedAt, e.UpdatedAt = timestamp(created.Time), timestamp(updated.Time)
			e.CompletedTopicAt, e.DueDate, e.CertifiedDate = optTimestamp(completed), optTimestamp(due), optTimestamp(certified)
			e.EnrolledBy, e.Version = optString(enrolledBy), optString(version)
			e.User.Name = fullName(first, last)
			e.User.Link = "/users/" + url.PathEscape(e.User.UserName)
			e.Topic.Link = "/topics/" + strconv.FormatInt(e.Topic.ID, 10)
			out = append(out, e)
			byID[e.ID] = e
			ids = append(ids, e.ID)
			if !seenTopic[e.Topic.ID] {
				seenTopic[e.Topic.ID] = true
				topicIDs = append(topicIDs, e.Topic.ID)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.QueryContext(ctx, topicEnrolmentSkillsSQL, ids)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var skill idName
			if err := rows.Scan(&id, &skill.ID, &skill.Name); err != nil {
				rows.Close()
				return err
			}
			byID[id].SkillsAttained = append(byID[id].SkillsAttained, skill)
		}
		rows.Close()
		rows, err = tx.QueryContext(ctx, topicCategoriesSQL, topicIDs)
		if err != nil {
			return err
		}
		byTopic := map[int64][]category{}
		for rows.Next() {
			var topicID int64
			var c category
			if err := rows.Scan(&topicID, &c.Name, &c.Minutes, &c.Points); err != nil {
				rows.Close()
				return err
			}
			byTopic[topicID] = append(byTopic[topicID], c)
		}
		rows.Close()
		for _, e := range out {
			if c := byTopic[e.Topic.ID]; c != nil {
				e.Categories = c
			}
		}
		return rows.Err()
	})
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, newEnvelope(out, total, number, size))
}

// fullName joins first and last names (store.fullName).
func fullName(first, last string) string {
	switch {
	case first == "":
		return last
	case last == "":
		return first
	}
	return first + " " + last
}
