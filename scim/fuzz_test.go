package scim

import (
	"errors"
	"testing"

	"learngate"
)

// scimTypeOf is the scimType of err (a *learngate.Error), or "" when err is another error.
func scimTypeOf(err error) string {
	var e *learngate.Error
	if errors.As(err, &e) && e.Code == learngate.Invalid {
		return e.SCIMType
	}
	return ""
}

var filterSeeds = []string{
	`userName eq "bjensen"`, `name.familyName co "O'Malley"`, `userName sw "J"`,
	`urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"`, `title pr`, `meta.lastModified gt "2011-05-13T04:42:34Z"`,
	`title pr and userType eq "Employee"`, `title pr or userType eq "Intern"`,
	`userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")`,
	`userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")`,
	`emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]`,
	`emails[type eq "work"].value eq "x"`, `emails[type eq "work" or type eq "home"].value eq "x"`,
	`a[b[c]].d eq "`, `]].x eq 1`, `((((`, `userName eq "a\"b"`, "",
}

// FuzzParseFilter: no input panics, and every refusal is 400 invalidFilter.
func FuzzParseFilter(f *testing.F) {
	for _, s := range filterSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		_, err := ParseFilter(raw)
		if err != nil && scimTypeOf(err) != InvalidFilter {
			t.Fatalf("ParseFilter(%q) = %v, want invalidFilter", raw, err)
		}
	})
}

// FuzzPatchPath: no path panics, and applying an operation to a user
// document either works or is a 400 with a scimType.
func FuzzPatchPath(f *testing.F) {
	for _, s := range []string{`emails[type eq "work"].value`, `members[value eq "12"]`, `name.givenName`,
		`urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager`, `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User`,
		`addresses[type eq "work"].streetAddress`, `emails[value co "x" and not (type eq "home")]`, `x[`, `a.b.c`, `groups`} {
		f.Add(s, "replace")
		f.Add(s, "remove")
	}
	f.Fuzz(func(t *testing.T, path, op string) {
		if _, err := ParsePath(path); err != nil && scimTypeOf(err) != InvalidPath {
			t.Fatalf("ParsePath(%q) = %v, want invalidPath", path, err)
		}
		doc := map[string]any{"userName": "a", "name": map[string]any{"givenName": "A"},
			"emails": []any{map[string]any{"value": "a@example.com", "type": "work", "primary": true}}}
		ops, err := ParsePatchOp(map[string]any{"Operations": []any{map[string]any{"op": op, "path": path, "value": "v"}}})
		if err != nil {
			if scimTypeOf(err) == "" {
				t.Fatalf("ParsePatchOp(%q, %q) = %v", op, path, err)
			}
			return
		}
		if err := User.Apply(doc, ops); err != nil && scimTypeOf(err) == "" {
			t.Fatalf("Apply(%q, %q) = %v, want a 400 with a scimType", op, path, err)
		}
		if _, err := GroupChange(ops); err != nil && scimTypeOf(err) == "" {
			t.Fatalf("GroupChange(%q, %q) = %v, want a 400 with a scimType", op, path, err)
		}
	})
}
