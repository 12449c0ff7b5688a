package handlers

import (
	"net/http"
	"testing"

	"learngate/handlers/scimapi"
)

// TestSCIMFilterNumbersOutOfRange (issue 27, finding 7): a filter whose
// number is out of range answers 400 invalidFilter with learngate's own
// message (not strconv's text, not the number wrapped around to
// -9223372036854775808), and a filter that does not parse answers the
// same shape without the parser's text; on both tenants alike.
func TestSCIMFilterNumbersOutOfRange(t *testing.T) {
	t.Parallel()
	e := newUsersEnv(t)
	for _, c := range []struct{ filter, detail string }{
		{`userName eq 1e999`, `the number 1e999 in the filter is out of range`},
		{`userName eq 99999999999999999999`, `the number 99999999999999999999 in the filter is out of range`},
		{`userName eq 12`, `userName cannot be compared with eq 12`},
		{`userName eq`, `the filter is not valid: write it as attribute operator value, such as userName eq "bjensen" (RFC 7644, section 3.4.2.2)`},
	} {
		t.Run(c.filter, func(t *testing.T) {
			for _, ct := range []catalogTenant{e.acme, e.other} {
				for _, path := range []string{"/scim/v2/Users", "/scim/v2/Groups"} {
					w := scimCall(ct, http.MethodGet, filterPath(path, c.filter), "")
					if path == "/scim/v2/Groups" && c.detail == `userName cannot be compared with eq 12` {
						continue // Groups have no userName: another refusal
					}
					assertResponse(t, w, http.StatusBadRequest, scimErr("400", "invalidFilter", c.detail))
					if got := w.Header().Get("Content-Type"); got != scimapi.ContentType {
						t.Fatalf("Content-Type = %q", got)
					}
				}
			}
		})
	}
}
