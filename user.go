package learngate

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// AdminTypeNames names the administrator types: AdminTypeNames[n] is admin_type n.
var AdminTypeNames = []string{"super", "standard", "knowledge", "reporting", "instructor", "restricted", "observer", "people", "library"}

// User is a user account as the Public API shows it (docs/api.md,
// "Users"); its JSON is the spec's user object. The password is never part of it.
type User struct {
	ID                          int64
	UserName                    string
	FirstName, LastName, Email  string
	ManagerEmails               [5]*string
	MentorEmail                 string
	LMSLearnerID, LMSReference  string
	OrgAdmin, Creator           bool
	TeamLeader                  bool
	CreatedAt, UpdatedAt        time.Time
	CurrentSignInAt             *time.Time
	AdminType                   *int
	DeactivateScheduledDate     *time.Time
	ReactivateScheduledDate     *time.Time
	Language, CreatedBy         string
	Timezone                    string
	UserNotificationsEnabled    bool
	ForcePwdResetNextLogin      bool
	ManagerEmailReport1stMonth  bool
	ManagerEmailReport15thMonth bool
	TeamLeaderReportFrequency   *string
	LearnerReportFrequency      *string
	AssessorReportFrequency     *string
	// DefaultLandingPage is "Default" when none is set.
	DefaultLandingPage string
	Login, Type        string
	Active             bool
	PlatformChampion   bool
	// Roles[i] is the role name in position i+1.
	Roles [5]*string
	// Groups and Goals are names sorted ignoring case.
	Groups, Goals []string
	// CustomValues holds every custom field of the tenant, in field id order.
	CustomValues []CustomValue
}

// CustomValue is one custom field of a user: Value nil when unset.
type CustomValue struct {
	Name  string
	Value *string
}

// OrgAdminAccess is the name of the user's administrator type, or "none".
func (u User) OrgAdminAccess() string {
	if !u.OrgAdmin || u.AdminType == nil || *u.AdminType < 0 || *u.AdminType >= len(AdminTypeNames) {
		return "none"
	}
	return AdminTypeNames[*u.AdminType]
}

// userJSON is the user object's fixed fields in the spec's order.
type userJSON struct {
	UserName                  string     `json:"user_name"`
	FirstName                 string     `json:"first_name"`
	LastName                  string     `json:"last_name"`
	Email                     string     `json:"email"`
	ManagerEmail              *string    `json:"manager_email"`
	Manager2Email             *string    `json:"manager_2_email"`
	Manager3Email             *string    `json:"manager_3_email"`
	Manager4Email             *string    `json:"manager_4_email"`
	Manager5Email             *string    `json:"manager_5_email"`
	MentorEmail               string     `json:"mentor_email"`
	LMSLearnerID              string     `json:"lms_learner_id"`
	LMSReference              string     `json:"lms_reference"`
	OrgAdmin                  bool       `json:"org_admin"`
	Creator                   bool       `json:"creator"`
	TeamLeader                bool       `json:"team_leader"`
	CreatedAt                 timestamp  `json:"created_at"`
	UpdatedAt                 timestamp  `json:"updated_at"`
	CurrentSignInAt           *timestamp `json:"current_sign_in_at"`
	AdminType                 *int       `json:"admin_type"`
	OrgAdminAccess            string     `json:"org_admin_access"`
	DeactivateScheduledDate   *timestamp `json:"deactivate_scheduled_date"`
	ReactivateScheduledDate   *timestamp `json:"reactivate_scheduled_date"`
	Language                  string     `json:"language"`
	CreatedBy                 string     `json:"created_by"`
	Timezone                  string     `json:"timezone"`
	UserNotificationsEnabled  bool       `json:"user_notifications_enabled"`
	TeamLeaderReportFrequency *string    `json:"team_leader_report_frequency"`
	LearnerReportFrequency    *string    `json:"learner_report_frequency"`
	AssessorReportFrequency   *string    `json:"assessor_report_frequency"`
	DefaultLandingPage        string     `json:"default_landing_page"`
	Login                     string     `json:"login"`
	Type                      string     `json:"type"`
	Active                    bool       `json:"active"`
	PlatformChampion          bool       `json:"platform_champion"`
	Role1                     *string    `json:"role_1"`
	Role2                     *string    `json:"role_2"`
	Role3                     *string    `json:"role_3"`
	Role4                     *string    `json:"role_4"`
	Role5                     *string    `json:"role_5"`
	Groups                    string     `json:"groups"`
	Goals                     string     `json:"goals"`
}

