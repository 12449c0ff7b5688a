package store

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/input"
)

// applyKnowledgeInput sets the given fields of in on r, a record of the user r.UserID
// (new or stored). Invalid when a field does not fit the resulting type:
// document_type outside Documents, development_plan_stage or
// development_focus outside Development Plans, a code on a Development Plan
// that is not a stage. A type change drops what no longer fits (a focus
// outside Development Plans, a code that is not a stage on one); a
// Development Plan's title is always DevelopmentPlanTitle.
func applyKnowledgeInput(in learngate.KnowledgeInput, r *knowledgeRow) error {
	oldType := r.KnowledgeType
	if in.KnowledgeType != nil {
		r.KnowledgeType = *in.KnowledgeType
	}
	plan := r.KnowledgeType == learngate.KnowledgeDevelopmentPlan
	switch {
	case in.DocumentType != nil && r.KnowledgeType != learngate.KnowledgeDocument:
		return onlyForType("document_type", "Document")
	case in.DevelopmentPlanStage != nil && !plan:
		return onlyForType("development_plan_stage", learngate.DevelopmentPlanTitle)
	case in.DevelopmentFocus != nil && !plan:
		return onlyForType("development_focus", learngate.DevelopmentPlanTitle)
	}
	code := in.Code
	if plan && code != nil && *code != "" {
		stage, err := input.OneOf("code", *code, input.DevelopmentPlanStages)
		if err != nil {
			return err
		}
		code = &stage
	}
	setOptional(&r.Code, code)
	setOptional(&r.Code, in.DocumentType)
	setOptional(&r.Code, in.DevelopmentPlanStage)
	setOptional(&r.DevelopmentFocus, in.DevelopmentFocus)
	setOptional(&r.QualificationLevel, in.QualificationLevel)
	for _, f := range []struct {
		dst *string
		v   *string
	}{
		{&r.Title, in.Title}, {&r.Provider, in.Provider}, {&r.CertificateNumber, in.CertificateNumber},
		{&r.CountryObtained, in.CountryObtained}, {&r.StateObtained, in.StateObtained},
		{&r.Notes, in.Notes}, {&r.Klass, in.Klass},
	} {
		setString(f.dst, f.v)
	}
	if in.DateObtained != nil {
		r.DateObtained = input.FormatDate(*in.DateObtained)
	}
	if in.Expires != nil {
		r.Expires = nil
		if !in.Expires.IsZero() {
			d := input.FormatDate(*in.Expires)
			r.Expires = &d
		}
	}
	if in.AssessmentScore != nil {
		r.AssessmentScore = *in.AssessmentScore
	}
	if in.TotalTime != nil {
		r.TotalTime = *in.TotalTime
	}
	if r.KnowledgeType != oldType && !plan {
		r.DevelopmentFocus = nil
	}
	if plan {
		if r.Code != nil && !isStage(*r.Code) {
			r.Code = nil
		}
		r.Title = learngate.DevelopmentPlanTitle
	}
	return nil
}

func isStage(s string) bool {
	for _, stage := range input.DevelopmentPlanStages {
		if s == stage {
			return true
		}
	}
	return false
}

// onlyForType is the Invalid error of a field sent for a type it does not belong to.
func onlyForType(field, typeName string) error {
	return learngate.Errorf(learngate.Invalid, "'%s' is only allowed for type %s", field, typeName)
}

// writableKnowledgeColumns are the external_knowledges columns a request
// can change, in the order of knowledgeRow.writable; dates are text cast to date.
var writableKnowledgeColumns = []string{
	"knowledge_type", "title", "code", "provider", "date_obtained", "certificate_number", "country_obtained",
	"state_obtained", "expires", "qualification_level", "assessment_score", "total_time", "notes", "klass",
	"development_focus",
}

// writable returns the values of writableKnowledgeColumns.
func (r *knowledgeRow) writable() []any {
	return []any{
		r.KnowledgeType, r.Title, r.Code, r.Provider, r.DateObtained, r.CertificateNumber, r.CountryObtained,
		r.StateObtained, r.Expires, r.QualificationLevel, r.AssessmentScore, r.TotalTime, r.Notes, r.Klass,
		r.DevelopmentFocus,
	}
}

