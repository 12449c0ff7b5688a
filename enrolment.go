package learngate

import (
	"encoding/json"
	"time"
)

// Topic enrolment statuses, in the order a learner moves through them
// (docs/decisions.md, "Enrolments").
const (
	StatusUnexplored = "Unexplored"
	StatusExploring  = "Exploring"
	StatusApplying   = "Applying"
	StatusConquered  = "Conquered"
	// StatusRecertify is a pathway enrolment whose certification has run out.
	StatusRecertify = "recertify"
)

// EnrolledUser is the user of an enrolment as the spec's enrolment objects
// show it: the internal id, the full name, the user_name and the user's path.
type EnrolledUser struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	UserName string `json:"user_name"`
	Link     string `json:"link"`
}

// EnrolledTopic is the topic of a topic enrolment.
type EnrolledTopic struct {
	ID              int64  `json:"id"`
	Title           string `json:"title"`
	Link            string `json:"link"`
	KnowledgeType   int    `json:"knowledge_type"`
	ShowCertificate bool   `json:"show_certificate"`
	ExternalID      string `json:"external_id"`
}

// EnrolledPathway is the pathway of a pathway enrolment.
type EnrolledPathway struct {
	ID              int64  `json:"id"`
	Title           string `json:"title"`
	Link            string `json:"link"`
	ShowCertificate bool   `json:"show_certificate"`
	ExternalID      string `json:"external_id"`
}

// EnrolmentCategory is one category a topic enrolment counts towards: the
// topic's category with its minutes and points.
type EnrolmentCategory struct {
	Name    string  `json:"name"`
	Minutes int     `json:"minutes"`
	Points  float64 `json:"points"`
}

// TopicEnrolment is a user's enrolment in a topic (docs/api.md, "Enrolment
// codes and enrolments"); its JSON is the spec's object, in the spec's field
// order.
type TopicEnrolment struct {
	ID                     int64
	CreatedAt, UpdatedAt   time.Time
	CompletedTopicAt       *time.Time
	Status                 string
	DueDate                *time.Time
	Relationship           string
	ConqueredMinutes       int
	ConqueredCPDMinutes    int
	EnrolledBy             *string
	CertifiedDate          *time.Time
	RecertificationAllowed bool
	Version                *string
	// SkillsAttained are the skills given with the code, plus the topic's
	// own once conquered, sorted by name ignoring case.
	SkillsAttained []CatalogItem
	Categories     []EnrolmentCategory
	User           EnrolledUser
	Topic          EnrolledTopic
}

// MarshalJSON writes the spec's topic enrolment object.
func (e TopicEnrolment) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID                     int64               `json:"id"`
		CreatedAt              timestamp           `json:"created_at"`
		UpdatedAt              timestamp           `json:"updated_at"`
		CompletedTopicAt       *timestamp          `json:"completed_topic_at"`
		Status                 string              `json:"status"`
		DueDate                *timestamp          `json:"due_date"`
		Relationship           string              `json:"relationship"`
		ConqueredMinutes       int                 `json:"conquered_minutes"`
		ConqueredCPDMinutes    int                 `json:"conquered_cpd_minutes"`
		EnrolledBy             *string             `json:"enrolled_by"`
		CertifiedDate          *timestamp          `json:"certified_date"`
		RecertificationAllowed bool                `json:"recertification_allowed"`
		Version                *string             `json:"version"`
		SkillsAttained         []CatalogItem       `json:"skills_attained"`
		Categories             []EnrolmentCategory `json:"categories"`
		User                   EnrolledUser        `json:"user"`
		Topic                  EnrolledTopic       `json:"topic"`
	}{
		e.ID, timestamp(e.CreatedAt), timestamp(e.UpdatedAt), optionalTimestamp(e.CompletedTopicAt), e.Status,
		optionalTimestamp(e.DueDate), e.Relationship, e.ConqueredMinutes, e.ConqueredCPDMinutes, e.EnrolledBy,
		optionalTimestamp(e.CertifiedDate), e.RecertificationAllowed, e.Version, nonNil(e.SkillsAttained),
		nonNil(e.Categories), e.User, e.Topic,
	})
}

// PathwayEnrolment is a user's enrolment in a pathway (docs/api.md,
// "Enrolment codes and enrolments"); its JSON is the spec's object, in the spec's order.
type PathwayEnrolment struct {
	ID                     int64
	CreatedAt, UpdatedAt   time.Time
	ConqueredAt            *time.Time
	Status                 string
	DueDate                *time.Time
	EnrolledBy             string
	CertifiedDate          *time.Time
	RecertificationAllowed bool
	// SkillsAttained are the skills given with the code, plus the pathway's
	// own once conquered, sorted by name ignoring case.
	SkillsAttained []CatalogItem
	User           EnrolledUser
	Pathway        EnrolledPathway
}

