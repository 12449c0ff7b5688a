package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/lib/pq"

	"learngate"
)

// batchSaveKnowledge is POST /papi/external_knowledges/batch_save for
// valid records of existing users.
func (s *server) batchSaveKnowledge(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Records []map[string]any `json:"external_knowledges"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Records) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "Bad request: Missing parameter 'external_knowledges'"})
		return
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	err := s.inTx(r.Context(), false, func(tx *sql.Tx) error {
		return createKnowledge(r.Context(), tx, body.Records, now)
	})
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, errUnsupported) {
			status = http.StatusUnprocessableEntity
		}
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, learngate.KnowledgeBatchResult{Created: len(body.Records)})
}

// createKnowledge inserts records with their skills and categories: one
// lookup each for users, skills and categories, one insert per table.
func createKnowledge(ctx context.Context, tx *sql.Tx, records []map[string]any, now time.Time) error {
	var userNames, skillNames, categoryNames []string
	for _, rec := range records {
		userNames = append(userNames, strings.ToLower(text(rec["user_name"])))
		skillNames = append(skillNames, splitList(rec["skills_attained"])...)
		for n := 1; n <= 3; n++ {
			if c := text(rec[fmt.Sprintf("category_%d_name", n)]); c != "" {
				categoryNames = append(categoryNames, c)
			}
		}
	}
	users := map[string]int64{}
	rows, err := tx.QueryContext(ctx, lookupUsersSQL, pq.StringArray(userNames))
	if err != nil {
		return err
	}
	for rows.Next() {
		var name string
		var id int64
		if err := rows.Scan(&name, &id); err != nil {
			rows.Close()
			return err
		}
		users[name] = id
	}
	rows.Close()
	skills, err := lookupNames(ctx, tx, "skills", skillNames)
	if err != nil {
		return err
	}
	categories, err := lookupNames(ctx, tx, "categories", categoryNames)
	if err != nil {
		return err
	}

	var ids []int64
	rows, err = tx.QueryContext(ctx, allocateKnowledgeIDsSQL, len(records))
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })

	var userIDs, types, totals pq.Int64Array
	var scores pq.Float64Array
	texts := make([][]*string, 12) // title .. development_focus, as insertKnowledgesSQL
	var skillRecords, skillIDs, catRecords, catIDs, positions, minutes pq.Int64Array
	var points pq.Float64Array
	for i, rec := range records {
		uid, ok := users[strings.ToLower(text(rec["user_name"]))]
		if !ok {
			return errUnsupported
		}
		kt, _ := rec["knowledge_type"].(float64)
		score, _ := rec["assessment_score"].(float64)
		total, _ := rec["total_time"].(float64)
		userIDs, types = append(userIDs, uid), append(types, int64(kt))
		scores, totals = append(scores, score), append(totals, int64(total))
		str := func(k string) *string { s := text(rec[k]); return &s }
		opt := func(k string) *string {
			if s := text(rec[k]); s != "" {
				return &s
			}
			return nil
		}
		for j, v := range []*string{str("title"), opt("code"), str("provider"), str("date_obtained"),
			str("certificate_number"), str("country_obtained"), str("state_obtained"), opt("expires"),
			opt("qualification_level"), str("notes"), str("klass"), opt("development_focus")} {
			texts[j] = append(texts[j], v)
		}
		for _, sk := range idSet(skills, splitList(rec["skills_attained"])) {
			skillRecords, skillIDs = append(skillRecords, ids[i]), append(skillIDs, sk)
		}
		for n := 1; n <= 3; n++ {
			name := text(rec[fmt.Sprintf("category_%d_name", n)])
			if name == "" {
				continue
			}
			m, _ := rec[fmt.Sprintf("category_%d_minutes", n)].(float64)
			p, _ := rec[fmt.Sprintf("category_%d_points", n)].(float64)
			catRecords, catIDs = append(catRecords, ids[i]), append(catIDs, categories[name])
			positions, minutes, points = append(positions, int64(n)), append(minutes, int64(m)), append(points, p)
		}
	}
	args := []any{pq.Int64Array(ids), userIDs, types}
	for _, col := range texts {
		args = append(args, pq.GenericArray{A: col})
	}
	args = append(args, scores, totals, now)
	if _, err := tx.ExecContext(ctx, insertKnowledgesSQL, args...); err != nil {
		return err
	}
	if len(skillIDs) > 0 {
		if _, err := tx.ExecContext(ctx, insertKnowledgeSkillsSQL, skillRecords, skillIDs); err != nil {
			return err
		}
	}
	if len(catIDs) > 0 {
		if _, err := tx.ExecContext(ctx, insertKnowledgeCategoriesSQL, catRecords, catIDs, positions, minutes, points); err != nil {
			return err
		}
	}
	return noWebhookTargets(ctx, tx)
}
