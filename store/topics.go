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

	"learngate/store/list"
)

// Knowledge types of a topic.
const (
	KnowledgeTopic   = 1
	KnowledgeArticle = 2
)

// topicFields are the topics columns a request can change.
type topicFields struct {
	Title                  string `db:"title"`
	KnowledgeType          int    `db:"knowledge_type"`
	ExternalID             string `db:"external_id"`
	ShowCertificate        bool   `db:"show_certificate"`
	RecertificationAllowed bool   `db:"recertification_allowed"`
	CertifyDays            *int   `db:"certify_days"`
	Minutes                int    `db:"minutes"`
	CPDMinutes             int    `db:"cpd_minutes"`
}

// topicRow is a topics row with its enrolment code.
type topicRow struct {
	ID int64 `db:"id"`
	topicFields
	EnrolmentCode string    `db:"enrolment_code"`
	CreatedAt     time.Time `db:"created_at"`
	UpdatedAt     time.Time `db:"updated_at"`
}

const topicSelect = `SELECT t.id, t.title, t.knowledge_type, t.external_id, t.show_certificate,
	t.recertification_allowed, t.certify_days, t.minutes, t.cpd_minutes, coalesce(c.code, '') AS enrolment_code,
	t.created_at, t.updated_at
	FROM topics t LEFT JOIN enrolment_codes c ON c.topic_id = t.id`

// applyTopicInput sets the given fields of in on f.
func applyTopicInput(in learngate.TopicInput, f *topicFields) {
	setString(&f.Title, in.Title)
	setString(&f.ExternalID, in.ExternalID)
	setInt(&f.KnowledgeType, in.KnowledgeType)
	setBool(&f.ShowCertificate, in.ShowCertificate)
	setBool(&f.RecertificationAllowed, in.RecertificationAllowed)
	setDays(&f.CertifyDays, in.CertifyDays)
	setInt(&f.Minutes, in.Minutes)
	setInt(&f.CPDMinutes, in.CPDMinutes)
}

// topicCategoryLink is a topic_categories row's values.
type topicCategoryLink struct {
	CategoryID int64   `db:"category_id"`
	Minutes    int     `db:"minutes"`
	Points     float64 `db:"points"`
}

// topicLinks are what a topic carries besides its row.
type topicLinks struct {
	skills     []int64
	categories []topicCategoryLink // by category id
	code       string
}

// equal compares f and g by value (certify_days by its number).
func (f topicFields) equal(g topicFields) bool {
	fd, gd := f.CertifyDays, g.CertifyDays
	f.CertifyDays, g.CertifyDays = nil, nil
	return f == g && sameDays(fd, gd)
}

func sortCategoryLinks(links []topicCategoryLink) {
	sort.Slice(links, func(i, j int) bool { return links[i].CategoryID < links[j].CategoryID })
}

// sortTopicCategories sorts categories by name ignoring case, then by spelling.
func sortTopicCategories(cats []learngate.TopicCategory) {
	sort.Slice(cats, func(i, j int) bool {
		a, b := strings.ToLower(cats[i].Name), strings.ToLower(cats[j].Name)
		if a != b {
			return a < b
		}
		return cats[i].Name < cats[j].Name
	})
}

// CreateTopic stores a new topic with its skills, categories and enrolment
// code in one transaction and returns it; created_at and updated_at are now.
// in.Title must be given. Invalid for an unknown skill or category or a
// category given twice; Unprocessable when the enrolment code is taken by
// another topic or pathway in any letter case.
func CreateTopic(ctx context.Context, tdb *TenantDB, in learngate.TopicInput, now time.Time) (learngate.Topic, error) {
	if in.Title == nil || *in.Title == "" {
		return learngate.Topic{}, fmt.Errorf("create topic: title is required")
	}
	var topic learngate.Topic
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		id, err := saveTopic(ctx, tx, nil, in, now)
		if err != nil {
			return err
		}
		topic, err = topicByID(ctx, tx, id)
		return err
	})
	return topic, err
}

// UpdateTopic changes the given fields of topic id and returns it;
// updated_at moves to now only when something changed. NotFound when there
// is no such topic; other errors as CreateTopic.
func UpdateTopic(ctx context.Context, tdb *TenantDB, id int64, in learngate.TopicInput, now time.Time) (learngate.Topic, error) {
	var topic learngate.Topic
	err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
		var old topicRow
		if err := tx.GetContext(ctx, &old, topicSelect+` WHERE t.id = $1 FOR UPDATE OF t`, id); err != nil {
			return notFound(err)
		}
		if _, err := saveTopic(ctx, tx, &old, in, now); err != nil {
			return err
		}
		var err error
		topic, err = topicByID(ctx, tx, id)
		return err
	})
	return topic, err
}

