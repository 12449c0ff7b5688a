package store

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"learngate"
	"learngate/input"
)

// withJobs gives tdb's store the job inserter invitations need.
func withJobs(t *testing.T, tdb *TenantDB) {
	t.Helper()
	jobs, err := newJobInserter(tdb.db.pool.DB)
	if err != nil {
		t.Fatal(err)
	}
	tdb.db.jobs = jobs
}

// batchUserRow is a row parsed as in, with user_name name (lower-cased)
// when it creates the user (as the handler's parser does).
func batchUserRow(name string, in learngate.UserInput) learngate.BatchRow {
	created, updated := in, in
	current := strings.ToLower(strings.TrimSpace(name))
	created.UserName, updated.UserName = &current, nil
	return learngate.BatchRow{UserName: name, Email: deref(in.Email), New: learngate.ParsedUser{In: created}, Update: learngate.ParsedUser{In: updated}}
}

// benchRows are n new users prefix0.. with two groups, one role and three
// custom fields, as BenchmarkBatchSaveUsers100 saves them.
func benchRows(prefix string, n int) []learngate.BatchRow {
	rows := make([]learngate.BatchRow, n)
	for j := range rows {
		name := fmt.Sprintf("%s%d", prefix, j)
		rows[j] = batchUserRow(name, learngate.UserInput{FirstName: strp("First"), LastName: strp("Last"), Email: strp(name + "@example.com"),
			Timezone: strp("UTC"), Roles: [5]*string{strp("Trainer")}, Groups: []string{"Sales", "Berlin"},
			CustomFields: map[string]any{"City": "Auckland", "Age": "42", "Skills": "Go;SQL"}})
	}
	return rows
}

// updateRows update users prefix0..prefix<n-1> (benchRows): a new first
// name, other groups and one custom value changed.
func updateRows(prefix string, n int) []learngate.BatchRow {
	rows := make([]learngate.BatchRow, n)
	for j := range rows {
		rows[j] = batchUserRow(fmt.Sprintf("%s%d", prefix, j), learngate.UserInput{FirstName: strp("Changed"),
			Groups: []string{"Oslo"}, CustomFields: map[string]any{"City": "Oslo"}})
	}
	return rows
}

// namedTwice creates users prefix0..prefix<n-1> (benchRows) and updates
// each again in a later row of the same batch (updateRows): 2n rows.
func namedTwice(prefix string, n int) []learngate.BatchRow {
	return append(benchRows(prefix, n), updateRows(prefix, n)...)
}

// A batch costs the same number of statements whatever its size: 10 or
// 100 new users, 10 or 100 updated ones, invited or not, each user named
// once or twice.
func TestBatchSaveUsersFixedStatements(t *testing.T) {
	t.Parallel()
	tdb, queries := benchTenant(t)
	withJobs(t, tdb)
	ctx := context.Background()
	cost := func(rows []learngate.BatchRow, invite string, created, updated int) int64 {
		t.Helper()
		// River sends the NOTIFY of new jobs at most once per fetch cooldown.
		time.Sleep(river.FetchCooldownDefault + 20*time.Millisecond)
		start := queries()
		res, err := BatchSaveUsers(ctx, tdb, rows, invite, time.Now())
		if err != nil || res.Created != created || res.Updated != updated || res.Errors != 0 {
			t.Fatalf("batch: %+v, %v", res, err)
		}
		return queries() - start
	}
	for _, c := range []struct {
		name     string
		ten, hun func() int64
		max      int64
	}{
		{"create", func() int64 { return cost(benchRows("a", 10), InviteNone, 10, 0) },
			func() int64 { return cost(benchRows("b", 100), InviteNone, 100, 0) }, 16},
		{"update", func() int64 { return cost(updateRows("a", 10), InviteNone, 0, 10) },
			func() int64 { return cost(updateRows("b", 100), InviteNone, 0, 100) }, 16},
		{"create and invite", func() int64 { return cost(benchRows("c", 10), InviteNew, 10, 0) },
			func() int64 { return cost(benchRows("d", 100), InviteNew, 100, 0) }, 20},
		{"create, then update each user again", func() int64 { return cost(namedTwice("e", 5), InviteNone, 5, 5) },
			func() int64 { return cost(namedTwice("f", 50), InviteNone, 50, 50) }, 16},
	} {
		ten, hundred := c.ten(), c.hun()
		if ten != hundred || hundred > c.max {
			t.Errorf("%s: %d statements for 10 users, %d for 100; want equal, at most %d", c.name, ten, hundred, c.max)
		}
		t.Logf("%s: %d statements for 10 or 100 users", c.name, hundred)
	}
}

