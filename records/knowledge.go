package records

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"learngate"
	"learngate/input"
	"learngate/store"
)

// Limits of external knowledge text fields, in characters.
const (
	maxKnowledgeText  = 255
	maxKnowledgeNotes = 10000
	// MaxCategoryPoints bounds points: they are stored as numeric(12,2).
	MaxCategoryPoints = 1e10
)

// knowledgeParser converts one external knowledge body into a
// learngate.KnowledgeInput (docs/api.md and docs/decisions.md, "External
// knowledge"), field by field in the order of the
// spec's table (user_name first, the Development Plan fields after
// document_type); the first problem stops it. Rules that depend on a stored
// record (its type, its user) are the store's.
type knowledgeParser struct {
	body     map[string]any
	creating bool
	in       learngate.KnowledgeInput
}

// ParseKnowledge parses body for a create (creating; today is the
// default date_obtained) or an update. Unknown properties are ignored.
func ParseKnowledge(body map[string]any, creating bool, today time.Time) (learngate.KnowledgeInput, error) {
	p := &knowledgeParser{body: body, creating: creating}
	if err := p.parse(today); err != nil {
		return learngate.KnowledgeInput{}, err
	}
	return p.in, nil
}

func (p *knowledgeParser) parse(today time.Time) error {
	in := &p.in
	var err error
	if err = p.userName(); err != nil {
		return err
	}
	if err = p.knowledgeType(); err != nil {
		return err
	}
	if in.DocumentType, err = p.text("document_type", "", maxKnowledgeText); err != nil {
		return err
	}
	if in.DevelopmentPlanStage, err = p.choice("development_plan_stage", input.DevelopmentPlanStages); err != nil {
		return err
	}
	if in.DevelopmentFocus, err = p.choice("development_focus", input.DevelopmentFocuses); err != nil {
		return err
	}
	if err = p.title(); err != nil {
		return err
	}
	if err = p.texts(textField{"code", "", &in.Code}, textField{"provider", "", &in.Provider}); err != nil {
		return err
	}
	if in.DateObtained, err = p.date("date_obtained", "date", false); err != nil {
		return err
	}
	if in.DateObtained == nil && p.creating {
		in.DateObtained = &today
	}
	err = p.texts(textField{"certificate_number", "", &in.CertificateNumber},
		textField{"country_obtained", "", &in.CountryObtained}, textField{"state_obtained", "region_obtained", &in.StateObtained})
	if err != nil {
		return err
	}
	if in.Expires, err = p.date("expires", "", true); err != nil {
		return err
	}
	if in.QualificationLevel, err = p.text("qualification_level", "", maxKnowledgeText); err != nil {
		return err
	}
	if err = p.numbers(); err != nil {
		return err
	}
	if in.Notes, err = p.text("notes", "", maxKnowledgeNotes); err != nil {
		return err
	}
	if in.Klass, err = p.text("klass", "class", maxKnowledgeText); err != nil {
		return err
	}
	if v, ok := p.body["skills_attained"]; ok {
		if in.Skills, err = input.NameList("skills_attained", v); err != nil {
			return err
		}
	}
	in.Categories, err = p.categories()
	return err
}

// missing is the 400 of a required field that was not sent.
func MissingParameter(field string) error {
	return learngate.Errorf(learngate.Invalid, "Missing parameter '%s'", field)
}

// lookup returns the value of field, or of its alias when field was not
// sent, and the name it came under.
func (p *knowledgeParser) lookup(field, alias string) (string, any, bool) {
	if v, ok := p.body[field]; ok || alias == "" {
		return field, v, ok
	}
	v, ok := p.body[alias]
	return alias, v, ok
}

// userName: required to create; on update, when given, the store checks it
// names the record's user. Kept as sent; the store trims and lower-cases.
func (p *knowledgeParser) userName() error {
	v, ok := p.body["user_name"]
	if !p.creating && (!ok || input.IsClear(v)) {
		return nil
	}
	s, err := input.Text("user_name", v)
	if err != nil {
		return err
	}
	if strings.TrimSpace(s) == "" {
		return MissingParameter("user_name")
	}
	p.in.UserName = &s
	return nil
}