// updateKnowledgeSQL writes writableKnowledgeColumns ($1..), updated_at
// (the next argument) and addresses the id (the one after).
var updateKnowledgeSQL = func() string {
	sets := make([]string, len(writableKnowledgeColumns))
	for i, col := range writableKnowledgeColumns {
		cast := ""
		if col == "date_obtained" || col == "expires" {
			cast = "::date"
		}
		sets[i] = fmt.Sprintf("%s = $%d%s", col, i+1, cast)
	}
	n := len(sets)
	return fmt.Sprintf(`UPDATE external_knowledges SET %s, updated_at = $%d WHERE id = $%d`, strings.Join(sets, ", "), n+1, n+2)
}()

// UpdateExternalKnowledge changes the given fields of record id and returns
// it; updated_at moves, and external_knowledge.updated is recorded, only
// when something changed. NotFound when there is no such record; Invalid
// when in.UserName names another user, for a field that does not fit the
// record's type (see applyKnowledgeInput), an unknown category or one given twice.
func UpdateExternalKnowledge(ctx context.Context, tdb *TenantDB, id int64, in learngate.KnowledgeInput, now time.Time) (learngate.ExternalKnowledge, error) {
	var k learngate.ExternalKnowledge
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var old knowledgeRow
		if err := tx.GetContext(ctx, &old, selectKnowledge+` WHERE k.id = $1 FOR UPDATE OF k`, id); err != nil {
			return notFound(err)
		}
		if in.UserName != nil && normalUserName(*in.UserName) != old.UserName {
			return learngate.Errorf(learngate.Invalid, "user_name cannot be changed ('%s' given for a record of '%s')",
				input.Quote(*in.UserName), old.UserName)
		}
		row := old
		if err := applyKnowledgeInput(in, &row); err != nil {
			return err
		}
		skills, err := lookupNames(ctx, tx, learngate.Skills, in.Skills)
		if err != nil {
			return err
		}
		categories, err := lookupNames(ctx, tx, learngate.Categories, categoryNames(in.Categories))
		if err != nil {
			return err
		}
		links, err := storedKnowledgeLinks(ctx, tx, id)
		if err != nil {
			return err
		}
		next, err := resolveKnowledgeLinks(in, links, skills, categories)
		if err != nil {
			return err
		}
		skillsChanged, categoriesChanged := !slices.Equal(links.skills, next.skills), !slices.Equal(links.categories, next.categories)
		if sameValues(old.writable(), row.writable()) && !skillsChanged && !categoriesChanged {
			k, err = knowledgeByID(ctx, tx, id)
			return err
		}
		args := append(row.writable(), now.UTC().Truncate(time.Microsecond), id)
		if _, err := tx.ExecContext(ctx, updateKnowledgeSQL, args...); err != nil {
			return fmt.Errorf("update external knowledge: %w", err)
		}
		write := knowledgeLinks{}
		if skillsChanged {
			write.skills = next.skills
			if _, err := tx.ExecContext(ctx, `DELETE FROM external_knowledge_skills WHERE knowledge_id = $1`, id); err != nil {
				return fmt.Errorf("clear external knowledge skills: %w", err)
			}
		}
		if categoriesChanged {
			write.categories = next.categories
			if _, err := tx.ExecContext(ctx, `DELETE FROM external_knowledge_categories WHERE knowledge_id = $1`, id); err != nil {
				return fmt.Errorf("clear external knowledge categories: %w", err)
			}
		}
		if err := insertKnowledgeLinks(ctx, tx, []int64{id}, []knowledgeLinks{write}); err != nil {
			return err
		}
		if k, err = knowledgeByID(ctx, tx, id); err != nil {
			return err
		}
		return tdb.RecordEvent(ctx, tx, EventExternalKnowledgeUpdated, k, now)
	})
	return k, err
}

// knowledgeLinks are a record's skill ids (ascending) and categories (in
// position order).
type knowledgeLinks struct {
	skills     []int64
	categories []categoryLink
}

// categoryLink is one category of a record.
type categoryLink struct {
	id      int64
	minutes int
	points  float64
}

