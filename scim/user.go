package scim

import (
	"strconv"
	"strings"

	"learngate/input"
)

// UserWrite is a SCIM User document translated for learngate: Body is a
// Public API user body for records.ParseUser (creating: every required
// field from the document), the rest what the API's body cannot carry.
type UserWrite struct {
	Body map[string]any
	// ExternalID is the externalId (nil clears it).
	ExternalID *string
	// ManagerID is the SCIM id of the manager; nil when there is none, and
	// Body then clears manager_email.
	ManagerID *int64
}

// UserBody translates a User document (Normalize'd, or learngate's own
// rendering after a PATCH) into a UserWrite with replace semantics: the
// mapped attributes that are absent are cleared where the API allows
// clearing (docs/scim.md, "Attribute mapping"). creating adds what a user
// created through SCIM has (login external). password and the attributes
// learngate does not map are ignored. Values of the wrong type are 400
// invalidValue.
func UserBody(doc map[string]any, creating bool) (UserWrite, error) {
	body := map[string]any{}
	w := UserWrite{Body: body}
	if v, ok := doc["userName"]; ok {
		body["user_name"] = v
	}
	if name, ok := doc["name"].(map[string]any); ok {
		if v, ok := name["givenName"]; ok {
			body["first_name"] = v
		}
		if v, ok := name["familyName"]; ok {
			body["last_name"] = v
		}
	} else if v, ok := doc["name"]; ok && v != nil {
		return w, Errorf(InvalidValue, "name must be an object")
	}
	email, err := pickEmail(doc["emails"])
	if err != nil {
		return w, err
	}
	if email != nil {
		body["email"] = email
	}
	if v, ok := doc["active"]; ok && v != nil {
		b, err := input.Bool("active", v)
		if err != nil {
			return w, Errorf(InvalidValue, "active must be a boolean")
		}
		body["active"] = b
	}
	body["type"] = ""
	if v, ok := doc["userType"].(string); ok {
		if t, found := lookup(strings.TrimSpace(v), input.UserTypes); found {
			body["type"] = t
		} else {
			delete(body, "type") // a type learngate does not have is ignored
		}
	}
	body["language"] = ""
	for _, attr := range []string{"locale", "preferredLanguage"} { // preferredLanguage wins
		if v, ok := doc[attr].(string); ok && strings.TrimSpace(v) != "" {
			if lang, found := Language(v); found {
				body["language"] = lang
			} else if body["language"] == "" {
				delete(body, "language") // a language learngate does not have is ignored
			}
		}
	}
	body["timezone"] = ""
	if v, ok := doc["timezone"]; ok && v != nil {
		body["timezone"] = v
	}
	body["lms_learner_id"] = ""
	body["manager_email"] = ""
	if ext, ok := doc[EnterpriseSchema].(map[string]any); ok {
		if v, ok := ext["employeeNumber"]; ok && v != nil {
			body["lms_learner_id"] = v
		}
		if m, ok := ext["manager"]; ok && m != nil {
			id, err := managerID(m)
			if err != nil {
				return w, err
			}
			if id != nil {
				w.ManagerID = id
				delete(body, "manager_email") // the store sets it from the id
			}
		}
	}
	if v, ok := doc["externalId"]; ok && v != nil {
		s, isString := v.(string)
		if !isString {
			return w, Errorf(InvalidValue, "externalId must be a string")
		}
		if s != "" {
			w.ExternalID = &s
		}
	}
	if creating {
		body["login"] = "external"
	}
	return w, nil
}

// pickEmail returns the email of an emails value: the primary one, else
// the one of type work, else the first; nil when there is none.
func pickEmail(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, Errorf(InvalidValue, "emails must be an array")
	}
	var primary, work, first map[string]any
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, Errorf(InvalidValue, "each email must be an object")
		}
		if first == nil {
			first = m
		}
		if p, _ := field(m, "primary"); primary == nil {
			if b, ok := asBool(p); ok && b {
				primary = m
			}
		}
		if t, _ := field(m, "type"); work == nil {
			if s, ok := t.(string); ok && strings.EqualFold(s, "work") {
				work = m
			}
		}
	}
	for _, m := range []map[string]any{primary, work, first} {
		if m != nil {
			value, _ := field(m, "value")
			return value, nil
		}
	}
	return nil, nil
}

// managerID reads the enterprise manager: {"value": "<id>"} (or the id
// itself); nil when its value is empty. An id that is no user id is 400
// invalidValue.
func managerID(m any) (*int64, error) {
	var v any = m
	if obj, ok := m.(map[string]any); ok {
		v, _ = field(obj, "value")
	}
	if v == nil {
		return nil, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, Errorf(InvalidValue, "manager.value must be a string")
	}
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || id <= 0 {
		return nil, Errorf(InvalidValue, "manager %q is no user", s)
	}
	return &id, nil
}

// Language maps a preferredLanguage or locale to one of learngate's
// languages: an exact match (any case, '_' read as '-'), else its
// shortest-but-one prefixes in turn (en-US → en, zh-Hans-CN → zh-Hans).
func Language(tag string) (string, bool) {
	tag = strings.ReplaceAll(strings.TrimSpace(tag), "_", "-")
	for tag != "" {
		if l, ok := lookup(tag, input.Languages); ok {
			return l, true
		}
		i := strings.LastIndexByte(tag, '-')
		if i < 0 {
			break
		}
		tag = tag[:i]
	}
	return "", false
}

// ParseID reads a resource id from a path: nil when it is no id learngate
// gives (the caller answers 404).
func ParseID(s string) (int64, bool) {
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil && id > 0 && strconv.FormatInt(id, 10) == s
}