// When a concurrent transaction takes an email the batch planned to give
// between the batch's look-ups and its writes, the set-based write fails
// on the unique index, the transaction is rolled back and the batch
// planned and saved again: the row reports the clash and the others are
// saved once.
func TestBatchSaveUsersRePlansOnConcurrentClash(t *testing.T) {
	t.Parallel()
	tdb, _ := benchTenant(t)
	now := time.Now()
	hooked := false
	ctx := context.WithValue(context.Background(), batchWriteHookKey{}, func() {
		if hooked { // the second attempt
			return
		}
		hooked = true
		// Another connection, another transaction: committed at once.
		if _, err := CreateUser(context.Background(), tdb, learngate.UserInput{UserName: strp("x"), FirstName: strp("X"), LastName: strp("X"),
			Email: strp("1@EXAMPLE.com"), Timezone: strp("UTC")}, now); err != nil {
			t.Errorf("concurrent create: %v", err)
		}
	})
	res, err := saveUsersBatch(ctx, tdb, benchRows("", 3), InviteNone, now)
	if err != nil {
		t.Fatal(err)
	}
	if !hooked {
		t.Fatal("the set-based write was not attempted")
	}
	userName, email := "1", "1@example.com"
	want := []learngate.BatchError{{UserName: &userName, Email: &email, Reason: "email '1@example.com' is already taken", Row: 1}}
	if res.Created != 3 || res.Errors != 1 || !reflect.DeepEqual(res.ErrorList, want) {
		t.Fatalf("result %+v; want 3 created and %+v", res, want[0])
	}
	if len(res.changed) != 2 || res.changed[0].typ != EventUserCreated || res.changed[1].typ != EventUserCreated {
		t.Fatalf("changes %+v; want two user.created", res.changed)
	}
	var got []string
	err = tdb.ReadTx(context.Background(), func(tx *sqlx.Tx) error {
		return tx.SelectContext(context.Background(), &got, `SELECT u.user_name || ':' ||
			(SELECT count(*) FROM user_groups g WHERE g.user_id = u.id) || ':' ||
			(SELECT count(*) FROM user_roles r WHERE r.user_id = u.id) || ':' ||
			(SELECT count(*) FROM user_custom_values v WHERE v.user_id = u.id) FROM users u ORDER BY u.user_name`)
	})
	if err != nil {
		t.Fatal(err)
	}
	if wantUsers := []string{"0:2:1:3", "2:2:1:3", "x:0:0:0"}; !reflect.DeepEqual(got, wantUsers) {
		t.Fatalf("users (name:groups:roles:custom values) %v; want %v", got, wantUsers)
	}
}

