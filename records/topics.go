package records

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"learngate"
	"learngate/input"
	"learngate/store"
)

// Limits of topic and pathway fields (docs/decisions.md, Topics and pathways).
const (
	// maxTitleLength is the longest title and external_id, in characters.
	maxTitleLength = 255
	// maxCodeLength is the longest enrolment code, in characters.
	maxCodeLength = 64
	// maxWhole is the largest minutes, cpd_minutes and certify_days (a PostgreSQL integer).
	maxWhole = math.MaxInt32
	// maxPoints is the largest category points value (numeric(12,2)).
	maxPoints = 9999999999.99
)

// catalogParser reads the fields topics and pathways share from a decoded
// body (decodeUserBody), checking each value's form with the input
// package. Every failure is Invalid (400) with a sentence naming the field
// and the value as sent. A field that is absent gives nil: not given.
type catalogParser struct {
	body     map[string]any
	creating bool
}

// title is required on create and can never be emptied; it is trimmed.
func (p catalogParser) title() (*string, error) {
	v, ok := p.body["title"]
	if !ok && !p.creating {
		return nil, nil
	}
	s, err := input.Text("title", v)
	if err != nil {
		return nil, err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, input.IllegalValue("title", v)
	}
	return p.limit("title", s, maxTitleLength)
}

// text is an optional text field, trimmed; "" or null clears it.
func (p catalogParser) text(field string, max int) (*string, error) {
	v, ok := p.body[field]
	if !ok {
		return nil, nil
	}
	s, err := input.Text(field, v)
	if err != nil {
		return nil, err
	}
	return p.limit(field, strings.TrimSpace(s), max)
}

// limit refuses s when it is longer than max characters or holds a NUL
// character, which PostgreSQL text cannot store.
func (p catalogParser) limit(field, s string, max int) (*string, error) {
	if strings.ContainsRune(s, 0) {
		return nil, input.IllegalValue(field, s)
	}
	if utf8.RuneCountInString(s) > max {
		return nil, learngate.Errorf(learngate.Invalid, "%s is too long (at most %d characters)", field, max)
	}
	return &s, nil
}

