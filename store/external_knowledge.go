package store

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
	"learngate/store/list"
)

// MaxKnowledgeCategories is how many categories one record may carry.
const MaxKnowledgeCategories = 3

// knowledgeRow is an external_knowledges row joined to its user's name.
// Dates are read and written as yyyy-mm-dd text, so no time zone touches them.
type knowledgeRow struct {
	ID                 int64     `db:"id"`
	UserID             int64     `db:"user_id"`
	UserName           string    `db:"user_name"`
	KnowledgeType      int       `db:"knowledge_type"`
	Title              string    `db:"title"`
	Code               *string   `db:"code"`
	Provider           string    `db:"provider"`
	DateObtained       string    `db:"date_obtained"`
	CertificateNumber  string    `db:"certificate_number"`
	CountryObtained    string    `db:"country_obtained"`
	StateObtained      string    `db:"state_obtained"`
	Expires            *string   `db:"expires"`
	QualificationLevel *string   `db:"qualification_level"`
	AssessmentScore    float64   `db:"assessment_score"`
	TotalTime          int       `db:"total_time"`
	Notes              string    `db:"notes"`
	Klass              string    `db:"klass"`
	DevelopmentFocus   *string   `db:"development_focus"`
	CreatedAt          time.Time `db:"created_at"`
	UpdatedAt          time.Time `db:"updated_at"`
}

// selectKnowledge selects knowledgeRow; callers add WHERE, ORDER BY, LIMIT.
const selectKnowledge = `SELECT k.id, k.user_id, u.user_name, k.knowledge_type, k.title, k.code, k.provider,
	to_char(k.date_obtained, 'YYYY-MM-DD') AS date_obtained, k.certificate_number, k.country_obtained,
	k.state_obtained, to_char(k.expires, 'YYYY-MM-DD') AS expires, k.qualification_level, k.assessment_score,
	k.total_time, k.notes, k.klass, k.development_focus, k.created_at, k.updated_at
	FROM external_knowledges k JOIN users u ON u.id = k.user_id`

// GetExternalKnowledge returns record id; NotFound ("not found") when there
// is none.
func GetExternalKnowledge(ctx context.Context, tdb *TenantDB, id int64) (learngate.ExternalKnowledge, error) {
	var k learngate.ExternalKnowledge
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		k, err = knowledgeByID(ctx, tx, id)
		return err
	})
	return k, err
}

// ListExternalKnowledges returns one page of the records that pass f,
// oldest first (id ascending), and how many pass it, in one snapshot: four
// statements whatever the page size (list.Knowledge).
func ListExternalKnowledges(ctx context.Context, tdb *TenantDB, f list.KnowledgeFilter, page list.Page) ([]learngate.ExternalKnowledge, int64, error) {
	records := []learngate.ExternalKnowledge{}
	var total int64
	err := tdb.SnapshotTx(ctx, func(tx *sqlx.Tx) error {
		var rows []knowledgeRow
		var err error
		total, err = list.Select(ctx, tx, &rows, list.Knowledge, selectKnowledge, f.Query(), page)
		if err != nil {
			return fmt.Errorf("list external knowledge: %w", err)
		}
		records, err = loadKnowledges(ctx, tx, rows)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return records, total, nil
}

// knowledgeByID loads record id with its skills and categories; NotFound
// when there is none.
func knowledgeByID(ctx context.Context, q sqlx.QueryerContext, id int64) (learngate.ExternalKnowledge, error) {
	var row knowledgeRow
	if err := sqlx.GetContext(ctx, q, &row, selectKnowledge+` WHERE k.id = $1`, id); err != nil {
		return learngate.ExternalKnowledge{}, notFound(err)
	}
	records, err := loadKnowledges(ctx, q, []knowledgeRow{row})
	if err != nil {
		return learngate.ExternalKnowledge{}, err
	}
	return records[0], nil
}

// knowledgeLink is one skill or category of a record, as loadLinks reads it.
type knowledgeLink struct {
	KnowledgeID int64   `db:"knowledge_id"`
	Kind        string  `db:"kind"`
	ItemID      int64   `db:"item_id"`
	Name        string  `db:"name"`
	Position    int     `db:"position"`
	Minutes     int     `db:"minutes"`
	Points      float64 `db:"points"`
}

// knowledgeLinksSQL selects the skills and categories of the records $1
// (ids), categories in position order.
const knowledgeLinksSQL = `
	SELECT ks.knowledge_id, 'skill' AS kind, s.id AS item_id, s.name, 0 AS position, 0 AS minutes, 0::numeric AS points
	FROM external_knowledge_skills ks JOIN skills s ON s.id = ks.skill_id WHERE ks.knowledge_id = ANY($1)
	UNION ALL
	SELECT kc.knowledge_id, 'category', c.id, c.name, kc.position, kc.minutes, kc.points
	FROM external_knowledge_categories kc JOIN categories c ON c.id = kc.category_id WHERE kc.knowledge_id = ANY($1)
	ORDER BY knowledge_id, kind, position`

// loadKnowledges completes rows into records, in rows' order, with one
// query for the skills and categories of all of them.
func loadKnowledges(ctx context.Context, q sqlx.QueryerContext, rows []knowledgeRow) ([]learngate.ExternalKnowledge, error) {
	records := make([]learngate.ExternalKnowledge, len(rows))
	if len(rows) == 0 {
		return records, nil
	}
	ids := make(pq.Int64Array, len(rows))
	byID := make(map[int64]*learngate.ExternalKnowledge, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
		records[i] = r.toExternalKnowledge()
		byID[r.ID] = &records[i]
	}
	var links []knowledgeLink
	if err := sqlx.SelectContext(ctx, q, &links, knowledgeLinksSQL, ids); err != nil {
		return nil, fmt.Errorf("load external knowledge links: %w", err)
	}
	for _, l := range links {
		k := byID[l.KnowledgeID]
		if l.Kind == "skill" {
			k.Skills = append(k.Skills, learngate.KnowledgeSkill{ID: l.ItemID, Name: l.Name})
		} else {
			k.Categories = append(k.Categories, learngate.KnowledgeCategory{Name: l.Name, Minutes: l.Minutes, Points: l.Points})
		}
	}
	for i := range records {
		skills := records[i].Skills
		sort.Slice(skills, func(a, b int) bool {
			la, lb := strings.ToLower(skills[a].Name), strings.ToLower(skills[b].Name)
			if la != lb {
				return la < lb
			}
			return skills[a].ID < skills[b].ID
		})
	}
	return records, nil
}

// toExternalKnowledge copies the row's public fields; links come later.
func (r knowledgeRow) toExternalKnowledge() learngate.ExternalKnowledge {
	return learngate.ExternalKnowledge{
		ID: r.ID, UserName: r.UserName, KnowledgeType: r.KnowledgeType, Title: r.Title, Code: r.Code,
		Provider: r.Provider, DateObtained: r.DateObtained, CertificateNumber: r.CertificateNumber,
		CountryObtained: r.CountryObtained, StateObtained: r.StateObtained, Expires: r.Expires,
		QualificationLevel: r.QualificationLevel, AssessmentScore: r.AssessmentScore, TotalTime: r.TotalTime,
		Notes: r.Notes, Klass: r.Klass, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		DevelopmentFocus: r.DevelopmentFocus, Skills: []learngate.KnowledgeSkill{}, Categories: []learngate.KnowledgeCategory{},
	}
}
