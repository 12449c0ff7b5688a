package scim

import "strings"

// attrDef is one attribute of a resource schema, as PATCH and the
// translation need it.
type attrDef struct {
	name     string
	multi    bool
	complex  bool
	readOnly bool
	// subs are the sub-attributes of a complex or multi-valued attribute;
	// nil accepts any (attributes learngate ignores).
	subs []string
}

// Resource is the schema of a resource type: its core attributes and, for
// users, the enterprise extension's.
type Resource struct {
	attrs []attrDef
	ext   []attrDef
}

var multiSubs = []string{"value", "display", "type", "primary", "$ref"}

// User is the User resource type with the enterprise extension (RFC 7643 §4.1, §4.3).
var User = Resource{
	attrs: []attrDef{
		{name: "id", readOnly: true}, {name: "externalId"}, {name: "meta", complex: true, readOnly: true},
		{name: "schemas", multi: true, readOnly: true, subs: []string{}},
		{name: "userName"},
		{name: "name", complex: true, subs: []string{"formatted", "familyName", "givenName", "middleName", "honorificPrefix", "honorificSuffix"}},
		{name: "displayName"}, {name: "nickName"}, {name: "profileUrl"}, {name: "title"}, {name: "userType"},
		{name: "preferredLanguage"}, {name: "locale"}, {name: "timezone"}, {name: "active"}, {name: "password"},
		{name: "emails", multi: true, subs: multiSubs},
		{name: "phoneNumbers", multi: true}, {name: "ims", multi: true}, {name: "photos", multi: true},
		{name: "addresses", multi: true}, {name: "groups", multi: true, readOnly: true, subs: multiSubs},
		{name: "entitlements", multi: true}, {name: "roles", multi: true}, {name: "x509Certificates", multi: true},
	},
	ext: []attrDef{
		{name: "employeeNumber"}, {name: "costCenter"}, {name: "organization"}, {name: "division"},
		{name: "department"}, {name: "manager", complex: true, subs: []string{"value", "$ref", "displayName"}},
	},
}

// Group is the Group resource type (RFC 7643 §4.2).
var Group = Resource{
	attrs: []attrDef{
		{name: "id", readOnly: true}, {name: "externalId"}, {name: "meta", complex: true, readOnly: true},
		{name: "schemas", multi: true, readOnly: true, subs: []string{}},
		{name: "displayName"}, {name: "members", multi: true, subs: multiSubs},
	},
}

// find returns the definition of name (any case) among defs.
func find(defs []attrDef, name string) (attrDef, bool) {
	for _, d := range defs {
		if strings.EqualFold(d.name, name) {
			return d, true
		}
	}
	return attrDef{}, false
}

// canonicalSub returns the spelling of sub in d's sub-attributes (sub
// itself when d accepts any); ok is false when d has no such sub-attribute.
func (d attrDef) canonicalSub(sub string) (string, bool) {
	if d.subs == nil {
		return sub, true
	}
	return lookup(sub, d.subs)
}

// canonicalElem returns a copy of an object value with its keys spelled
// as d's sub-attributes (unknown keys kept as sent).
func (d attrDef) canonicalElem(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if c, ok := d.canonicalSub(k); ok {
			k = c
		}
		out[k] = v
	}
	return out
}

// Normalize returns a resource document sent by a client (POST, PUT) with
// the names of the attributes learngate knows, and their sub-attributes,
// spelled canonically; the enterprise extension is found under its URN in
// any case. Unknown attributes are kept as sent.
func (r Resource) Normalize(doc map[string]any) map[string]any {
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		if r.ext != nil && strings.EqualFold(k, EnterpriseSchema) {
			if m, ok := v.(map[string]any); ok {
				out[EnterpriseSchema] = normalizeAttrs(r.ext, m)
			}
			continue
		}
		if d, ok := find(r.attrs, k); ok {
			out[d.name] = d.normalizeValue(v)
			continue
		}
		out[k] = v
	}
	return out
}

func normalizeAttrs(defs []attrDef, m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if d, ok := find(defs, k); ok {
			out[d.name] = d.normalizeValue(v)
			continue
		}
		out[k] = v
	}
	return out
}

func (d attrDef) normalizeValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return d.canonicalElem(x)
	case []any:
		if !d.multi {
			return v
		}
		out := make([]any, len(x))
		for i, e := range x {
			if m, ok := e.(map[string]any); ok {
				out[i] = d.canonicalElem(m)
			} else {
				out[i] = e
			}
		}
		return out
	}
	return v
}