// boolean is a spec boolean (input.Bool); it cannot be cleared.
func (p catalogParser) boolean(field string) (*bool, error) {
	v, ok := p.body[field]
	if !ok {
		return nil, nil
	}
	b, err := input.Bool(field, v)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// whole is a whole number from min to maxWhole; "" or null restores def.
func (p catalogParser) whole(field string, min int64, def int) (*int, error) {
	v, ok := p.body[field]
	if !ok {
		return nil, nil
	}
	n, err := wholeValue(field, v, min, def)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// wholeValue parses v as a whole number from min to maxWhole (input.Int);
// "" or null gives def.
func wholeValue(field string, v any, min int64, def int) (int, error) {
	if input.IsClear(v) {
		return def, nil
	}
	n, err := input.Int(field, v)
	if err != nil {
		return 0, err
	}
	if n < min || n > maxWhole {
		return 0, input.IllegalValue(field, v)
	}
	return int(n), nil
}

// certifyDays is a positive whole number of days; "" or null clears it,
// which the store input writes as 0.
func (p catalogParser) certifyDays() (*int, error) {
	return p.whole("certify_days", 1, 0)
}

// skills are names joined with ';' or an array of names (input.NameList);
// "", null and [] remove them all.
func (p catalogParser) skills() ([]string, error) {
	v, ok := p.body["skills"]
	if !ok {
		return nil, nil
	}
	return input.NameList("skills", v)
}

// enrolmentCode is trimmed and may hold no white space or control
// characters, since an action word follows it in enrolment requests
// (docs/decisions.md, "Enrolments"). "" or null asks for a generated code.
func (p catalogParser) enrolmentCode() (*string, error) {
	const field = "enrolment_code"
	s, err := p.text(field, maxCodeLength)
	if err != nil || s == nil {
		return nil, err
	}
	for _, r := range *s {
		if unicode.IsSpace(r) || !unicode.IsGraphic(r) {
			return nil, learngate.Errorf(learngate.Invalid,
				"enrolment_code '%s' must not contain white space or control characters", p.body[field])
		}
	}
	return s, nil
}

// list returns the items of an array field: nil when the field is absent,
// an empty slice when it is "", null or []. Anything but an array of JSON
// objects is Invalid naming field.
func (p catalogParser) list(field string) ([]map[string]any, error) {
	v, ok := p.body[field]
	if !ok {
		return nil, nil
	}
	if input.IsClear(v) {
		return []map[string]any{}, nil
	}
	items, ok := v.([]any)
	if !ok {
		return nil, input.IllegalValue(field, v)
	}
	objects := make([]map[string]any, len(items))
	for i, item := range items {
		obj, ok := item.(map[string]any)
		if !ok {
			return nil, input.IllegalValue(field, item)
		}
		objects[i] = obj
	}
	return objects, nil
}

// categories parses a topic's [{name, minutes, points}]: name required,
// minutes a whole number ≥ 0 (default 0), points a number ≥ 0 rounded to 2
// decimal places (input.Points, default 0). Whether each name is in the
// catalog is the store's check.
func (p catalogParser) categories() ([]learngate.TopicCategoryInput, error) {
	items, err := p.list("categories")
	if err != nil || items == nil {
		return nil, err
	}
	cats := make([]learngate.TopicCategoryInput, len(items))
	for i, item := range items {
		name, err := input.Text("categories.name", item["name"])
		if err != nil {
			return nil, err
		}
		if cats[i].Name = strings.TrimSpace(name); cats[i].Name == "" || strings.ContainsRune(name, 0) {
			return nil, input.IllegalValue("categories.name", item["name"])
		}
		if cats[i].Minutes, err = wholeValue("categories.minutes", item["minutes"], 0, 0); err != nil {
			return nil, err
		}
		if v := item["points"]; !input.IsClear(v) {
			points, err := input.Points("categories.points", v)
			if err != nil {
				return nil, err
			}
			if points < 0 || points > maxPoints {
				return nil, input.IllegalValue("categories.points", v)
			}
			cats[i].Points = points
		}
	}
	return cats, nil
}

// pathwayTopics parses a pathway's [{topic_id, mandatory}] in order:
// topic_id a whole number (required), mandatory a boolean (default true).
// Whether each id is a topic of the tenant is the store's check.
func (p catalogParser) pathwayTopics() ([]learngate.PathwayTopicInput, error) {
	items, err := p.list("topics")
	if err != nil || items == nil {
		return nil, err
	}
	topics := make([]learngate.PathwayTopicInput, len(items))
	for i, item := range items {
		id, err := input.Int("topics.topic_id", item["topic_id"])
		if err != nil {
			return nil, err
		}
		topics[i].TopicID = id
		if v := item["mandatory"]; !input.IsClear(v) {
			mandatory, err := input.Bool("topics.mandatory", v)
			if err != nil {
				return nil, err
			}
			topics[i].Mandatory = &mandatory
		}
	}
	return topics, nil
}

// ParseTopic converts a topic body into a learngate.TopicInput, checking
// the fields in the order of docs/decisions.md, "Catalog, topics and pathways"; the first bad value
// stops it. Properties it does not know are ignored.
func ParseTopic(body map[string]any, creating bool) (learngate.TopicInput, error) {
	p := catalogParser{body: body, creating: creating}
	var in learngate.TopicInput
	var err error
	if in.Title, err = p.title(); err != nil {
		return in, err
	}
	if in.KnowledgeType, err = p.whole("knowledge_type", store.KnowledgeTopic, store.KnowledgeTopic); err != nil {
		return in, err
	}
	if in.KnowledgeType != nil && *in.KnowledgeType != store.KnowledgeTopic && *in.KnowledgeType != store.KnowledgeArticle {
		return in, input.IllegalValue("knowledge_type", body["knowledge_type"])
	}
	if in.ExternalID, err = p.text("external_id", maxTitleLength); err != nil {
		return in, err
	}
	if in.ShowCertificate, err = p.boolean("show_certificate"); err != nil {
		return in, err
	}
	if in.RecertificationAllowed, err = p.boolean("recertification_allowed"); err != nil {
		return in, err
	}
	if in.CertifyDays, err = p.certifyDays(); err != nil {
		return in, err
	}
	if in.Minutes, err = p.whole("minutes", 0, 0); err != nil {
		return in, err
	}
	if in.CPDMinutes, err = p.whole("cpd_minutes", 0, 0); err != nil {
		return in, err
	}
	if in.Skills, err = p.skills(); err != nil {
		return in, err
	}
	if in.Categories, err = p.categories(); err != nil {
		return in, err
	}
	in.EnrolmentCode, err = p.enrolmentCode()
	return in, err
}

// ParsePathway converts a pathway body into a learngate.PathwayInput,
// checking the fields in the order of docs/decisions.md, "Catalog, topics and pathways"; the first bad
// value stops it. Properties it does not know are ignored.
func ParsePathway(body map[string]any, creating bool) (learngate.PathwayInput, error) {
	p := catalogParser{body: body, creating: creating}
	var in learngate.PathwayInput
	var err error
	if in.Title, err = p.title(); err != nil {
		return in, err
	}
	if in.ExternalID, err = p.text("external_id", maxTitleLength); err != nil {
		return in, err
	}
	if in.ShowCertificate, err = p.boolean("show_certificate"); err != nil {
		return in, err
	}
	if in.RecertificationAllowed, err = p.boolean("recertification_allowed"); err != nil {
		return in, err
	}
	if in.CertifyDays, err = p.certifyDays(); err != nil {
		return in, err
	}
	if in.Ordered, err = p.boolean("ordered"); err != nil {
		return in, err
	}
	if in.Topics, err = p.pathwayTopics(); err != nil {
		return in, err
	}
	if in.Skills, err = p.skills(); err != nil {
		return in, err
	}
	in.EnrolmentCode, err = p.enrolmentCode()
	return in, err
}
