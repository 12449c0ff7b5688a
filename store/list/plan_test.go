package list

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"learngate"
)

// TestEnrolmentFilterPlans: each enrolment filter's typed fields pick its
// plan (never the text of its SQL).
func TestEnrolmentFilterPlans(t *testing.T) {
	id, name := int64(4), "ann"
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		f    EnrolmentFilter
		want Plan
	}{
		{"none", EnrolmentFilter{}, Plan{Count: CountAnchored}},
		{"topic_id", EnrolmentFilter{TargetID: &id}, Plan{}},
		{"topic_ids, one", EnrolmentFilter{TargetIDs: []int64{id}}, Plan{}},
		{"topic_ids, two", EnrolmentFilter{TargetIDs: []int64{id, 5}}, Plan{Read: ReadMerged}},
		{"topic_ids, two, and a user", EnrolmentFilter{TargetIDs: []int64{id, 5}, UserName: &name}, Plan{}},
		{"topic_ids, two, and updated_after", EnrolmentFilter{TargetIDs: []int64{id, 5},
			UpdatedFilter: UpdatedFilter{UpdatedAfter: &since}}, Plan{Read: ReadSorted}},
		{"topic_ids, none", EnrolmentFilter{TargetIDs: []int64{}}, Plan{}},
		{"updated_after", EnrolmentFilter{UpdatedFilter: UpdatedFilter{UpdatedAfter: &since}}, Plan{Read: ReadSorted}},
		{"user_id and updated_before", EnrolmentFilter{UserID: &id, UpdatedFilter: UpdatedFilter{UpdatedBefore: &since}}, Plan{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.f.Query(TopicEnrolments).Plan; got != c.want {
				t.Errorf("plan %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestUserFilterPlans: the users list's plans, by the filters given (no x-
// filter here: those look their values up in the database, and
// store's TestUserFiltersUseIndexes covers them).
func TestUserFilterPlans(t *testing.T) {
	yes, no := true, false
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		f    UserFilter
		want Plan
	}{
		{"none", UserFilter{}, Plan{Count: CountAnchored}},
		{"blank email", UserFilter{Email: "  "}, Plan{Count: CountAnchored}},
		{"unknown x- field", UserFilter{CustomFields: map[string]string{"nope": "1"}}, Plan{Count: CountAnchored}},
		{"active=true", UserFilter{Active: &yes}, Plan{Count: CountAnchoredExcept, Read: ReadIDs}},
		{"active=false", UserFilter{Active: &no}, Plan{Read: ReadIDs}},
		{"updated_after", UserFilter{UpdatedFilter: UpdatedFilter{UpdatedAfter: &since}}, Plan{Read: ReadSorted}},
		{"updated_after and active", UserFilter{UpdatedFilter: UpdatedFilter{UpdatedAfter: &since}, Active: &yes}, Plan{}},
		{"email", UserFilter{Email: "a@b.c"}, Plan{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, err := c.f.Query(context.Background(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if q.Plan != c.want {
				t.Errorf("plan %+v, want %+v", q.Plan, c.want)
			}
		})
	}
}

// TestPageStatements: the builder numbers every placeholder after the
// filter's; a backward read reverses the inner order only; a cursor page
// seeks with the list's keyset; an anchored read starts at the anchor.
func TestPageStatements(t *testing.T) {
	id := int64(7)
	q := EnrolmentFilter{TargetID: &id}.Query(TopicEnrolments)
	sel := `SELECT e.id FROM topic_enrolments e`
	for _, c := range []struct {
		name string
		w    Window
		sql  string
		args []any
	}{
		{"forward", Window{Size: 10, Skip: 20},
			`SELECT e.id FROM topic_enrolments e WHERE e.id IN (SELECT e.id FROM topic_enrolments e WHERE e.removed_at IS NULL AND e.topic_id = $1 ORDER BY e.id LIMIT $2 OFFSET $3) ORDER BY e.id`,
			[]any{id, int64(10), int64(20)}},
		{"backward", Window{Size: 10, Skip: 0, Backward: true},
			`SELECT e.id FROM topic_enrolments e WHERE e.id IN (SELECT e.id FROM topic_enrolments e WHERE e.removed_at IS NULL AND e.topic_id = $1 ORDER BY e.id DESC LIMIT $2 OFFSET $3) ORDER BY e.id`,
			[]any{id, int64(10), int64(0)}},
		{"cursor", Window{Size: 10, After: &learngate.Key{ID: 99}},
			`SELECT e.id FROM topic_enrolments e WHERE e.id IN (SELECT e.id FROM topic_enrolments e WHERE e.removed_at IS NULL AND e.topic_id = $1 AND e.id > $2 ORDER BY e.id LIMIT $3 OFFSET $4) ORDER BY e.id`,
			[]any{id, int64(99), int64(10), int64(0)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := TopicEnrolments.PageStatement(sel, q, c.w)
			if st.SQL != c.sql {
				t.Errorf("SQL\n%s\nwant\n%s", st.SQL, c.sql)
			}
			if len(st.Args) != len(c.args) {
				t.Fatalf("args %v, want %v", st.Args, c.args)
			}
			for i := range c.args {
				if st.Args[i] != c.args[i] {
					t.Errorf("arg %d = %v, want %v", i+1, st.Args[i], c.args[i])
				}
			}
		})
	}
	// The users list: newest first, its cursor seeks below the key, and a
	// page read from the anchor on runs oldest first and is reversed.
	users := NewQuery(Plan{Count: CountAnchored})
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cursor := Users.PageStatement(`SELECT users.id FROM users`, users, Window{Size: 5, After: &learngate.Key{CreatedAt: at, ID: 3}})
	if want := `(users.created_at, users.id) < ($1, $2) ORDER BY users.created_at DESC, users.id DESC LIMIT $3 OFFSET $4`; !strings.Contains(cursor.SQL, want) {
		t.Errorf("users cursor page %s, want %s", cursor.SQL, want)
	}
	seek := Window{Size: 5, Skip: 2, Backward: true, From: &learngate.Key{CreatedAt: at, ID: 3}}
	from := Users.PageStatement(`SELECT users.id FROM users`, users, seek)
	if want := `(users.created_at, users.id) >= ($1, $2) ORDER BY users.created_at, users.id LIMIT $3 OFFSET $4`; !strings.Contains(from.SQL, want) {
		t.Errorf("users anchored page %s, want %s", from.SQL, want)
	}
	if !Users.reversed(users, seek) || Users.reversed(users, Window{Size: 5}) {
		t.Error("a backward read of the users' rows is reversed, a forward one is not")
	}
}

// TestMergedPageStatement: several topics read per topic on (topic_id, id),
// at most skip+size each, merged; the values are the filter's placeholder.
func TestMergedPageStatement(t *testing.T) {
	q := EnrolmentFilter{TargetIDs: []int64{3, 4, 3}}.Query(TopicEnrolments)
	st := TopicEnrolments.PageStatement(`SELECT e.id FROM topic_enrolments e`, q, Window{Size: 10, Skip: 30, Backward: true})
	for _, want := range []string{
		`FROM unnest($1::bigint[]) AS w (value) CROSS JOIN LATERAL`,
		`AND e.topic_id = w.value ORDER BY e.id DESC LIMIT $2::bigint + $3::bigint) m`,
		`ORDER BY m.id DESC LIMIT $2 OFFSET $3) ORDER BY e.id`,
	} {
		if !strings.Contains(st.SQL, want) {
			t.Errorf("merged page lacks %q:\n%s", want, st.SQL)
		}
	}
	if ids, ok := st.Args[0].(pq.Int64Array); !ok || !slices.Equal(ids, pq.Int64Array{3, 4}) {
		t.Errorf("first argument %v, want the distinct ids [3 4]", st.Args[0])
	}
}

// TestPageOffset: a numbered page's offset, or SCIM's start.
func TestPageOffset(t *testing.T) {
	if got := (Page{Number: 3, Size: 25}).offset(); got != 50 {
		t.Errorf("page 3 of 25: offset %d", got)
	}
	if got := (Page{Size: 25, Offset: 7}).offset(); got != 7 {
		t.Errorf("startIndex 8: offset %d", got)
	}
}