// MarshalJSON writes the spec's pathway enrolment object.
func (e PathwayEnrolment) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID                     int64           `json:"id"`
		CreatedAt              timestamp       `json:"created_at"`
		UpdatedAt              timestamp       `json:"updated_at"`
		ConqueredAt            *timestamp      `json:"conquered_at"`
		Status                 string          `json:"status"`
		DueDate                *timestamp      `json:"due_date"`
		EnrolledBy             string          `json:"enrolled_by"`
		CertifiedDate          *timestamp      `json:"certified_date"`
		RecertificationAllowed bool            `json:"recertification_allowed"`
		SkillsAttained         []CatalogItem   `json:"skills_attained"`
		User                   EnrolledUser    `json:"user"`
		Pathway                EnrolledPathway `json:"pathway"`
	}{
		e.ID, timestamp(e.CreatedAt), timestamp(e.UpdatedAt), optionalTimestamp(e.ConqueredAt), e.Status,
		optionalTimestamp(e.DueDate), e.EnrolledBy, optionalTimestamp(e.CertifiedDate), e.RecertificationAllowed,
		nonNil(e.SkillsAttained), e.User, e.Pathway,
	})
}

// Enrolment is a topic or a pathway enrolment; its JSON is that object.
type Enrolment struct {
	Topic   *TopicEnrolment
	Pathway *PathwayEnrolment
}

// MarshalJSON writes the enrolment's object.
func (e Enrolment) MarshalJSON() ([]byte, error) {
	if e.Pathway != nil {
		return json.Marshal(e.Pathway)
	}
	return json.Marshal(e.Topic)
}

// UserRef names the user of an enrolment request: by user_name (any
// letter case), by internal id, or both (then both must match).
type UserRef struct {
	UserName *string
	ID       *int64
}

// ProgressStatuses are the statuses a learner's progress may report.
var ProgressStatuses = []string{StatusExploring, StatusApplying, StatusConquered}

// Progress is a learner's progress on a topic enrolment
// (POST /topic_assignments/{id}/progress).
type Progress struct {
	// Status is one of ProgressStatuses.
	Status string
	// Minutes are added to the enrolment's progress minutes: 0 to
	// MaxProgressMinutes.
	Minutes int64
}

// EnrolmentAction is the action word after an enrolment code (docs/decisions.md,
// "Enrolments"), in its canonical spelling; "" enrols.
type EnrolmentAction string

// The action words.
const (
	// ActionEnrol (no word) creates the current enrolment if there is none.
	ActionEnrol EnrolmentAction = ""
	// ActionComplete enrols when needed and marks the enrolment Conquered.
	ActionComplete EnrolmentAction = "COMPLETE"
	// ActionUpdate changes the dates and skills of the current enrolment.
	ActionUpdate EnrolmentAction = "UPDATE"
	// ActionUnenrol removes the current enrolment (kept as history).
	ActionUnenrol EnrolmentAction = "UNENROL"
)

// EnrolmentActions are the action words that may follow a code.
var EnrolmentActions = []EnrolmentAction{ActionComplete, ActionUpdate, ActionUnenrol}

// EnrolmentDate is a date sent with an enrolment code. A zero Day is an
// empty value: it clears the date with UPDATE and means "not given" otherwise.
type EnrolmentDate struct {
	// Day is the date at midnight UTC, as input.Date gives it.
	Day time.Time
	// Raw is the value as sent, for messages.
	Raw string
}

// EnrolmentRequest is one enrolment field group of a user input
// (enrolment_code_N and its _due_date, _conquered_date, _certified_date and
// _skill_attained), as the handler parsed it.
type EnrolmentRequest struct {
	// N is the group's number (1..5; others are refused by the parser).
	N int
	// Raw is enrolment_code_N as sent, trimmed, for messages.
	Raw string
	// Code is the enrolment code, Action the word after it.
	Code   string
	Action EnrolmentAction
	// Dates: nil when not sent.
	DueDate, ConqueredDate, CertifiedDate *EnrolmentDate
	// Skills are skill names; nil when not sent, empty to clear. Unknown
	// names are ignored (as for external knowledge).
	Skills []string
	// Problems are what the parser found wrong with the group (a bad date, an
	// unknown action word, ...). A group with problems is never applied; the
	// store reports them in order with its own.
	Problems []string
}