// storedKnowledgeLinks reads the skills and categories of record id.
func storedKnowledgeLinks(ctx context.Context, tx *sqlx.Tx, id int64) (knowledgeLinks, error) {
	var rows []knowledgeLink
	if err := tx.SelectContext(ctx, &rows, knowledgeLinksSQL, pq.Int64Array{id}); err != nil {
		return knowledgeLinks{}, fmt.Errorf("load external knowledge links: %w", err)
	}
	var l knowledgeLinks
	for _, r := range rows {
		if r.Kind == "skill" {
			l.skills = append(l.skills, r.ItemID)
		} else {
			l.categories = append(l.categories, categoryLink{id: r.ItemID, minutes: r.Minutes, points: r.Points})
		}
	}
	sort.Slice(l.skills, func(i, j int) bool { return l.skills[i] < l.skills[j] })
	return l, nil
}

// resolveKnowledgeLinks returns cur changed by the skills and categories of in,
// given the ids their names resolved to (lookupNames). Unknown skills are
// ignored; an unknown category is Invalid naming the field that sent it,
// and so is a category given twice.
func resolveKnowledgeLinks(in learngate.KnowledgeInput, cur knowledgeLinks, skills, categories map[string]int64) (knowledgeLinks, error) {
	next := cur
	if in.Skills != nil {
		next.skills = []int64{}
		seen := map[int64]bool{}
		for _, name := range in.Skills {
			if id, ok := skills[name]; ok && !seen[id] {
				seen[id] = true
				next.skills = append(next.skills, id)
			}
		}
		sort.Slice(next.skills, func(i, j int) bool { return next.skills[i] < next.skills[j] })
	}
	if in.Categories != nil {
		next.categories = []categoryLink{}
		seen := map[int64]bool{}
		for _, c := range in.Categories {
			id, ok := categories[c.Name]
			if !ok {
				return next, input.IllegalValue(c.Field, c.Name)
			}
			if seen[id] {
				return next, learngate.Errorf(learngate.Invalid, "category '%s' is given more than once", input.Quote(c.Name))
			}
			seen[id] = true
			next.categories = append(next.categories, categoryLink{id: id, minutes: c.Minutes, points: c.Points})
		}
	}
	return next, nil
}

// categoryNames returns the names of categories.
func categoryNames(categories []learngate.KnowledgeCategoryInput) []string {
	names := make([]string, len(categories))
	for i, c := range categories {
		names[i] = c.Name
	}
	return names
}

// insertKnowledgeSkillsSQL links records $1 to skills $2, pairwise;
// insertKnowledgeCategoriesSQL links records $1 to categories $2 at positions
// $3 with minutes $4 and points $5. The benchmark's baseline
// (bench/baseline) keeps a copy.
const (
	insertKnowledgeSkillsSQL = `INSERT INTO external_knowledge_skills (knowledge_id, skill_id)
			SELECT * FROM unnest($1::bigint[], $2::bigint[])`
	insertKnowledgeCategoriesSQL = `INSERT INTO external_knowledge_categories (knowledge_id, category_id, position, minutes, points)
			SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::smallint[], $4::integer[], $5::numeric[])`
)

// insertKnowledgeLinks inserts the skills and categories of the records
// ids (links[i] belongs to ids[i]): one statement for all skills, one for
// all categories, none when there are none.
func insertKnowledgeLinks(ctx context.Context, tx *sqlx.Tx, ids []int64, links []knowledgeLinks) error {
	var skillRecords, skillIDs, catRecords, catIDs, positions, minutes pq.Int64Array
	var points pq.Float64Array
	for i, l := range links {
		for _, s := range l.skills {
			skillRecords = append(skillRecords, ids[i])
			skillIDs = append(skillIDs, s)
		}
		for p, c := range l.categories {
			catRecords = append(catRecords, ids[i])
			catIDs = append(catIDs, c.id)
			positions = append(positions, int64(p+1))
			minutes = append(minutes, int64(c.minutes))
			points = append(points, c.points)
		}
	}
	if len(skillIDs) > 0 {
		_, err := tx.ExecContext(ctx, insertKnowledgeSkillsSQL, skillRecords, skillIDs)
		if err != nil {
			return fmt.Errorf("insert external knowledge skills: %w", err)
		}
	}
	if len(catIDs) > 0 {
		_, err := tx.ExecContext(ctx, insertKnowledgeCategoriesSQL, catRecords, catIDs, positions, minutes, points)
		if err != nil {
			return fmt.Errorf("insert external knowledge categories: %w", err)
		}
	}
	return nil
}