// The set-based save gives the result and leaves the data the row-by-row
// save gave (testdata/batch_every_outcome.golden, see
// users_batch_golden_test.go), for a batch of every kind of outcome: creations, updates,
// deactivation, unchanged users, clashes with stored users and with
// earlier rows (and with values an earlier row freed), bad links, bad
// custom values, parse failures, invitations and enrolment problems.
func TestBatchSaveUsersSetBasedMatchesRowByRow(t *testing.T) {
	t.Parallel()
	seedAt := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	now := seedAt.Add(time.Hour)
	u := func(email string) learngate.UserInput {
		return learngate.UserInput{FirstName: strp("F"), LastName: strp("L"), Email: strp(email), Timezone: strp("UTC")}
	}
	seed := func() []learngate.BatchRow {
		bob := u("bob@example.com")
		bob.Groups, bob.Roles[0], bob.LMSLearnerID, bob.LMSReference = []string{"Sales"}, strp("Manager"), strp("L1"), strp("R1")
		bob.CustomFields = map[string]any{"City": "Rome"}
		eli := u("eli@example.com")
		eli.Active = ptrTo(false)
		rex := u("rex@example.com")
		rex.Groups = []string{"Berlin"}
		return []learngate.BatchRow{batchUserRow("bob", bob), batchUserRow("cat", u("cat@example.com")),
			batchUserRow("dee", u("dee@example.com")), batchUserRow("eli", eli), batchUserRow("rex", rex)}
	}
	batch := func() []learngate.BatchRow {
		amy := u("amy@example.com")
		amy.Groups, amy.Roles[1] = []string{"sales", "BERLIN"}, strp("trainer")
		amy.CustomFields = map[string]any{"city": "Oslo", "Age": "40", "Skills": "sql;GO"}
		bob := learngate.UserInput{LastName: strp("Black"), Active: ptrTo(false)}
		ivy := u("ivy@example.com")
		ivy.LMSLearnerID, ivy.LMSReference = strp("L1"), strp("R1")
		jon := u("jon@example.com")
		jon.Groups = []string{"Sales", "Nowhere"}
		lea := u("lea@example.com")
		lea.CustomFields = map[string]any{"Unknown": "x"}
		mo := u("mo@example.com")
		mo.Roles[2], mo.Groups = strp("Boss"), []string{"Nowhere"}
		ned := u("ned@example.com")
		ned.Active = ptrTo(false)
		ola := u("ola@example.com")
		ola.CustomFields = map[string]any{"Age": "abc"}
		pat := u("pat@example.com")
		pat.DeactivateScheduledDate = &learngate.ScheduledDate{Day: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Raw: "2025-01-01"}
		kim := learngate.BatchRow{UserName: "kim", Email: "kim@example.com", New: learngate.ParsedUser{Err: input.IllegalValue("active", "maybe")},
			Update: learngate.ParsedUser{Err: input.IllegalValue("active", "maybe")}}
		tom := u("tom@example.com")
		tomRow := batchUserRow("tom", tom)
		tomRow.Enrolments = []learngate.EnrolmentRequest{{N: 1, Raw: "NOPE", Code: "NOPE"}, {N: 2, Problems: []string{"Bad date"}}}
		return []learngate.BatchRow{
			batchUserRow("Amy", amy),
			batchUserRow("BOB", bob),
			batchUserRow("cat", learngate.UserInput{FirstName: strp("F")}),            // unchanged
			batchUserRow("fay", u("BOB@example.com")),                                 // stored bob's email
			batchUserRow("gus", u("AMY@example.com")),                                 // amy's, an earlier row
			batchUserRow("dee", learngate.UserInput{Email: strp("dee2@example.com")}), // frees dee@
			batchUserRow("hal", u("dee@example.com")),                                 // freed by dee's row
			batchUserRow("eli", learngate.UserInput{Email: strp("cat@example.com")}),  // cat's
			batchUserRow("ivy", ivy),                                                  // bob's lms pair
			batchUserRow("jon", jon),                                                  // unknown group
			{UserName: "", Err: learngate.Errorf(learngate.Invalid, "Each person must be a JSON object")},
			kim,                      // parse error
			batchUserRow("lea", lea), // unknown custom field
			batchUserRow("mo", mo),   // unknown role first
			batchUserRow("ned", ned), // inactive: not invited
			batchUserRow("ola", ola), // bad number
			batchUserRow("pat", pat), // past date
			batchUserRow("rex", learngate.UserInput{Groups: []string{"Oslo"}}),                  // links alone
			batchUserRow("sam", u("dee2@example.com")),                                          // dee's new email
			batchUserRow("x/1", learngate.UserInput{FirstName: strp("F"), LastName: strp("L")}), // no email
			tomRow,
		}
	}
	hooked := false
	got := batchOutcome(t, func(ctx context.Context, tdb *TenantDB, rows []learngate.BatchRow, invite string, now time.Time) (batchReport, error) {
		return saveUsersBatch(context.WithValue(ctx, batchWriteHookKey{}, func() { hooked = true }), tdb, rows, invite, now)
	}, seed(), batch(), InviteAll, seedAt, now)
	if !hooked {
		t.Fatal("the batch was not saved set-based")
	}
	checkGolden(t, "batch_every_outcome", got)
	// The batch really has every outcome.
	if want := "created 15 updated 4 unchanged 1 enrolled 0 sent 7 failed 2 errors 14\n"; !strings.HasPrefix(got, want) {
		t.Errorf("result %q; want %q", got[:strings.IndexByte(got, '\n')+1], want)
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `qu"ote`, `back\slash`, "tab\tnew\nline\x01\x1f", "ünïcødé ✓ 😀", "\u2028<&>\x7f"} {
		var back string
		if err := json.Unmarshal(appendJSONString(nil, s), &back); err != nil || back != s {
			t.Errorf("%q: encoded %s, read back %q, %v", s, appendJSONString(nil, s), back, err)
		}
	}
}
