package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/list"
	"learngate/store/storetest"
)

func ptr[T any](v T) *T { return &v }

// newUser is a valid create input for user name.
func newUser(name string) learngate.UserInput {
	return learngate.UserInput{
		UserName: ptr(name), FirstName: ptr("F"), LastName: ptr("L"), Email: ptr(name + "@example.com"),
		Timezone: ptr("UTC"),
	}
}

// userTenantDB is a tenant with a role, a group, a goal and a custom field.
func userTenantDB(t *testing.T, db *store.DB, slug string) *store.TenantDB {
	t.Helper()
	ctx := context.Background()
	tdb := catalogTenantDB(t, db, slug)
	for _, kind := range []learngate.CatalogKind{learngate.Roles, learngate.Groups, learngate.Goals} {
		if _, err := store.CreateCatalogItem(ctx, tdb, kind, "One"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.CreateCustomField(ctx, tdb, learngate.NewCustomField{Name: "City", FieldType: learngate.FieldString}); err != nil {
		t.Fatal(err)
	}
	return tdb
}

func TestLoadUsersFixedQueries(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	tdb := userTenantDB(t, db, "acme")
	ctx := context.Background()
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	var queries []int
	for _, n := range []int{1, 60} {
		for i := 0; i < n; i++ {
			in := newUser(fmt.Sprintf("u%d-%d", n, i))
			in.Roles[0], in.Groups, in.Goals = ptr("one"), []string{"One"}, []string{"ONE"}
			in.CustomFields = map[string]any{"city": "Rome"}
			in.ManagerEmails[0] = ptr("u1-0@example.com")
			if _, err := store.CreateUser(ctx, tdb, in, now); err != nil {
				t.Fatalf("create user: %v", err)
			}
		}
		users, q, err := store.LoadAllUsersCountingQueries(ctx, tdb)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[int]int{1: 1, 60: 61}[n]; users != want {
			t.Fatalf("loaded %d users, want %d", users, want)
		}
		queries = append(queries, q)
	}
	if queries[0] != queries[1] || queries[0] > 3 {
		t.Fatalf("queries to load 1 and 61 users = %v, want the same fixed number (at most 3)", queries)
	}
	assertOtherTenantSeesNone(t, db, "u1-0")
}

func TestUserStoreErrors(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	tdb := userTenantDB(t, db, "acme")
	ctx := context.Background()
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	if _, err := store.CreateUser(ctx, tdb, newUser("bob"), now); err != nil {
		t.Fatal(err)
	}
	unknownRole := newUser("ann")
	unknownRole.Roles[2] = ptr("Nope")
	unknownField := newUser("ann")
	unknownField.CustomFields = map[string]any{"Planet": "Mars"}
	past := newUser("ann")
	past.DeactivateScheduledDate = &learngate.ScheduledDate{Day: now.AddDate(0, 0, -1), Raw: "yesterday"}
	taken := newUser("BOB")
	taken.UserName = ptr("bob")
	tests := []struct {
		name string
		in   learngate.UserInput
		code learngate.Code
		msg  string
	}{
		{"unknown role", unknownRole, learngate.Invalid, "Illegal value 'Nope' for 'role_3'"},
		{"unknown custom field", unknownField, learngate.Invalid, "Unknown custom field 'X-Planet'"},
		{"past date", past, learngate.Invalid, "Illegal value 'yesterday' for 'deactivate_scheduled_date'"},
		{"taken", taken, learngate.Unprocessable, "user_name 'bob' is already taken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := store.CreateUser(ctx, tdb, tt.in, now)
			assertCode(t, err, tt.code, tt.msg)
		})
	}
	_, err := store.UpdateUser(ctx, tdb, "ghost", learngate.UserInput{}, now)
	assertCode(t, err, learngate.NotFound, "not found")
	_, err = store.GetUser(ctx, tdb, "ghost")
	assertCode(t, err, learngate.NotFound, "not found")
	_, _, err = store.ListUsers(ctx, tdb, list.UserFilter{CustomFields: map[string]string{"CITY": "x"}}, list.Page{Number: 1, Size: 10})
	if err != nil {
		t.Fatalf("string filter: %v", err)
	}
	users, total, err := store.ListUsers(ctx, tdb, list.UserFilter{}, list.Page{Number: 1, Size: 10})
	if err != nil || total != 1 || len(users) != 1 || users[0].UserName != "bob" {
		t.Fatalf("ListUsers = %v, %d, %v; want only bob", users, total, err)
	}

	assertOtherTenantSeesNone(t, db, "bob")
}

// assertOtherTenantSeesNone checks that a new tenant lists no users and
// cannot find userName.
func assertOtherTenantSeesNone(t *testing.T, db *store.DB, userName string) {
	t.Helper()
	ctx := context.Background()
	other := catalogTenantDB(t, db, "other")
	users, total, err := store.ListUsers(ctx, other, list.UserFilter{}, list.Page{Number: 1, Size: 10})
	if err != nil || total != 0 || len(users) != 0 {
		t.Fatalf("other tenant's ListUsers = %v, %d, %v; want none", users, total, err)
	}
	_, err = store.GetUser(ctx, other, userName)
	assertCode(t, err, learngate.NotFound, "not found")
}

func TestUpdateUserKeepsUpdatedAtWhenUnchanged(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	tdb := userTenantDB(t, db, "acme")
	ctx := context.Background()
	t0 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	in := newUser("bob")
	in.Groups = []string{"one"}
	if _, err := store.CreateUser(ctx, tdb, in, t0); err != nil {
		t.Fatal(err)
	}
	same := learngate.UserInput{FirstName: ptr("F"), Groups: []string{"ONE"}, CustomFields: map[string]any{"City": ""}}
	u, err := store.UpdateUser(ctx, tdb, "BOB", same, t0.Add(time.Hour))
	if err != nil || !u.UpdatedAt.Equal(t0) {
		t.Fatalf("unchanged update: updated_at = %v, %v; want %v", u.UpdatedAt, err, t0)
	}
	u, err = store.UpdateUser(ctx, tdb, "bob", learngate.UserInput{CustomFields: map[string]any{"City": "Rome"}}, t0.Add(time.Hour))
	if err != nil || !u.UpdatedAt.Equal(t0.Add(time.Hour)) || *u.CustomValues[0].Value != "Rome" {
		t.Fatalf("changed update: %+v, %v", u, err)
	}
	assertOtherTenantSeesNone(t, db, "bob")
}