// knowledgeType reads knowledge_type (1..6, a number or numeric string)
// and type (its name, any case). Both may be sent when they agree; one is
// required to create.
func (p *knowledgeParser) knowledgeType() error {
	var fromNumber, fromName int
	if v, ok := p.body["knowledge_type"]; ok {
		n, err := input.Int("knowledge_type", v)
		if err != nil || n < 1 || n > int64(len(input.KnowledgeTypes)) {
			return input.IllegalValue("knowledge_type", v)
		}
		fromNumber = int(n)
	}
	if v, ok := p.body["type"]; ok {
		name, err := input.OneOf("type", v, input.KnowledgeTypes)
		if err != nil {
			return err
		}
		for i, t := range input.KnowledgeTypes {
			if t == name {
				fromName = i + 1
			}
		}
	}
	switch {
	case fromNumber != 0 && fromName != 0 && fromNumber != fromName:
		return learngate.Errorf(learngate.Invalid, "'knowledge_type' %d and 'type' '%s' name different types",
			fromNumber, input.KnowledgeTypes[fromName-1])
	case fromNumber != 0:
		p.in.KnowledgeType = &fromNumber
	case fromName != 0:
		p.in.KnowledgeType = &fromName
	case p.creating:
		return learngate.Errorf(learngate.Invalid, "Missing parameter 'knowledge_type' or 'type'")
	}
	return nil
}

// text returns the trimmed text of field (or its alias), nil when not
// sent; "" or null clears. Not a string, or over max characters, is 400.
func (p *knowledgeParser) text(field, alias string, max int) (*string, error) {
	name, v, ok := p.lookup(field, alias)
	if !ok {
		return nil, nil
	}
	s, err := input.Text(name, v)
	if err != nil {
		return nil, err
	}
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > max {
		return nil, learngate.Errorf(learngate.Invalid, "'%s' is too long (at most %d characters)", name, max)
	}
	return &s, nil
}

// textField is a text field of at most maxKnowledgeText characters, an
// alias it may be sent under ("" for none) and where its value goes.
type textField struct {
	field, alias string
	dst          **string
}

// texts reads fields in order with text; the first problem stops it.
func (p *knowledgeParser) texts(fields ...textField) error {
	for _, f := range fields {
		v, err := p.text(f.field, f.alias, maxKnowledgeText)
		if err != nil {
			return err
		}
		*f.dst = v
	}
	return nil
}

