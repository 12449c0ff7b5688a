package learngate

import (
	"encoding/json"
	"time"
)

// The external knowledge types (docs/api.md, "External knowledge"):
// input.KnowledgeTypes[n-1] names type n.
const (
	KnowledgeTraining        = 1
	KnowledgeCertificate     = 2
	KnowledgeQualification   = 3
	KnowledgeLicense         = 4
	KnowledgeDocument        = 5
	KnowledgeDevelopmentPlan = 6
)

// DevelopmentPlanTitle is the title of every Development Plan.
const DevelopmentPlanTitle = "Development Plan"

// ExternalKnowledge is a record of knowledge a user obtained outside the
// platform, as the Public API shows it (docs/api.md and docs/decisions.md,
// "External knowledge"). Its JSON is the spec's object.
type ExternalKnowledge struct {
	ID            int64
	UserName      string
	KnowledgeType int
	Title         string
	// Code holds a Document's document type or a Development Plan's stage.
	Code                                              *string
	Provider                                          string
	DateObtained                                      string // yyyy-mm-dd
	CertificateNumber, CountryObtained, StateObtained string
	Expires                                           *string // yyyy-mm-dd
	QualificationLevel                                *string
	AssessmentScore                                   float64
	TotalTime                                         int
	Notes, Klass                                      string
	CreatedAt, UpdatedAt                              time.Time
	DevelopmentFocus                                  *string
	// Skills are sorted by name ignoring case; Categories are in the order
	// they were sent (category_1 first).
	Skills     []KnowledgeSkill
	Categories []KnowledgeCategory
}

// KnowledgeSkill is a skill a record carries.
type KnowledgeSkill struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// KnowledgeCategory is a category a record carries, with its minutes and
// points (2 decimal places).
type KnowledgeCategory struct {
	Name    string  `json:"name"`
	Minutes int     `json:"minutes"`
	Points  float64 `json:"points"`
}

// knowledgeJSON is the record's JSON in the spec's field order, then the
// fields docs/decisions.md, "External knowledge" adds.
type knowledgeJSON struct {
	ID                 int64               `json:"id"`
	KnowledgeType      int                 `json:"knowledge_type"`
	Title              string              `json:"title"`
	Code               *string             `json:"code"`
	Provider           string              `json:"provider"`
	DateObtained       string              `json:"date_obtained"`
	CertificateNumber  string              `json:"certificate_number"`
	CountryObtained    string              `json:"country_obtained"`
	StateObtained      string              `json:"state_obtained"`
	Expires            *string             `json:"expires"`
	QualificationLevel *string             `json:"qualification_level"`
	AssessmentScore    float64             `json:"assessment_score"`
	TotalTime          int                 `json:"total_time"`
	Notes              string              `json:"notes"`
	Klass              string              `json:"klass"`
	CreatedAt          timestamp           `json:"created_at"`
	UpdatedAt          timestamp           `json:"updated_at"`
	DevelopmentFocus   *string             `json:"development_focus"`
	UserName           string              `json:"user_name"`
	SkillsAttained     []KnowledgeSkill    `json:"skills_attained"`
	Categories         []KnowledgeCategory `json:"categories"`
}

// MarshalJSON writes the spec's external knowledge object; timestamps as
// TimestampLayout in UTC, skills_attained and categories [] when empty.
func (k ExternalKnowledge) MarshalJSON() ([]byte, error) {
	skills, categories := k.Skills, k.Categories
	if skills == nil {
		skills = []KnowledgeSkill{}
	}
	if categories == nil {
		categories = []KnowledgeCategory{}
	}
	return json.Marshal(knowledgeJSON{
		ID: k.ID, KnowledgeType: k.KnowledgeType, Title: k.Title, Code: k.Code, Provider: k.Provider,
		DateObtained: k.DateObtained, CertificateNumber: k.CertificateNumber, CountryObtained: k.CountryObtained,
		StateObtained: k.StateObtained, Expires: k.Expires, QualificationLevel: k.QualificationLevel,
		AssessmentScore: k.AssessmentScore, TotalTime: k.TotalTime, Notes: k.Notes, Klass: k.Klass,
		CreatedAt: timestamp(k.CreatedAt), UpdatedAt: timestamp(k.UpdatedAt), DevelopmentFocus: k.DevelopmentFocus,
		UserName: k.UserName, SkillsAttained: skills, Categories: categories,
	})
}

// KnowledgeBatchRow is one record of a batch create, as the handler read it.
type KnowledgeBatchRow struct {
	// UserName is the record's user_name as sent, for its error; nil when
	// the record has none (or not as a string).
	UserName *string
	// In is the record's parsed input, unless Err is set.
	In KnowledgeInput
	// Err is what parsing the record found wrong; the batch fails with it.
	Err error
}

// KnowledgeBatchResult is the answer of a batch create (docs/api.md,
// "External knowledge", POST /external_knowledges/batch_save): records are only ever created.
type KnowledgeBatchResult struct {
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
}

// KnowledgeInput is an external knowledge request's fields after the
// handler has parsed them (docs/api.md and docs/decisions.md, "External
// knowledge"). A nil field was not given and stays as
// it is; a pointer to "" clears an optional text (NULL for code,
// qualification_level and development_focus, "" for the others). Skill and
// category names are resolved by the store, in the transaction.
type KnowledgeInput struct {
	// UserName names the record's user in any letter case: required to
	// create; on update it may only name the record's own user.
	UserName *string
	// KnowledgeType is 1 to 6; required to create.
	KnowledgeType *int
	// Title is required to create anything but a Development Plan, whose
	// title is always DevelopmentPlanTitle.
	Title *string
	// Code is free text, except on a Development Plan, where it must be a
	// stage (input.DevelopmentPlanStages).
	Code *string
	// DocumentType (Documents only) and DevelopmentPlanStage (Development
	// Plans only, a value of input.DevelopmentPlanStages) are stored in code
	// and win over Code.
	DocumentType, DevelopmentPlanStage *string
	// DevelopmentFocus (Development Plans only) is a value of input.DevelopmentFocuses.
	DevelopmentFocus                                                          *string
	Provider, CertificateNumber, CountryObtained, StateObtained, Notes, Klass *string
	QualificationLevel                                                        *string
	// DateObtained is required to create and cannot be cleared; a zero
	// Expires clears it. Both are midnight UTC, as input.Date gives them.
	DateObtained, Expires *time.Time
	AssessmentScore       *float64
	// TotalTime is whole minutes, 0 or more.
	TotalTime *int
	// Skills replace the record's skills: nil, not given; empty, remove all.
	// Names of no skill are ignored.
	Skills []string
	// Categories replace the record's categories, in order: nil, not given;
	// empty, remove all. At most MaxKnowledgeCategories.
	Categories []KnowledgeCategoryInput
}

// KnowledgeCategoryInput is one category of a request.
type KnowledgeCategoryInput struct {
	// Field is the request field that named it (category_2_name, categories), for errors.
	Field string
	Name  string
	// Minutes is 0 or more; Points 0 or more, already rounded to 2 places.
	Minutes int
	Points  float64
}
