package main

import (
	"database/sql"
	"net/http"
	"net/url"
	"strconv"

	"github.com/lib/pq"

	"learngate"
	"learngate/store/list"
)

// listTopicAssignments is GET /papi/topic_assignments without filters, in
// one snapshot: the count and the page from the rank anchors, with the
// list engine's statements (store/list: the anchors, the count since the
// newest, the page from the anchor at or below it) as learngate sends them. Its records are learngate's own
// topic enrolment objects (learngate.TopicEnrolment).
func (s *server) listTopicAssignments(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	number, size := page(r)
	var out []learngate.TopicEnrolment
	var total int64
	err := s.inSnapshot(ctx, func(tx *sql.Tx) error {
		var newestRank, pageRank int64
		var newestID, pageID sql.NullInt64
		offset := int64(number-1) * int64(size)
		anchors := list.TopicEnrolments.AnchorsStatement(offset)
		if err := tx.QueryRowContext(ctx, anchors.SQL, anchors.Args...).
			Scan(&newestRank, &newestID, &pageRank, &pageID); err != nil {
			return err
		}
		count := list.TopicEnrolments.CountSinceStatement(learngate.Key{ID: newestID.Int64}, newestID.Valid)
		if err := tx.QueryRowContext(ctx, count.SQL, count.Args...).Scan(&total); err != nil {
			return err
		}
		total += newestRank
		if total <= offset {
			return nil
		}
		w := list.Window{Size: min(int64(size), total-offset), Skip: offset}
		if pageID.Valid && offset >= list.AnchorSpacing {
			w = list.Window{Size: w.Size, Skip: offset - pageRank, From: &learngate.Key{ID: pageID.Int64}}
		}
		page := list.TopicEnrolments.PageStatement(topicEnrolmentSelect, list.EnrolmentFilter{}.Query(list.TopicEnrolments), w)
		rows, err := tx.QueryContext(ctx, page.SQL, page.Args...)
		if err != nil {
			return err
		}
		byID := map[int64]int{}
		var ids, topicIDs pq.Int64Array
		seenTopic := map[int64]bool{}
		for rows.Next() {
			e := learngate.TopicEnrolment{SkillsAttained: []learngate.CatalogItem{}, Categories: []learngate.EnrolmentCategory{}}
			var first, last string
			if err := rows.Scan(&e.ID, &e.CreatedAt, &e.UpdatedAt, &e.CompletedTopicAt, &e.Status, &e.DueDate,
				&e.Relationship, &e.ConqueredMinutes, &e.ConqueredCPDMinutes, &e.EnrolledBy, &e.CertifiedDate,
				&e.RecertificationAllowed, &e.Version, &e.User.ID, &first, &last, &e.User.UserName, &e.Topic.ID,
				&e.Topic.Title, &e.Topic.KnowledgeType, &e.Topic.ShowCertificate, &e.Topic.ExternalID); err != nil {
				rows.Close()
				return err
			}
			e.User.Name = fullName(first, last)
			e.User.Link = "/users/" + url.PathEscape(e.User.UserName)
			e.Topic.Link = "/topics/" + strconv.FormatInt(e.Topic.ID, 10)
			byID[e.ID] = len(out)
			out = append(out, e)
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
			var skill learngate.CatalogItem
			if err := rows.Scan(&id, &skill.ID, &skill.Name); err != nil {
				rows.Close()
				return err
			}
			e := &out[byID[id]]
			e.SkillsAttained = append(e.SkillsAttained, skill)
		}
		rows.Close()
		rows, err = tx.QueryContext(ctx, topicCategoriesSQL, topicIDs)
		if err != nil {
			return err
		}
		byTopic := map[int64][]learngate.EnrolmentCategory{}
		for rows.Next() {
			var topicID int64
			var c learngate.EnrolmentCategory
			if err := rows.Scan(&topicID, &c.Name, &c.Minutes, &c.Points); err != nil {
				rows.Close()
				return err
			}
			byTopic[topicID] = append(byTopic[topicID], c)
		}
		rows.Close()
		for i := range out {
			if c := byTopic[out[i].Topic.ID]; c != nil {
				out[i].Categories = c
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