// choice reads a field with a fixed list of values, in canonical spelling;
// "" or null clears it.
func (p *knowledgeParser) choice(field string, allowed []string) (*string, error) {
	v, ok := p.body[field]
	if !ok {
		return nil, nil
	}
	s := ""
	if !input.IsClear(v) {
		var err error
		if s, err = input.OneOf(field, v, allowed); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

// title: required to create anything but a Development Plan (whose title
// the store sets); it can never be emptied.
func (p *knowledgeParser) title() error {
	s, err := p.text("title", "", maxKnowledgeText)
	switch {
	case err != nil:
		return err
	case s != nil && *s == "":
		return input.IllegalValue("title", p.body["title"])
	case s == nil && p.creating && *p.in.KnowledgeType != learngate.KnowledgeDevelopmentPlan:
		return MissingParameter("title")
	}
	p.in.Title = s
	return nil
}

// date reads a date in the accepted formats; when clearable, "" or null
// gives the zero time (clear), else it is 400.
func (p *knowledgeParser) date(field, alias string, clearable bool) (*time.Time, error) {
	name, v, ok := p.lookup(field, alias)
	if !ok {
		return nil, nil
	}
	if clearable && input.IsClear(v) {
		return &time.Time{}, nil
	}
	d, err := input.Date(name, v)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// numbers reads assessment_score (a decimal) and total_time (whole
// minutes); "" or null sets them back to 0.
func (p *knowledgeParser) numbers() error {
	if v, ok := p.body["assessment_score"]; ok {
		score := 0.0
		if !input.IsClear(v) {
			var err error
			if score, err = input.Decimal("assessment_score", v); err != nil {
				return err
			}
		}
		p.in.AssessmentScore = &score
	}
	if v, ok := p.body["total_time"]; ok {
		minutes := 0
		if !input.IsClear(v) {
			var err error
			if minutes, err = wholeMinutes("total_time", v); err != nil {
				return err
			}
		}
		p.in.TotalTime = &minutes
	}
	return nil
}

// wholeMinutes parses a number of minutes: a whole number from 0 to the
// largest PostgreSQL integer.
func wholeMinutes(field string, v any) (int, error) {
	n, err := input.Int(field, v)
	if err != nil || n < 0 || n > math.MaxInt32 {
		return 0, input.IllegalValue(field, v)
	}
	return int(n), nil
}

// categoryPoints parses points: a number, rounded to 2 places, from 0 to
// below MaxCategoryPoints.
func categoryPoints(field string, v any) (float64, error) {
	f, err := input.Points(field, v)
	if err != nil || f < 0 || f >= MaxCategoryPoints {
		return 0, input.IllegalValue(field, v)
	}
	return f, nil
}

// categories reads category_N_name, category_N_points and
// category_N_minutes for N in 1..3, or the array categories of {name,
// points, minutes} objects (not both). nil when none was sent, so the
// record's categories stay; otherwise the full new set, in order. A slot
// whose name is empty is left out; points and minutes without a name are 400.
func (p *knowledgeParser) categories() ([]learngate.KnowledgeCategoryInput, error) {
	if err := p.checkCategorySlots(); err != nil {
		return nil, err
	}
	var cats []learngate.KnowledgeCategoryInput
	for n := 1; n <= store.MaxKnowledgeCategories; n++ {
		prefix := fmt.Sprintf("category_%d_", n)
		_, hasName := p.body[prefix+"name"]
		_, hasPoints := p.body[prefix+"points"]
		_, hasMinutes := p.body[prefix+"minutes"]
		if !hasName && !hasPoints && !hasMinutes {
			continue
		}
		if cats == nil {
			cats = []learngate.KnowledgeCategoryInput{}
		}
		keys := [3]string{prefix + "name", prefix + "points", prefix + "minutes"}
		c, err := category(p.body, keys, keys)
		if err != nil {
			return nil, err
		}
		if c != nil {
			cats = append(cats, *c)
		}
	}
	v, ok := p.body["categories"]
	switch {
	case !ok:
		return cats, nil
	case cats != nil:
		return nil, learngate.Errorf(learngate.Invalid,
			"send categories either as 'categories' or as 'category_N_...' fields, not both")
	case input.IsClear(v):
		return []learngate.KnowledgeCategoryInput{}, nil
	}
	items, isArray := v.([]any)
	if !isArray {
		return nil, input.IllegalValue("categories", v)
	}
	if len(items) > store.MaxKnowledgeCategories {
		return nil, learngate.Errorf(learngate.Invalid, "'categories' may hold at most %d categories, %d given",
			store.MaxKnowledgeCategories, len(items))
	}
	cats = []learngate.KnowledgeCategoryInput{}
	for i, item := range items {
		obj, isObject := item.(map[string]any)
		if !isObject {
			return nil, input.IllegalValue(fmt.Sprintf("categories[%d]", i), item)
		}
		prefix := fmt.Sprintf("categories[%d].", i)
		c, err := category(obj, [3]string{"name", "points", "minutes"},
			[3]string{prefix + "name", prefix + "points", prefix + "minutes"})
		if err != nil {
			return nil, err
		}
		if c == nil {
			return nil, MissingParameter(prefix + "name")
		}
		cats = append(cats, *c)
	}
	return cats, nil
}

// category reads one category from obj: its name, points and minutes are
// the properties props, errors name them as fields. nil when the name is
// empty and there are no points or minutes.
func category(obj map[string]any, props, fields [3]string) (*learngate.KnowledgeCategoryInput, error) {
	name, err := input.Text(fields[0], obj[props[0]])
	if err != nil {
		return nil, err
	}
	pointsV, hasPoints := obj[props[1]]
	minutesV, hasMinutes := obj[props[2]]
	hasPoints = hasPoints && !input.IsClear(pointsV)
	hasMinutes = hasMinutes && !input.IsClear(minutesV)
	c := learngate.KnowledgeCategoryInput{Field: fields[0], Name: strings.TrimSpace(name)}
	if c.Name == "" {
		if hasPoints || hasMinutes {
			return nil, MissingParameter(fields[0])
		}
		return nil, nil
	}
	if hasPoints {
		if c.Points, err = categoryPoints(fields[1], pointsV); err != nil {
			return nil, err
		}
	}
	if hasMinutes {
		if c.Minutes, err = wholeMinutes(fields[2], minutesV); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// checkCategorySlots refuses category_N_... fields for an N outside 1..3
// (Limits: 3 categories per record), naming the first in sort order.
func (p *knowledgeParser) checkCategorySlots() error {
	var bad []string
	for key := range p.body {
		rest, ok := strings.CutPrefix(key, "category_")
		if !ok {
			continue
		}
		num, part, ok := strings.Cut(rest, "_")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || (part != "name" && part != "points" && part != "minutes") {
			continue
		}
		if n < 1 || n > store.MaxKnowledgeCategories {
			bad = append(bad, key)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return learngate.Errorf(learngate.Invalid, "Unknown parameter '%s': a record has at most %d categories (category_1 to category_%d)",
		bad[0], store.MaxKnowledgeCategories, store.MaxKnowledgeCategories)
}

// knowledgeBatchRow parses one record of a batch as for POST
// /external_knowledges; its fault, if any, is kept for the store to report
// in record order.
func knowledgeBatchRow(item any, today time.Time) learngate.KnowledgeBatchRow {
	fields, ok := item.(map[string]any)
	if !ok {
		return learngate.KnowledgeBatchRow{Err: learngate.Errorf(learngate.Invalid, "each external knowledge must be a JSON object")}
	}
	row := learngate.KnowledgeBatchRow{}
	if name, ok := fields["user_name"].(string); ok {
		row.UserName = &name
	}
	row.In, row.Err = ParseKnowledge(fields, true, today)
	return row
}
