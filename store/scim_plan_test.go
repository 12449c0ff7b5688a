//go:build slow

package store

import (
	"context"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"learngate/scim"

	"learngate/store/list"
)

// TestSCIMFiltersUseIndexes checks, with EXPLAIN on a tenant of 5,000
// analysed users, that the lookups identity systems make before every
// create are index lookups: userName eq (users_user_name), externalId eq
// (users_scim_external_id) and emails.value eq, in RFC's form and Entra
// ID's (users_email), for the page and for its count.
func TestSCIMFiltersUseIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 5,000 users")
	}
	tdb, _ := benchTenant(t)
	seedUsers(t, tdb, 5000)
	err := tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(`UPDATE users SET scim_external_id = 'ext-' || id; ANALYZE users`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ filter, index string }{
		{`userName eq "USER2500"`, "users_user_name"},
		{`externalId eq "ext-2500"`, "users_scim_external_id"},
		{`emails.value eq "User2500@example.com"`, "users_email"},
		{`emails[type eq "work"].value eq "user2500@example.com"`, "users_email"},
		{`emails[type eq "work" and value eq "user2500@example.com"]`, "users_email"},
	} {
		t.Run(tt.filter, func(t *testing.T) {
			expr, err := scim.ParseFilter(tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			q, err := list.SCIMQuery(list.SCIMUsers, expr)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range []list.Statement{
				list.SCIMUsers.CountStatement(q),
				list.SCIMUsers.PageStatement(scimUserSelect, q, list.Window{Size: 100}),
			} {
				plan := explain(t, tdb, st.SQL, st.Args...)
				if !strings.Contains(plan, "Index Scan using "+tt.index) && !strings.Contains(plan, "Bitmap Index Scan on "+tt.index) {
					t.Errorf("plan does not look %s up in %s:\n%s", tt.filter, tt.index, plan)
				}
				if strings.Contains(plan, "Seq Scan on users") {
					t.Errorf("plan scans users:\n%s", plan)
				}
			}
			// The lookup finds the one user.
			users, total, err := ListSCIMUsers(context.Background(), tdb, expr, 1, 100)
			if err != nil || total != 1 || len(users) != 1 || users[0].UserName != "user2500" {
				t.Fatalf("ListSCIMUsers = %d %v %v", total, users, err)
			}
		})
	}
}

// TestSCIMManagerFilterUsesIndex: filter=manager.value eq "<id>" finds the
// users naming that user as manager_email through the stored lower-cased
// column's index (migration 00018), not by scanning users; seedUsers makes
// user 251 the manager of users 2500 to 2509.
func TestSCIMManagerFilterUsesIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 5,000 users")
	}
	tdb, _ := benchTenant(t)
	seedUsers(t, tdb, 5000)
	expr, err := scim.ParseFilter(`urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value eq "251"`)
	if err != nil {
		t.Fatal(err)
	}
	q, err := list.SCIMQuery(list.SCIMUsers, expr)
	if err != nil {
		t.Fatal(err)
	}
	count := list.SCIMUsers.CountStatement(q)
	plan := explain(t, tdb, count.SQL, count.Args...)
	if !strings.Contains(plan, "users_manager_email_lower") || strings.Contains(plan, "Seq Scan on users") {
		t.Errorf("plan does not use users_manager_email_lower or scans users:\n%s", plan)
	}
	users, total, err := ListSCIMUsers(context.Background(), tdb, expr, 1, 100)
	if err != nil || total != 10 || len(users) != 10 {
		t.Fatalf("ListSCIMUsers = %d, %d users, %v", total, len(users), err)
	}
}
