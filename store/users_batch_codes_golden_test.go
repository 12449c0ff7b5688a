package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// The enrolment codes of a users batch were applied group by group; what
// that gave for the batches below is kept in testdata/batch_codes_*.golden
// and the batch must still give exactly that: the result (counters,
// error_list, the changes whose events are recorded) and every topic and
// pathway enrolment with its skills.

// codesCatalog is the tenant's catalog for the code batches: skills Go and
// SQL; topics 1 to 5 outside any pathway (codes TP-1..TP-5; topic 2 certifies
// for 365 days, topic 3 allows recertification); pathway 1 (code PW-1,
// certifying for 30 days) holding topics 6 (mandatory) and 7 (codes TP-6,
// TP-7).
const codesCatalog = `
	INSERT INTO skills (name) VALUES ('Go'), ('SQL');
	INSERT INTO topics (title, minutes, cpd_minutes, certify_days, recertification_allowed)
		SELECT 'Topic ' || g, 30, 10, CASE WHEN g = 2 THEN 365 END, g = 3 FROM generate_series(1, 7) g;
	INSERT INTO enrolment_codes (code, topic_id) SELECT 'TP-' || id, id FROM topics;
	INSERT INTO pathways (title, certify_days) VALUES ('Path 1', 30);
	INSERT INTO pathway_topics (pathway_id, topic_id, position, mandatory) VALUES (1, 6, 1, true), (1, 7, 2, false);
	INSERT INTO enrolment_codes (code, pathway_id) VALUES ('PW-1', 1)`

// codesOutcome saves seed (at seedAt) then batch (at now) in a new tenant
// with the codes catalog and describes what the batch gave, one fact a
// line; it also returns the statements the batch sent.
func codesOutcome(t *testing.T, seed, batch []learngate.BatchRow, seedAt, now time.Time) (string, int64) {
	t.Helper()
	return codesOutcomeWith(t, "", "", seed, batch, seedAt, now)
}

// codesOutcomeWith is codesOutcome with catalog SQL run after codesCatalog
// in both tenants and setup SQL run in the batch's tenant after its seed.
func codesOutcomeWith(t *testing.T, catalog, setup string, seed, batch []learngate.BatchRow, seedAt, now time.Time) (string, int64) {
	t.Helper()
	tdb, queries := benchTenant(t)
	other := secondTenant(t, tdb, "other")
	ctx := context.Background()
	for _, d := range []*TenantDB{tdb, other} {
		if err := d.Tx(ctx, func(tx *sqlx.Tx) error { _, err := tx.ExecContext(ctx, codesCatalog+";"+catalog); return err }); err != nil {
			t.Fatal(err)
		}
	}
	// The other tenant holds users of the same names with enrolments of
	// its own; none of them may change.
	if _, err := BatchSaveUsers(ctx, other, seed, InviteNone, seedAt); err != nil {
		t.Fatal(err)
	}
	otherBefore := enrolmentFacts(t, other)
	if _, err := BatchSaveUsers(ctx, tdb, seed, InviteNone, seedAt); err != nil {
		t.Fatal(err)
	}
	if setup != "" {
		if err := tdb.Tx(ctx, func(tx *sqlx.Tx) error { _, err := tx.ExecContext(ctx, setup); return err }); err != nil {
			t.Fatal(err)
		}
	}
	start := queries()
	res, err := saveUsersBatch(ctx, tdb, batch, InviteNone, now)
	if err != nil {
		t.Fatal(err)
	}
	statements := queries() - start
	if got := enrolmentFacts(t, other); got != otherBefore {
		t.Errorf("the other tenant's enrolments changed:\n%s\nwere\n%s", got, otherBefore)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "created %d updated %d unchanged %d enrolled %d errors %d\n", res.Created, res.Updated,
		res.Unchanged, res.Enrolled, res.Errors)
	for _, e := range res.ErrorList {
		fmt.Fprintf(&b, "error row %d user_name %s email %s: %s\n", e.Row, textOf(e.UserName), textOf(e.Email), e.Reason)
	}
	for _, c := range res.changed {
		fmt.Fprintf(&b, "change %v %d %s\n", c.kind, c.id, c.typ)
	}
	b.WriteString(enrolmentFacts(t, tdb))
	return b.String(), statements
}

