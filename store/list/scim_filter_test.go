package list

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"learngate"
	"learngate/scim"
)

// TestSCIMFilterTranslation: a filter, parsed (scim.ParseFilter) and
// translated (scimWhere) for Users, gives this SQL condition and these
// arguments, or this 400 invalidFilter message of learngate's own: never a
// parser's text, and a number out of range (issue 27, finding 7) is
// refused instead of read as another number.
func TestSCIMFilterTranslation(t *testing.T) {
	created := time.Date(2011, 5, 13, 4, 42, 34, 0, time.UTC)
	long := strings.Repeat("9", 300)
	for _, c := range []struct {
		filter string
		cond   string
		args   []any
		err    string // the invalidFilter message, when refused
	}{
		{filter: `userName eq "Ann"`, cond: `users.user_name = lower($1)`, args: []any{"Ann"}},
		{filter: `USERNAME Eq "ann"`, cond: `users.user_name = lower($1)`, args: []any{"ann"}},
		{filter: `externalId eq "X-1"`, cond: `users.scim_external_id = $1`, args: []any{"X-1"}},
		{filter: `active eq true`, cond: `users.active = $1`, args: []any{true}},
		{filter: `id eq "7"`, cond: `users.id = $1`, args: []any{int64(7)}},
		{filter: `id eq "x"`, cond: `false`},
		{filter: `meta.created gt "2011-05-13T04:42:34Z"`, cond: `users.created_at > $1`, args: []any{created}},
		{filter: `emails[type eq "work"].value eq "a@b.c"`, cond: `(true AND lower(users.email) = lower($1))`, args: []any{"a@b.c"}},
		{filter: `userName sw "a" and not (active eq false)`, cond: `(starts_with(users.user_name, lower($1)) AND NOT COALESCE(users.active = $2, false))`,
			args: []any{"a", false}},
		{filter: `externalId pr`, cond: `(users.scim_external_id IS NOT NULL AND users.scim_external_id <> '')`},

		// Numbers: out of range is refused, never read as another number.
		{filter: `userName eq 1e999`, err: `the number 1e999 in the filter is out of range`},
		{filter: `userName eq -1e999`, err: `the number -1e999 in the filter is out of range`},
		{filter: `userName eq 99999999999999999999`, err: `the number 99999999999999999999 in the filter is out of range`},
		{filter: `userName eq -9223372036854775809`, err: `the number -9223372036854775809 in the filter is out of range`},
		{filter: `emails[value eq 1e400]`, err: `the number 1e400 in the filter is out of range`},
		{filter: `userName eq "a" or not (id eq 1e999)`, err: `the number 1e999 in the filter is out of range`},
		{filter: `userName eq ` + long, err: `the number ` + long[:100] + `… in the filter is out of range`},
		// In range, a number is still no userName.
		{filter: `userName eq 9223372036854775807`, err: `userName cannot be compared with eq 9223372036854775807`},
		{filter: `userName eq 1.5e3`, err: `userName cannot be compared with eq 1.5e3`},
		{filter: `active eq 1`, err: `active cannot be compared with eq 1`},

		// Unparsable filters: learngate's message, no parser text.
		{filter: `userName eq`, err: scimFilterSyntax},
		{filter: `userName eq "a`, err: scimFilterSyntax},
		{filter: `(userName eq "a"`, err: scimFilterSyntax},
		{filter: `userName xx "a"`, err: scimFilterSyntax},
		{filter: `userName eq "a" and`, err: scimFilterSyntax},
		{filter: ` `, err: `the filter is empty`},
		// Values quoted in messages are cut at 100 characters.
		{filter: `active eq "` + strings.Repeat("y", 300) + `"`, err: `active cannot be compared with eq ` + strings.Repeat("y", 100) + `…`},
		{filter: `title pr`, err: `the filter names an attribute learngate does not filter on: title`},
	} {
		t.Run(c.filter[:min(len(c.filter), 60)], func(t *testing.T) {
			q := &Query{}
			expr, err := scim.ParseFilter(c.filter)
			cond := ""
			if err == nil {
				cond, err = scimWhere(expr, scimUserColumns, q)
			}
			if c.err != "" {
				var e *learngate.Error
				if !errors.As(err, &e) || e.Code != learngate.Invalid || e.SCIMType != scim.InvalidFilter || e.Message != c.err {
					t.Fatalf("err = %v, want invalidFilter %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cond != c.cond || fmt.Sprint(q.Args()) != fmt.Sprint(c.args) {
				t.Fatalf("= %s %v, want %s %v", cond, q.Args(), c.cond, c.args)
			}
		})
	}
}

// scimFilterSyntax is the message of a filter that does not parse.
const scimFilterSyntax = `the filter is not valid: write it as attribute operator value, such as userName eq "bjensen" (RFC 7644, section 3.4.2.2)`
