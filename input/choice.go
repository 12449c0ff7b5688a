package input

import "strings"

// The spec's fixed value lists, each in its canonical spelling. Treat them as
// read-only.
var (
	// UserTypes are the values of a user's type.
	UserTypes = []string{
		"Client", "Contractor", "Customer", "Director", "Employee", "Lead", "Member", "Parent", "Partner",
		"Practitioner", "Prospect", "Staff", "Student", "Subscriber", "Supporter", "Volunteer", "Worker",
	}
	// Languages are the values of a user's language.
	Languages = []string{
		"en", "fj", "fr", "de", "hi-IN", "id", "it", "ja", "ko", "mi", "ms", "ne",
		"pa-IN", "pt", "sm", "zh-Hans", "es", "tl", "ta", "te", "th", "to", "zh-Hant-HK", "vi",
	}
	// ReportFrequencies are the values of the *_report_frequency user fields.
	ReportFrequencies = []string{
		"every_half", "every_quarter", "once_a_month", "twice_a_month", "every_monday", "every_tuesday",
		"every_wednesday", "every_thursday", "every_friday", "every_weekday", "every_day",
	}
	// LandingPages are the values of a user's default_landing_page.
	LandingPages = []string{
		"Assess", "Create", "Admin", "Dashboard - Overview", "Dashboard - Calendar", "Training - Enrolments", "Profile",
	}
	// Logins are the values of a user's login.
	Logins = []string{"internal", "external"}
	// KnowledgeTypes are the external knowledge types: KnowledgeTypes[n-1] is knowledge_type n.
	KnowledgeTypes = []string{"Training", "Certificate", "Qualification", "License", "Document", "Development Plan"}
	// DevelopmentPlanStages are the values of development_plan_stage (stored in code).
	DevelopmentPlanStages = []string{"Initial", "Mid Review", "End Review"}
	// DevelopmentFocuses are the values of development_focus.
	DevelopmentFocuses = []string{"At Level", "Transition", "Progression"}
)

// DefaultUserType is the type of a user created without one.
const DefaultUserType = "Staff"

// OneOf matches a string value, trimmed, against allowed ignoring case and
// returns allowed's canonical spelling. An unmatched string, "", null or any
// other type gives IllegalValue.
func OneOf(field string, v any, allowed []string) (string, error) {
	if s, ok := v.(string); ok {
		if c, found := match(s, allowed); found {
			return c, nil
		}
	}
	return "", IllegalValue(field, v)
}

// OneOfOrIgnore is OneOf for fields whose unrecognised values are ignored
// (language, default_landing_page): a match gives (canonical, true, nil); an
// unmatched string, "" or null gives ("", false, nil), meaning leave the
// field as it is. Only a value that is not a string (a number, a boolean, an
// array, an object) gives IllegalValue.
func OneOfOrIgnore(field string, v any, allowed []string) (string, bool, error) {
	switch s := v.(type) {
	case nil:
		return "", false, nil
	case string:
		c, found := match(s, allowed)
		return c, found, nil
	}
	return "", false, IllegalValue(field, v)
}

// ReportFrequency parses a *_report_frequency field: one of
// ReportFrequencies ignoring case, in canonical spelling; "none" (any case),
// "" and null clear it and give "". Any other value gives IllegalValue.
func ReportFrequency(field string, v any) (string, error) {
	if IsClear(v) {
		return "", nil
	}
	if s, ok := v.(string); ok && strings.EqualFold(strings.TrimSpace(s), "none") {
		return "", nil
	}
	return OneOf(field, v, ReportFrequencies)
}

// match returns the element of allowed equal to s, trimmed, ignoring case.
func match(s string, allowed []string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, a := range allowed {
		if strings.EqualFold(s, a) {
			return a, true
		}
	}
	return "", false
}