// enrolmentFacts lists every topic and pathway enrolment of tdb and their
// given skills, one a line, in id order.
func enrolmentFacts(t *testing.T, tdb *TenantDB) string {
	t.Helper()
	var lines []string
	err := tdb.ReadTx(context.Background(), func(tx *sqlx.Tx) error {
		return tx.Select(&lines, `SELECT l FROM (
			SELECT 1 AS k, id, format('topic_enrolment %s user %s topic %s %s %s due %s conquered %s certified %s recert %s by %s removed %s created %s updated %s',
				id, user_id, topic_id, status, relationship, due_date AT TIME ZONE 'UTC', completed_topic_at AT TIME ZONE 'UTC',
				certified_date AT TIME ZONE 'UTC', recertification_allowed, enrolled_by, removed_at AT TIME ZONE 'UTC',
				created_at AT TIME ZONE 'UTC', updated_at AT TIME ZONE 'UTC') AS l FROM topic_enrolments
			UNION ALL SELECT 2, enrolment_id, format('topic_enrolment_skill %s %s', enrolment_id, skill_id) FROM topic_enrolment_skills
			UNION ALL SELECT 3, id, format('pathway_enrolment %s user %s pathway %s %s due %s conquered %s certified %s recert %s by %s removed %s created %s updated %s',
				id, user_id, pathway_id, status, due_date AT TIME ZONE 'UTC', conquered_at AT TIME ZONE 'UTC',
				certified_date AT TIME ZONE 'UTC', recertification_allowed, enrolled_by, removed_at AT TIME ZONE 'UTC',
				created_at AT TIME ZONE 'UTC', updated_at AT TIME ZONE 'UTC') FROM pathway_enrolments
			UNION ALL SELECT 4, enrolment_id, format('pathway_enrolment_skill %s %s', enrolment_id, skill_id) FROM pathway_enrolment_skills
			) x ORDER BY k, id, l`)
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n") + "\n"
}

// codeRow is a batch row for user name (created with an email of its own
// when new) carrying groups.
func codeRow(name string, groups ...learngate.EnrolmentRequest) learngate.BatchRow {
	row := batchUserRow(name, learngate.UserInput{FirstName: strp("F"), LastName: strp("L"), Email: strp(name + "@example.com"),
		Timezone: strp("UTC")})
	for i := range groups {
		groups[i].N = i + 1
	}
	row.Enrolments = groups
	return row
}

// code is an enrolment group: code, then an optional action word.
func code(raw string) learngate.EnrolmentRequest {
	c, action, _ := strings.Cut(raw, " ")
	return learngate.EnrolmentRequest{Raw: raw, Code: c, Action: learngate.EnrolmentAction(action)}
}

// day is an enrolment date; "" is the empty value.
func day(s string) *learngate.EnrolmentDate {
	if s == "" {
		return &learngate.EnrolmentDate{}
	}
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return &learngate.EnrolmentDate{Day: d, Raw: s}
}

// with sets a group's dates and skills: due, conquered, certified ("-" for
// not sent) and skills (nil for not sent).
func with(r learngate.EnrolmentRequest, due, conquered, certified string, skills []string) learngate.EnrolmentRequest {
	for _, f := range []struct {
		v string
		p **learngate.EnrolmentDate
	}{{due, &r.DueDate}, {conquered, &r.ConqueredDate}, {certified, &r.CertifiedDate}} {
		if f.v != "-" {
			*f.p = day(f.v)
		}
	}
	r.Skills = skills
	return r
}

// topicCodesBatch uses only codes of topics outside any pathway: every
// action, dates given, cleared and in the future, skills changed alone,
// unknown codes, codes for a user the batch fails to save, a user named
// twice and a code unenrolled then enrolled again in one row.
func topicCodesBatch() (seed, batch []learngate.BatchRow) {
	seed = []learngate.BatchRow{
		codeRow("amy", code("TP-1"), with(code("TP-2 COMPLETE"), "-", "2025-05-20", "-", []string{"Go"})),
		codeRow("bob", with(code("TP-1"), "2026-06-01", "-", "-", nil), code("TP-3")),
		codeRow("cat", code("TP-4")),
	}
	taken := codeRow("eve", code("TP-1"))
	taken.New.In.Email = strp("amy@example.com")
	batch = []learngate.BatchRow{
		codeRow("amy", code("TP-1"), with(code("TP-2 UPDATE"), "-", "-", "-", []string{"SQL"}),
			with(code("TP-3"), "2027-01-01", "-", "-", nil)),
		codeRow("bob", with(code("TP-1 UPDATE"), "", "-", "", nil), code("TP-3 UNENROL"), code("TP-3"),
			with(code("TP-4 UPDATE"), "2027-02-02", "-", "-", nil)),
		codeRow("cat", code("TP-4 COMPLETE"), code("TP-5 UPDATE"), code("TP-9"), code("TP-4 UNENROL"), code("TP-5 UNENROL")),
		codeRow("dan", with(code("TP-2 COMPLETE"), "-", "2999-01-01", "-", nil), code("TP-2"),
			with(code("TP-2 COMPLETE"), "-", "-", "2030-03-03", []string{"Go", "sql", "Nope"})),
		codeRow("amy", code("TP-3 UNENROL"), with(code("TP-1 COMPLETE"), "-", "-", "-", []string{"Go", "SQL"}),
			with(code("TP-2 UPDATE"), "2028-08-08", "2025-06-01", "-", []string{})),
		taken,
		codeRow("bob", with(code("TP-2 UPDATE"), "-", "2025-01-02", "-", nil), code("TP-1 COMPLETE"),
			with(code("TP-1"), "2029-09-09", "-", "-", nil), learngate.EnrolmentRequest{Problems: []string{"Bad date"}}),
		codeRow("fay", code(""), with(code("TP-5 COMPLETE"), "2027-05-05", "2025-02-02", "-", []string{"Go"})),
	}
	return seed, batch
}

// pathwayCodesBatch mixes pathway codes and codes of a pathway's topics
// with a topic outside it.
func pathwayCodesBatch() (seed, batch []learngate.BatchRow) {
	seed = []learngate.BatchRow{codeRow("amy", code("PW-1")), codeRow("bob", code("TP-7"))}
	batch = []learngate.BatchRow{
		codeRow("bob", with(code("PW-1"), "2027-01-01", "-", "-", nil), code("TP-1")),
		codeRow("amy", with(code("PW-1 UPDATE"), "2027-03-03", "-", "-", nil), code("TP-6 COMPLETE")),
		codeRow("cat", code("TP-1"), code("PW-1 COMPLETE"), code("PW-1 UNENROL"), code("PW-1")),
	}
	return seed, batch
}

// A batch's topic codes give what applying them group by group gave
// (testdata/batch_codes_topics.golden).
func TestBatchSaveUsersTopicCodes(t *testing.T) {
	t.Parallel()
	seedAt := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	seed, batch := topicCodesBatch()
	got, statements := codesOutcome(t, seed, batch, seedAt, seedAt.Add(time.Hour))
	t.Logf("%d statements", statements)
	checkGolden(t, "batch_codes_topics", got)
}

// A batch with pathway codes gives what applying them group by group gave
// (testdata/batch_codes_pathway.golden).
func TestBatchSaveUsersPathwayCodes(t *testing.T) {
	t.Parallel()
	seedAt := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	seed, batch := pathwayCodesBatch()
	got, statements := codesOutcome(t, seed, batch, seedAt, seedAt.Add(time.Hour))
	t.Logf("%d statements", statements)
	checkGolden(t, "batch_codes_pathway", got)
}

// mixedCodesPathways adds to seedEnrolments' topics pathway 1 (code PW-1)
// holding topics 4 (mandatory), 5 and 6 and pathway 2 (code PW-2) holding
// topics 6 and 7.
const mixedCodesPathways = `
	INSERT INTO pathways (title, certify_days) VALUES ('Path 1', 30), ('Path 2', NULL);
	INSERT INTO pathway_topics (pathway_id, topic_id, position, mandatory)
		VALUES (1, 4, 1, true), (1, 5, 2, false), (1, 6, 3, false), (2, 6, 1, false), (2, 7, 2, false);
	INSERT INTO enrolment_codes (code, pathway_id) VALUES ('PW-1', 1), ('PW-2', 2);
	ANALYZE`

// threeMixedCodeRows are n new users prefix0.. each with three enrolment
// codes, as the load test's batch with codes: a topic outside any pathway
// with a due date, COMPLETE of a topic of pathway 1 with a skill, and the
// pathway (mixedCodesPathways).
func threeMixedCodeRows(prefix string, n int) []learngate.BatchRow {
	rows := threeCodeRows(prefix, n)
	for j := range rows {
		e := rows[j].Enrolments
		e[0].DueDate = e[2].DueDate
		e[1].Raw, e[1].Code, e[1].ConqueredDate = "TP-4 COMPLETE", "TP-4", nil
		e[2] = learngate.EnrolmentRequest{N: 3, Raw: "PW-1", Code: "PW-1"}
	}
	return rows
}

// Enrolment codes cost a batch the same number of statements for 1, 10 or
// 100 users with three codes each, new users or existing ones with
// enrolments to update, a batch naming the same users twice too: codes of
// topics outside any pathway, and codes mixing a pathway and a topic of
// it. The other tenant's enrolments stay as they were.
func TestBatchSaveUsersCodesFixedStatements(t *testing.T) {
	t.Parallel()
	tdb, queries := benchTenant(t)
	other := secondTenant(t, tdb, "other")
	ctx := context.Background()
	for _, d := range []*TenantDB{tdb, other} {
		seedEnrolments(t, d, 0, 10)
		if err := d.Tx(ctx, func(tx *sqlx.Tx) error { _, err := tx.ExecContext(ctx, mixedCodesPathways); return err }); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := BatchSaveUsers(ctx, other, threeMixedCodeRows("a", 1), InviteNone, time.Now()); err != nil {
		t.Fatal(err)
	}
	otherBefore := enrolmentFacts(t, other)
	cost := func(rows []learngate.BatchRow, created, enrolled int) int64 {
		t.Helper()
		start := queries()
		res, err := BatchSaveUsers(ctx, tdb, rows, InviteNone, time.Now())
		if err != nil || res.Created != created || res.Enrolled != enrolled || res.Errors != 0 {
			t.Fatalf("batch: %+v, %v", res, err)
		}
		return queries() - start
	}
	for _, codes := range []struct {
		name string
		rows func(prefix string, n int) []learngate.BatchRow
	}{{"topic codes", threeCodeRows}, {"pathway and topic codes", threeMixedCodeRows}} {
		twice := func(prefix string, n int) []learngate.BatchRow {
			rows := codes.rows(prefix, n)
			return append(rows, codes.rows(prefix, n)...)
		}
		for _, c := range []struct {
			name  string
			batch func(prefix string, n int) []learngate.BatchRow
			// new: the batch creates its users (else they exist already).
			new, twice bool
		}{
			{"new users", codes.rows, true, false},
			{"existing users", codes.rows, false, false},
			{"new users named twice", twice, true, true},
		} {
			var counts []int64
			for _, n := range []int{1, 10, 100} {
				prefix := fmt.Sprintf("%s-%s-%d-", strings.ReplaceAll(codes.name, " ", ""), strings.ReplaceAll(c.name, " ", ""), n)
				if !c.new {
					cost(codes.rows(prefix, n), n, 3*n)
				}
				created, enrolled := n, 3*n
				if !c.new {
					created = 0
				}
				if c.twice {
					enrolled = 6 * n
				}
				counts = append(counts, cost(c.batch(prefix, n), created, enrolled))
			}
			if counts[0] != counts[1] || counts[1] != counts[2] {
				t.Errorf("%s, %s: %v statements for 1, 10 and 100 users with 3 codes each; want the same", codes.name, c.name, counts)
			}
			t.Logf("%s, %s: %d statements", codes.name, c.name, counts[2])
		}
	}
	if got := enrolmentFacts(t, other); got != otherBefore {
		t.Errorf("the other tenant's enrolments changed")
	}
}