// GetTopic returns topic id; NotFound when there is none.
func GetTopic(ctx context.Context, tdb *TenantDB, id int64) (learngate.Topic, error) {
	var topic learngate.Topic
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		topic, err = topicByID(ctx, tx, id)
		return err
	})
	return topic, err
}

// ListTopics returns one page of the topics that pass f, oldest first (id
// ascending), and how many pass it.
func ListTopics(ctx context.Context, tdb *TenantDB, f list.UpdatedFilter, page list.Page) ([]learngate.Topic, int64, error) {
	topics := []learngate.Topic{}
	var total int64
	err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		var rows []topicRow
		var err error
		total, err = list.Select(ctx, tx, &rows, list.Topics, topicSelect, f.Query(list.Topics), page)
		if err != nil {
			return fmt.Errorf("list topics: %w", err)
		}
		topics, err = loadTopics(ctx, tx, rows)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return topics, total, nil
}

// saveTopic applies in to old (nil for a new topic) and writes what
// changed, stamping updated_at with now only then. It returns the topic's
// id. Every check runs before the first write.
func saveTopic(ctx context.Context, tx *sqlx.Tx, old *topicRow, in learngate.TopicInput, now time.Time) (int64, error) {
	row := topicRow{topicFields: topicFields{KnowledgeType: KnowledgeTopic}}
	var links topicLinks
	if old != nil {
		row = *old
		var err error
		if links, err = loadTopicLinks(ctx, tx, old.ID, old.EnrolmentCode); err != nil {
			return 0, err
		}
	}
	next := topicLinks{skills: links.skills, categories: links.categories}
	var err error
	if in.Skills != nil {
		if next.skills, err = resolveSkills(ctx, tx, in.Skills); err != nil {
			return 0, err
		}
	}
	if in.Categories != nil {
		if next.categories, err = resolveTopicCategories(ctx, tx, in.Categories); err != nil {
			return 0, err
		}
	}
	code, codeChanged, err := checkCode(ctx, tx, topicCodes, row.ID, links.code, in.EnrolmentCode, old == nil)
	if err != nil {
		return 0, err
	}
	applyTopicInput(in, &row.topicFields)
	skillsChanged := old == nil || !slices.Equal(links.skills, next.skills)
	categoriesChanged := old == nil || !slices.Equal(links.categories, next.categories)
	if old != nil && row.topicFields.equal(old.topicFields) && !skillsChanged && !categoriesChanged && !codeChanged {
		return row.ID, nil
	}
	now = now.UTC().Truncate(time.Microsecond)
	f := row.topicFields
	if old == nil {
		err = tx.GetContext(ctx, &row.ID, `INSERT INTO topics (title, knowledge_type, external_id, show_certificate,
			recertification_allowed, certify_days, minutes, cpd_minutes, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING id`,
			f.Title, f.KnowledgeType, f.ExternalID, f.ShowCertificate, f.RecertificationAllowed, f.CertifyDays,
			f.Minutes, f.CPDMinutes, now)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE topics SET title = $1, knowledge_type = $2, external_id = $3,
			show_certificate = $4, recertification_allowed = $5, certify_days = $6, minutes = $7, cpd_minutes = $8,
			updated_at = $9 WHERE id = $10`,
			f.Title, f.KnowledgeType, f.ExternalID, f.ShowCertificate, f.RecertificationAllowed, f.CertifyDays,
			f.Minutes, f.CPDMinutes, now, row.ID)
	}
	if err != nil {
		return 0, fmt.Errorf("save topic: %w", err)
	}
	if skillsChanged {
		if err := writeSkills(ctx, tx, "topic_skills", "topic_id", row.ID, next.skills); err != nil {
			return 0, err
		}
	}
	if categoriesChanged {
		if err := writeTopicCategories(ctx, tx, row.ID, next.categories); err != nil {
			return 0, err
		}
	}
	if codeChanged {
		if _, err := setEnrolmentCode(ctx, tx, topicCodes, row.ID, code); err != nil {
			return 0, err
		}
	}
	return row.ID, nil
}

// resolveTopicCategories returns the categories of a request by category
// id, sorted by id. Invalid for an unknown name (naming categories.name)
// and for a category given twice (in any letter case).
func resolveTopicCategories(ctx context.Context, tx *sqlx.Tx, cats []learngate.TopicCategoryInput) ([]topicCategoryLink, error) {
	names := make([]string, len(cats))
	for i, c := range cats {
		names[i] = c.Name
	}
	found, err := lookupNames(ctx, tx, learngate.Categories, names)
	if err != nil {
		return nil, err
	}
	links := make([]topicCategoryLink, 0, len(cats))
	seen := make(map[int64]bool, len(cats))
	for _, c := range cats {
		id, ok := found[c.Name]
		if !ok {
			return nil, input.IllegalValue("categories.name", c.Name)
		}
		if seen[id] {
			return nil, learngate.Errorf(learngate.Invalid, "category '%s' appears more than once in 'categories'", input.Quote(c.Name))
		}
		seen[id] = true
		links = append(links, topicCategoryLink{CategoryID: id, Minutes: c.Minutes, Points: c.Points})
	}
	sortCategoryLinks(links)
	return links, nil
}

// loadTopicLinks returns topic id's skill ids and categories, sorted by id.
func loadTopicLinks(ctx context.Context, tx *sqlx.Tx, id int64, code string) (topicLinks, error) {
	links := topicLinks{skills: []int64{}, categories: []topicCategoryLink{}, code: code}
	if err := tx.SelectContext(ctx, &links.skills, `SELECT skill_id FROM topic_skills WHERE topic_id = $1 ORDER BY skill_id`, id); err != nil {
		return links, fmt.Errorf("load topic skills: %w", err)
	}
	err := tx.SelectContext(ctx, &links.categories, `SELECT category_id, minutes, points FROM topic_categories
		WHERE topic_id = $1 ORDER BY category_id`, id)
	if err != nil {
		return links, fmt.Errorf("load topic categories: %w", err)
	}
	return links, nil
}

// writeTopicCategories replaces the categories of topic id.
func writeTopicCategories(ctx context.Context, tx *sqlx.Tx, id int64, cats []topicCategoryLink) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM topic_categories WHERE topic_id = $1`, id); err != nil {
		return fmt.Errorf("clear topic categories: %w", err)
	}
	if len(cats) == 0 {
		return nil
	}
	ids := make(pq.Int64Array, len(cats))
	minutes := make(pq.Int64Array, len(cats))
	points := make(pq.Float64Array, len(cats))
	for i, c := range cats {
		ids[i], minutes[i], points[i] = c.CategoryID, int64(c.Minutes), c.Points
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO topic_categories (topic_id, category_id, minutes, points)
		SELECT $1, c.id, c.minutes, c.points FROM unnest($2::bigint[], $3::integer[], $4::numeric[]) AS c(id, minutes, points)`,
		id, ids, minutes, points)
	if err != nil {
		return fmt.Errorf("write topic categories: %w", err)
	}
	return nil
}

// topicByID loads topic id; NotFound when there is none.
func topicByID(ctx context.Context, q sqlx.QueryerContext, id int64) (learngate.Topic, error) {
	var row topicRow
	if err := sqlx.GetContext(ctx, q, &row, topicSelect+` WHERE t.id = $1`, id); err != nil {
		return learngate.Topic{}, notFound(err)
	}
	topics, err := loadTopics(ctx, q, []topicRow{row})
	if err != nil {
		return learngate.Topic{}, err
	}
	return topics[0], nil
}

// loadTopics completes rows into topics, in rows' order, with two queries
// whatever their number: skills, then categories.
func loadTopics(ctx context.Context, q sqlx.QueryerContext, rows []topicRow) ([]learngate.Topic, error) {
	topics := make([]learngate.Topic, len(rows))
	if len(rows) == 0 {
		return topics, nil
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	skills, err := skillsOf(ctx, q, "topic_skills", "topic_id", ids)
	if err != nil {
		return nil, err
	}
	var cats []struct {
		TopicID int64 `db:"topic_id"`
		learngate.TopicCategory
	}
	err = sqlx.SelectContext(ctx, q, &cats, `SELECT tc.topic_id, c.id, c.name, tc.minutes, tc.points
		FROM topic_categories tc JOIN categories c ON c.id = tc.category_id WHERE tc.topic_id = ANY($1)`, pq.Int64Array(ids))
	if err != nil {
		return nil, fmt.Errorf("load topic categories: %w", err)
	}
	byTopic := make(map[int64][]learngate.TopicCategory, len(rows))
	for _, c := range cats {
		byTopic[c.TopicID] = append(byTopic[c.TopicID], c.TopicCategory)
	}
	for i, r := range rows {
		topics[i] = learngate.Topic{
			ID: r.ID, Title: r.Title, KnowledgeType: r.KnowledgeType, ExternalID: r.ExternalID,
			ShowCertificate: r.ShowCertificate, RecertificationAllowed: r.RecertificationAllowed,
			CertifyDays: r.CertifyDays, Minutes: r.Minutes, CPDMinutes: r.CPDMinutes,
			Skills: skills[r.ID], Categories: byTopic[r.ID], EnrolmentCode: r.EnrolmentCode,
			CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		}
		if topics[i].Skills == nil {
			topics[i].Skills = []learngate.CatalogItem{}
		}
		if topics[i].Categories == nil {
			topics[i].Categories = []learngate.TopicCategory{}
		}
		sortTopicCategories(topics[i].Categories)
	}
	return topics, nil
}
