package learngate

import (
	"encoding/json"
	"fmt"
	"time"
)

// PathwayInput is a pathway request's fields after the handler has checked
// their form (docs/decisions.md, "Catalog, topics and pathways"). A nil field was not given and stays
// as it is (on create: its default). Skill names and topic ids are
// resolved by the store, in the transaction.
type PathwayInput struct {
	// Title is trimmed and non-empty; CreatePathway needs it.
	Title *string
	// ExternalID is the client's own id; "" clears it.
	ExternalID             *string
	ShowCertificate        *bool
	RecertificationAllowed *bool
	// CertifyDays is how many days a certification lasts; 0 clears it (no expiry).
	CertifyDays *int
	// Ordered: the topics are to be taken in order.
	Ordered *bool
	// Topics replace all current ones, in order; nil: not given, empty: remove all.
	Topics []PathwayTopicInput
	// Skills are skill names of the tenant's catalog; nil: not given, empty: remove all.
	Skills []string
	// EnrolmentCode has no white space; nil keeps the current code (on
	// create: generates one), "" generates a new one.
	EnrolmentCode *string
}

// PathwayTopicInput is one topic of a pathway request: a topic id of the
// tenant and whether it is mandatory (nil: mandatory).
type PathwayTopicInput struct {
	TopicID   int64
	Mandatory *bool
}

// Pathway is a pathway as the API shows it.
type Pathway struct {
	ID                     int64
	Title                  string
	ExternalID             string
	ShowCertificate        bool
	RecertificationAllowed bool
	// CertifyDays is nil when a certification does not expire.
	CertifyDays *int
	Ordered     bool
	// Topics are in position order (1, 2, ...).
	Topics []PathwayTopic
	// Skills are sorted by name ignoring case.
	Skills               []CatalogItem
	EnrolmentCode        string
	CreatedAt, UpdatedAt time.Time
}

// PathwayTopic is one topic of a pathway.
type PathwayTopic struct {
	TopicID   int64  `db:"topic_id" json:"topic_id"`
	Title     string `db:"title" json:"title"`
	Mandatory bool   `db:"mandatory" json:"mandatory"`
	Position  int    `db:"position" json:"position"`
}

// Link is the pathway's path, as the API links to it.
func (p Pathway) Link() string { return fmt.Sprintf("/pathways/%d", p.ID) }

// pathwayJSON is the pathway object in the order the API writes it.
type pathwayJSON struct {
	ID                     int64          `json:"id"`
	Title                  string         `json:"title"`
	Link                   string         `json:"link"`
	ExternalID             string         `json:"external_id"`
	ShowCertificate        bool           `json:"show_certificate"`
	RecertificationAllowed bool           `json:"recertification_allowed"`
	CertifyDays            *int           `json:"certify_days"`
	Ordered                bool           `json:"ordered"`
	Topics                 []PathwayTopic `json:"topics"`
	Skills                 string         `json:"skills"`
	EnrolmentCode          string         `json:"enrolment_code"`
	CreatedAt              timestamp      `json:"created_at"`
	UpdatedAt              timestamp      `json:"updated_at"`
}

// MarshalJSON writes the pathway object: topics as [{topic_id, title,
// mandatory, position}], skills as names joined with ';'.
func (p Pathway) MarshalJSON() ([]byte, error) {
	topics := p.Topics
	if topics == nil {
		topics = []PathwayTopic{}
	}
	return json.Marshal(pathwayJSON{
		ID: p.ID, Title: p.Title, Link: p.Link(), ExternalID: p.ExternalID, ShowCertificate: p.ShowCertificate,
		RecertificationAllowed: p.RecertificationAllowed, CertifyDays: p.CertifyDays, Ordered: p.Ordered,
		Topics: topics, Skills: skillNames(p.Skills), EnrolmentCode: p.EnrolmentCode,
		CreatedAt: timestamp(p.CreatedAt), UpdatedAt: timestamp(p.UpdatedAt),
	})
}
