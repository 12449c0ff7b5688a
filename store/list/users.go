package list

import (
	"context"
	"sort"
	"strings"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// Users is GET /papi/users: every user, newest first (created_at, then id,
// descending). Its indexes: users_created (created_at, id) for the list and
// its anchors; users_inactive and users_active (partial, for active);
// users_email; users_updated (updated_at INCLUDE created_at, id: 00020);
// the custom values' indexes for x- filters (users_values.go).
var Users = Spec{Name: "users", Table: "users", Order: Newest,
	Anchors: &Anchors{Table: "user_rank_anchors", Dirty: "user_rank_dirty"}}

// UserFilter narrows the users list. Zero values filter nothing.
type UserFilter struct {
	// UpdatedFilter bounds updated_at.
	UpdatedFilter
	Active *bool
	// Email matches exactly, ignoring case.
	Email string
	// CustomFields are x-<name> filters by the name after the prefix, with
	// their raw values; names of no custom field are ignored.
	CustomFields map[string]string
}

// Query is f as a query of Users, with the tenant's custom fields by lower
// case name (the store's; nil when f has no x- filter). An x- filter of a
// text or list field first looks its matching values up in tx
// (users_values.go). A bad x- value is Invalid. The plan:
//   - nothing that filters: counted and skipped from the anchors;
//   - active alone: the ids first on users_active or users_inactive, and
//     active=true counted as all users less the inactive ones;
//   - updated_at alone: the matches' keys sorted (ReadSorted on users_updated);
//   - one x- filter alone: counted and paged on the field's values;
//   - anything else: counted, and read in order from the nearer end.
func (f UserFilter) Query(ctx context.Context, tx *sqlx.Tx, fields map[string]learngate.CustomField) (*Query, error) {
	q := NewQuery(Plan{})
	f.addTo(q, "users")
	n := 0
	if f.UpdatedAfter != nil {
		n++
	}
	if f.UpdatedBefore != nil {
		n++
	}
	if f.Active != nil {
		q.Where("users.active = " + q.Arg(*f.Active))
		n++
	}
	email := strings.TrimSpace(f.Email)
	if email != "" {
		q.Where("lower(users.email) = lower(" + q.Arg(email) + ")")
		n++
	}
	var custom []valuesFilter
	names := make([]string, 0, len(f.CustomFields))
	for name := range f.CustomFields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		field, ok := fields[strings.ToLower(name)]
		raw := f.CustomFields[name]
		if !ok || strings.TrimSpace(raw) == "" {
			continue // unknown fields and empty values filter nothing
		}
		c, err := customFilter(ctx, tx, q, field, "x-"+name, raw)
		if err != nil {
			return nil, err
		}
		if c.cond == "" {
			continue // a list filter of no items: every user
		}
		q.Where(c.cond)
		custom = append(custom, c)
		n++
	}
	switch {
	case n == 0:
		q.Plan = Plan{Count: CountAnchored}
	case n == 1 && f.Active != nil && *f.Active:
		q.Plan = Plan{Count: CountAnchoredExcept, Read: ReadIDs}
		q.Except("NOT users.active")
	case n == 1 && f.Active != nil:
		q.Plan = Plan{Read: ReadIDs}
	case f.any() && f.Active == nil && email == "" && len(f.CustomFields) == 0:
		q.Plan = Plan{Read: ReadSorted}
	case n == 1 && len(custom) == 1 && custom[0].values != "":
		c := custom[0]
		q.From(Source{Table: "user_custom_values", Alias: "v", Keys: []string{"v.user_created_at", "v.user_id"},
			Cond: c.values})
		q.Plan = Plan{Read: ReadIDs}
		if c.set != "" {
			q.Plan = Plan{Read: ReadMerged}
			q.MergeOn("v.value", c.set, "text")
		}
	}
	return q, nil
}
