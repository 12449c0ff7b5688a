package learngate

import (
	"encoding/json"
	"fmt"
	"time"
)

// TopicInput is a topic request's fields after the handler has checked
// their form (docs/decisions.md, "Catalog, topics and pathways"). A nil field was not given and stays
// as it is (on create: its default). Names of skills and categories are
// resolved by the store, in the transaction.
type TopicInput struct {
	// Title is trimmed and non-empty; CreateTopic needs it.
	Title *string
	// KnowledgeType is KnowledgeTopic (the default) or KnowledgeArticle.
	KnowledgeType *int
	// ExternalID is the client's own id; "" clears it.
	ExternalID             *string
	ShowCertificate        *bool
	RecertificationAllowed *bool
	// CertifyDays is how many days a certification lasts; 0 clears it (no expiry).
	CertifyDays *int
	// Minutes and CPDMinutes are whole numbers ≥ 0.
	Minutes, CPDMinutes *int
	// Skills are skill names of the tenant's catalog; nil: not given, empty: remove all.
	Skills []string
	// Categories replace all current ones; nil: not given, empty: remove all.
	Categories []TopicCategoryInput
	// EnrolmentCode has no white space; nil keeps the current code (on
	// create: generates one), "" generates a new one.
	EnrolmentCode *string
}

// TopicCategoryInput is one category of a topic request: a category name
// of the tenant's catalog, minutes ≥ 0 and points (2 decimal places).
type TopicCategoryInput struct {
	Name    string
	Minutes int
	Points  float64
}

// Topic is a topic (or article) as the API shows it.
type Topic struct {
	ID                     int64
	Title                  string
	KnowledgeType          int
	ExternalID             string
	ShowCertificate        bool
	RecertificationAllowed bool
	// CertifyDays is nil when a certification does not expire.
	CertifyDays         *int
	Minutes, CPDMinutes int
	// Skills are sorted by name ignoring case.
	Skills []CatalogItem
	// Categories are sorted by name ignoring case.
	Categories           []TopicCategory
	EnrolmentCode        string
	CreatedAt, UpdatedAt time.Time
}

// TopicCategory is one category of a topic with its minutes and points.
type TopicCategory struct {
	ID      int64   `db:"id" json:"-"`
	Name    string  `db:"name" json:"name"`
	Minutes int     `db:"minutes" json:"minutes"`
	Points  float64 `db:"points" json:"points"`
}

// Link is the topic's path, as the API links to it.
func (t Topic) Link() string { return fmt.Sprintf("/topics/%d", t.ID) }

// topicJSON is the topic object in the order the API writes it.
type topicJSON struct {
	ID                     int64           `json:"id"`
	Title                  string          `json:"title"`
	Link                   string          `json:"link"`
	KnowledgeType          int             `json:"knowledge_type"`
	ExternalID             string          `json:"external_id"`
	ShowCertificate        bool            `json:"show_certificate"`
	RecertificationAllowed bool            `json:"recertification_allowed"`
	CertifyDays            *int            `json:"certify_days"`
	Minutes                int             `json:"minutes"`
	CPDMinutes             int             `json:"cpd_minutes"`
	Skills                 string          `json:"skills"`
	Categories             []TopicCategory `json:"categories"`
	EnrolmentCode          string          `json:"enrolment_code"`
	CreatedAt              timestamp       `json:"created_at"`
	UpdatedAt              timestamp       `json:"updated_at"`
}

// MarshalJSON writes the topic object: skills as names joined with ';',
// categories as [{name, minutes, points}].
func (t Topic) MarshalJSON() ([]byte, error) {
	cats := t.Categories
	if cats == nil {
		cats = []TopicCategory{}
	}
	return json.Marshal(topicJSON{
		ID: t.ID, Title: t.Title, Link: t.Link(), KnowledgeType: t.KnowledgeType, ExternalID: t.ExternalID,
		ShowCertificate: t.ShowCertificate, RecertificationAllowed: t.RecertificationAllowed,
		CertifyDays: t.CertifyDays, Minutes: t.Minutes, CPDMinutes: t.CPDMinutes,
		Skills: skillNames(t.Skills), Categories: cats, EnrolmentCode: t.EnrolmentCode,
		CreatedAt: timestamp(t.CreatedAt), UpdatedAt: timestamp(t.UpdatedAt),
	})
}
