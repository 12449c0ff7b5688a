package records

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"learngate"
	"learngate/input"
	"learngate/store"
)

// Enrolment input (docs/decisions.md, "Enrolments"): the enrolment field groups of
// POST /topic_assignments and of each batch save row, and the enrolment
// list filters. One parser serves both endpoints.

// enrolmentFieldPattern matches an enrolment field: enrolment_code_N and
// its four companions.
var enrolmentFieldPattern = regexp.MustCompile(`^enrolment_code_([0-9]+)(|_due_date|_conquered_date|_certified_date|_skill_attained)$`)

// enrolmentSuffixes are the parts of a field group, in the order they are read.
var enrolmentSuffixes = []string{"", "_due_date", "_conquered_date", "_certified_date", "_skill_attained"}

// enrolmentActionWords are the action words a code may carry.
var enrolmentActionWords = []string{string(learngate.ActionComplete), string(learngate.ActionUpdate), string(learngate.ActionUnenrol)}

// EnrolmentFields reads the enrolment field groups of body in number
// order. Problems (a bad date, an unknown action word, a field of a group
// beyond the fifth, a date without its code) stay with their group, for the
// store to report with its own: the groups are never dropped silently. A
// group whose fields are all absent or empty is no request.
func EnrolmentFields(body map[string]any) []learngate.EnrolmentRequest {
	groups := map[string]map[string]any{}
	for key, v := range body {
		m := enrolmentFieldPattern.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		if groups[m[1]] == nil {
			groups[m[1]] = map[string]any{}
		}
		groups[m[1]][m[2]] = v
	}
	numbers := make([]string, 0, len(groups))
	for n := range groups {
		numbers = append(numbers, n)
	}
	sort.Slice(numbers, func(i, j int) bool {
		a, b := numbers[i], numbers[j]
		return len(a) < len(b) || (len(a) == len(b) && a < b)
	})
	var reqs []learngate.EnrolmentRequest
	for _, n := range numbers {
		if r, ok := parseEnrolmentGroup(n, groups[n]); ok {
			reqs = append(reqs, r)
		}
	}
	return reqs
}

// parseEnrolmentGroup parses field group number n; ok is false when it
// holds nothing.
func parseEnrolmentGroup(n string, fields map[string]any) (learngate.EnrolmentRequest, bool) {
	prefix := "enrolment_code_" + n
	var r learngate.EnrolmentRequest
	r.N, _ = strconv.Atoi(n)
	if code, ok := fields[""].(string); ok {
		r.Raw = strings.TrimSpace(code)
	}
	var given []string
	for _, suffix := range enrolmentSuffixes {
		if v, ok := fields[suffix]; ok && !input.IsClear(v) {
			given = append(given, prefix+suffix)
		}
	}
	if len(given) == 0 {
		return r, false
	}
	if r.N < 1 || r.N > store.MaxEnrolmentCodes || n != strconv.Itoa(r.N) {
		for _, f := range given {
			r.Problems = append(r.Problems, fmt.Sprintf("'%s' is not accepted: at most %d enrolments (enrolment_code_1 to enrolment_code_%d)",
				input.Quote(f), store.MaxEnrolmentCodes, store.MaxEnrolmentCodes))
		}
		return r, true
	}
	if given[0] != prefix {
		for _, f := range given {
			r.Problems = append(r.Problems, fmt.Sprintf("'%s' was given without '%s'", input.Quote(f), prefix))
		}
		return r, true
	}
	if err := parseEnrolmentCode(&r, prefix, fields[""]); err != nil {
		r.Problems = append(r.Problems, learngate.ErrorMessage(err))
	}
	for _, d := range []struct {
		suffix string
		dst    **learngate.EnrolmentDate
	}{{"_due_date", &r.DueDate}, {"_conquered_date", &r.ConqueredDate}, {"_certified_date", &r.CertifiedDate}} {
		v, ok := fields[d.suffix]
		if !ok {
			continue
		}
		date, err := parseEnrolmentDate(prefix+d.suffix, v)
		if err != nil {
			r.Problems = append(r.Problems, learngate.ErrorMessage(err))
		}
		*d.dst = date
	}
	if v, ok := fields["_skill_attained"]; ok {
		skills, err := input.NameList(prefix+"_skill_attained", v)
		if err != nil {
			r.Problems = append(r.Problems, learngate.ErrorMessage(err))
		}
		r.Skills = skills
	}
	return r, true
}

// parseEnrolmentCode splits enrolment_code_N (field) into r's code and
// action word: the code, then optionally white space and one of
// COMPLETE, UPDATE or UNENROL in any letter case.
func parseEnrolmentCode(r *learngate.EnrolmentRequest, field string, v any) error {
	text, err := input.Text(field, v)
	if err != nil {
		return err
	}
	words := strings.Fields(text)
	r.Code = words[0]
	if len(words) == 1 {
		return nil
	}
	word := strings.Join(words[1:], " ")
	action, err := input.OneOf(field, word, enrolmentActionWords)
	if err != nil {
		return learngate.Errorf(learngate.Invalid, "Unknown action '%s' in '%s' for '%s': the action after the code must be COMPLETE, UPDATE or UNENROL",
			input.Quote(word), input.Quote(r.Raw), field)
	}
	r.Action = learngate.EnrolmentAction(action)
	return nil
}

// parseEnrolmentDate parses an enrolment date in the accepted formats; an
// empty value gives a zero date (it clears with UPDATE).
func parseEnrolmentDate(field string, v any) (*learngate.EnrolmentDate, error) {
	if input.IsClear(v) {
		return &learngate.EnrolmentDate{}, nil
	}
	day, err := input.Date(field, v)
	if err != nil {
		return nil, err
	}
	raw, _ := v.(string) // input.Date accepts only strings
	return &learngate.EnrolmentDate{Day: day, Raw: strings.TrimSpace(raw)}, nil
}

// EnrolmentUser reads the user of POST /topic_assignments: user_name
// (any letter case) or user_id (an integer or a numeric string), or both.
func EnrolmentUser(body map[string]any) (learngate.UserRef, error) {
	var who learngate.UserRef
	if v, ok := body["user_name"]; ok && !input.IsClear(v) {
		name, err := input.Text("user_name", v)
		if err != nil {
			return who, err
		}
		name = strings.TrimSpace(name)
		who.UserName = &name
	}
	if v, ok := body["user_id"]; ok && !input.IsClear(v) {
		id, err := input.Int("user_id", v)
		if err != nil {
			return who, err
		}
		who.ID = &id
	}
	if who.UserName == nil && who.ID == nil {
		return who, learngate.Errorf(learngate.Invalid, "Missing parameter 'user_name' (or 'user_id')")
	}
	return who, nil
}