// MarshalJSON writes the spec's user object: its fixed fields in the
// spec's order, then X-<name> for every custom field of the tenant.
func (u User) MarshalJSON() ([]byte, error) {
	fixed, err := json.Marshal(userJSON{
		UserName: u.UserName, FirstName: u.FirstName, LastName: u.LastName, Email: u.Email,
		ManagerEmail: u.ManagerEmails[0], Manager2Email: u.ManagerEmails[1], Manager3Email: u.ManagerEmails[2],
		Manager4Email: u.ManagerEmails[3], Manager5Email: u.ManagerEmails[4],
		MentorEmail: u.MentorEmail, LMSLearnerID: u.LMSLearnerID, LMSReference: u.LMSReference,
		OrgAdmin: u.OrgAdmin, Creator: u.Creator, TeamLeader: u.TeamLeader,
		CreatedAt: timestamp(u.CreatedAt), UpdatedAt: timestamp(u.UpdatedAt),
		CurrentSignInAt: optionalTimestamp(u.CurrentSignInAt),
		AdminType:       u.AdminType, OrgAdminAccess: u.OrgAdminAccess(),
		DeactivateScheduledDate: optionalTimestamp(u.DeactivateScheduledDate),
		ReactivateScheduledDate: optionalTimestamp(u.ReactivateScheduledDate),
		Language:                u.Language, CreatedBy: u.CreatedBy, Timezone: u.Timezone,
		UserNotificationsEnabled:  u.UserNotificationsEnabled,
		TeamLeaderReportFrequency: u.TeamLeaderReportFrequency, LearnerReportFrequency: u.LearnerReportFrequency,
		AssessorReportFrequency: u.AssessorReportFrequency, DefaultLandingPage: u.DefaultLandingPage,
		Login: u.Login, Type: u.Type, Active: u.Active, PlatformChampion: u.PlatformChampion,
		Role1: u.Roles[0], Role2: u.Roles[1], Role3: u.Roles[2], Role4: u.Roles[3], Role5: u.Roles[4],
		Groups: strings.Join(u.Groups, ";"), Goals: strings.Join(u.Goals, ";"),
	})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Write(fixed[:len(fixed)-1])
	for _, cv := range u.CustomValues {
		name, err := json.Marshal("X-" + cv.Name)
		if err != nil {
			return nil, err
		}
		value, err := json.Marshal(cv.Value)
		if err != nil {
			return nil, err
		}
		buf.WriteByte(',')
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UserInput is a user request's fields after the handler has parsed them
// (docs/api.md, "Users"). A nil field was not given and stays
// as it is; a pointer to "" clears an optional field. Names of roles, groups,
// goals and custom fields are resolved by the store, in the transaction.
type UserInput struct {
	UserName, FirstName, LastName, Email *string
	// Type and Login are canonical spellings; Language a code of input.Languages.
	Type, Login, Language *string
	// Timezone is a valid IANA name; store.CreateUser needs one (the tenant's by default).
	Timezone                    *string
	ManagerEmails               [5]*string
	MentorEmail                 *string
	LMSLearnerID, LMSReference  *string
	Active, Creator             *bool
	UserNotificationsEnabled    *bool
	ForcePwdResetNextLogin      *bool
	ManagerEmailReport1stMonth  *bool
	ManagerEmailReport15thMonth *bool
	// PasswordHash is a bcrypt hash; "" removes the password.
	PasswordHash *string
	// Scheduled dates: a zero Day clears.
	DeactivateScheduledDate, ReactivateScheduledDate *ScheduledDate
	// Report frequencies are values of input.ReportFrequencies, or "" (none).
	TeamLeaderReportFrequency, LearnerReportFrequency, AssessorReportFrequency *string
	// DefaultLandingPage is a value of input.LandingPages, or "" (Default).
	DefaultLandingPage *string
	// Roles[i] is the role name of position i+1; "" removes it.
	Roles [5]*string
	// Groups and Goals replace all current ones; nil: not given; empty: remove all.
	Groups, Goals []string
	// CustomFields are the X- properties by the name after the prefix, as sent.
	CustomFields map[string]any
	// SendInvitation (send_invitation) asks store.CreateUser and store.UpdateUser to queue
	// the user's invitation email in the same transaction; an inactive user
	// is not invited and the save still succeeds. Batch saves ignore it: they
	// follow their send_invitations policy.
	SendInvitation bool
}

// ScheduledDate is a requested deactivate or reactivate date.
type ScheduledDate struct {
	// Day is the date at midnight UTC, as input.Date gives it; zero clears.
	Day time.Time
	// Raw is the value as sent, for the error message.
	Raw string
}
