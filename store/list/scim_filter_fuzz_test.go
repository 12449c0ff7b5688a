package list

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"learngate"
	"learngate/scim"
)

// FuzzSCIMWhere: every filter that parses either becomes SQL whose
// placeholders are exactly its arguments (no value is ever written into
// the SQL) or is refused with 400 invalidFilter; nothing panics.
func FuzzSCIMWhere(f *testing.F) {
	for _, s := range []string{`userName eq "x'; DROP TABLE users; --"`, `emails[type eq "work"].value eq "a"`,
		`externalId pr or not (id eq "7")`, `meta.created gt "2011-05-13T04:42:34Z"`, `groups.value eq "3"`,
		`urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value eq "2"`, `active eq 1`, `title pr`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		expr, err := scim.ParseFilter(raw)
		if err != nil {
			return
		}
		for _, columns := range []map[string]scimColumn{scimUserColumns, scimGroupColumns} {
			q := &Query{}
			cond, err := scimWhere(expr, columns, q)
			if err != nil {
				var e *learngate.Error
				if !errors.As(err, &e) || e.SCIMType != scim.InvalidFilter {
					t.Fatalf("scimWhere(%q) = %v, want invalidFilter", raw, err)
				}
				continue
			}
			if strings.Contains(cond, "'") && !strings.Contains(cond, "' '") && !strings.Contains(cond, "''") {
				t.Fatalf("scimWhere(%q) wrote a literal: %s", raw, cond)
			}
			for i := range q.Args() {
				if !strings.Contains(cond, "$"+strconv.Itoa(i+1)) {
					t.Fatalf("scimWhere(%q): argument %d unused in %s", raw, i+1, cond)
				}
			}
		}
	})
}
