package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// The users batch save was once done two ways, set-based and row by row,
// and the set-based way had to match the row-by-row one. The row-by-row
// way is gone; what it gave for the batches below is kept in
// testdata/*.golden, written by it, and the set-based save must still give
// exactly that: the result (counters, error_list with rows, the changes
// recorded), the users rows, their links and the invitation jobs.

// batchSaver saves a batch, as BatchSaveUsers does, answering with what it changed.
type batchSaver func(context.Context, *TenantDB, []learngate.BatchRow, string, time.Time) (batchReport, error)

// batchOutcome saves seed (InviteNone, at seedAt) then batch (invite, at
// now) with save in a new tenant and describes what the batch gave, one
// fact a line, for a golden file.
func batchOutcome(t *testing.T, save batchSaver, seed, batch []learngate.BatchRow, invite string, seedAt, now time.Time) string {
	t.Helper()
	tdb, queries := benchTenant(t)
	withJobs(t, tdb)
	ctx := context.Background()
	if _, err := save(ctx, tdb, seed, InviteNone, seedAt); err != nil {
		t.Fatal(err)
	}
	start := queries()
	res, err := save(ctx, tdb, batch, invite, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d statements", queries()-start)
	var b strings.Builder
	fmt.Fprintf(&b, "created %d updated %d unchanged %d enrolled %d sent %d failed %d errors %d\n", res.Created, res.Updated,
		res.Unchanged, res.Enrolled, res.InvitationsSent, res.InvitationsFailed, res.Errors)
	for _, e := range res.ErrorList {
		fmt.Fprintf(&b, "error row %d user_name %s email %s: %s\n", e.Row, textOf(e.UserName), textOf(e.Email), e.Reason)
	}
	for _, c := range res.changed {
		fmt.Fprintf(&b, "change %v %d %s\n", c.kind, c.id, c.typ)
	}
	var users []userRow
	var links, jobs []string
	err = tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.SelectContext(ctx, &users, `SELECT `+userColumns+` FROM users ORDER BY id`); err != nil {
			return err
		}
		if err := tx.SelectContext(ctx, &links, `SELECT l FROM (
			SELECT format('%s role %s %s', user_id, position, role_id) AS l FROM user_roles
			UNION ALL SELECT format('%s group %s', user_id, group_id) FROM user_groups
			UNION ALL SELECT format('%s goal %s', user_id, goal_id) FROM user_goals
			UNION ALL SELECT format('%s custom %s %s', user_id, field_id, value) FROM user_custom_values) x ORDER BY l`); err != nil {
			return err
		}
		return tx.SelectContext(ctx, &jobs, `SELECT args->>'user_id' FROM public.river_job WHERE kind = $1 ORDER BY id`, KindSendInvitation)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
		j, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "user %s\n", j)
	}
	for _, l := range links {
		fmt.Fprintf(&b, "link %s\n", l)
	}
	fmt.Fprintf(&b, "invitation jobs %v\n", jobs)
	return b.String()
}

func textOf(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%q", *s)
}

// checkGolden compares got with testdata/name.golden (rewritten when
// LEARNGATE_UPDATE_GOLDEN is set).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if os.Getenv("LEARNGATE_UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
			}
		}
	}
}

// namedTwiceBatch names users more than once: each later row applies on
// top of what the earlier ones left, as a row of its own would (a user an
// earlier row failed to create is created by a later one; a row after a
// failed one applies on top of the last row that succeeded).
func namedTwiceBatch() (seed, batch []learngate.BatchRow) {
	u := func(email string) learngate.UserInput {
		return learngate.UserInput{FirstName: strp("F"), LastName: strp("L"), Email: strp(email), Timezone: strp("UTC")}
	}
	bob := u("bob@example.com")
	bob.Groups, bob.CustomFields = []string{"Sales"}, map[string]any{"City": "Rome"}
	seed = []learngate.BatchRow{batchUserRow("bob", bob), batchUserRow("cat", u("cat@example.com"))}
	amy := u("amy@example.com")
	amy.Groups = []string{"Berlin"}
	amyAgain := learngate.UserInput{FirstName: strp("Amy"), Groups: []string{"Sales", "Berlin"}, CustomFields: map[string]any{"City": "Oslo"}}
	badZed := u("zed@example.com")
	badZed.CustomFields = map[string]any{"Age": "abc"}
	batch = []learngate.BatchRow{
		batchUserRow("amy", amy),      // created
		batchUserRow("AMY", amyAgain), // updated on top of it
		batchUserRow("bob", learngate.UserInput{LastName: strp("Black"), Groups: []string{"Berlin"}}), // updated
		batchUserRow("bob", learngate.UserInput{LastName: strp("Black")}),                             // unchanged now
		batchUserRow("zed", u("BOB@example.com")),                                                     // taken: not created
		batchUserRow("zed", learngate.UserInput{FirstName: strp("Z")}),                                // created? no: a new user needs all fields
		batchUserRow("zed", u("zed@example.com")),                                                     // created
		batchUserRow("zed", learngate.UserInput{Email: strp("cat@example.com")}),                      // taken: zed stays
		batchUserRow("zed", badZed),                                                                   // bad number
		batchUserRow("cat", learngate.UserInput{Active: ptrTo(false)}),                                // deactivated
		batchUserRow("cat", learngate.UserInput{Active: ptrTo(true)}),                                 // reactivated
		batchUserRow("amy", learngate.UserInput{Email: strp("amy3@example.com")}),                     // frees amy@
		batchUserRow("ann", u("AMY@example.com")),                                                     // freed by amy's third row
		batchUserRow("dan", u("dan@example.com")),
		batchUserRow("dan", learngate.UserInput{Active: ptrTo(false), Roles: [5]*string{strp("Trainer")}}),
	}
	return seed, batch
}

// A batch that names users more than once gives what saving its rows one
// by one gives (testdata/batch_named_twice.golden).
func TestBatchSaveUsersNamedTwice(t *testing.T) {
	t.Parallel()
	seedAt := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	seed, batch := namedTwiceBatch()
	got := batchOutcome(t, saveUsersBatch, seed, batch, InviteAll, seedAt, seedAt.Add(time.Hour))
	checkGolden(t, "batch_named_twice", got)
}
