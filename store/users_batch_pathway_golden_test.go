package store

import (
	"fmt"
	"testing"
	"time"

	"learngate"
)

// pathwayRulesCatalog adds to codesCatalog topics 8 (recertification
// allowed) and 9 (codes TP-8, TP-9); pathway 2 (code PW-2, no mandatory
// topic so every topic counts, recertification allowed, no certify days)
// holding topics 7, 8 and 9, so topic 7 belongs to two pathways; pathway 3
// (code PW-3) without topics.
const pathwayRulesCatalog = `
	INSERT INTO topics (title, minutes, cpd_minutes, recertification_allowed) VALUES ('Topic 8', 30, 10, true), ('Topic 9', 30, 10, false);
	INSERT INTO enrolment_codes (code, topic_id) VALUES ('TP-8', 8), ('TP-9', 9);
	INSERT INTO pathways (title, recertification_allowed) VALUES ('Path 2', true), ('Path 3', false);
	INSERT INTO pathway_topics (pathway_id, topic_id, position, mandatory) VALUES (2, 9, 1, false), (2, 7, 2, false), (2, 8, 3, false);
	INSERT INTO enrolment_codes (code, pathway_id) VALUES ('PW-2', 2), ('PW-3', 3)`

// pathwayRulesSetup moves seeded enrolments where codes cannot: cid's
// pathway 1 waits for recertification, gus's pathway 2 is Pre-enrolled,
// hal's topic 6 has progress and his topic 7 is Exploring.
const pathwayRulesSetup = `
	UPDATE pathway_enrolments SET status = 'recertify' WHERE user_id = (SELECT id FROM users WHERE user_name = 'cid');
	UPDATE pathway_enrolments SET status = 'Pre-enrolled' WHERE user_id = (SELECT id FROM users WHERE user_name = 'gus');
	UPDATE topic_enrolments SET progress_minutes = 10
		WHERE topic_id = 6 AND user_id = (SELECT id FROM users WHERE user_name = 'hal');
	UPDATE topic_enrolments SET status = 'Exploring'
		WHERE topic_id = 7 AND user_id = (SELECT id FROM users WHERE user_name = 'hal')`

// pathwayRulesBatch covers the rules of pathway codes and of codes of a
// pathway's topics: enrolling in a pathway some of whose topics the user
// already holds (directly, conquered, or through another pathway), due
// dates given to the pathway's topics and cleared, direct enrolments
// keeping theirs, statuses following the topics (Exploring, Conquered with
// the last conquered date of the required topics, a pathway waiting for
// recertification conquered only by a later conquest, Pre-enrolled),
// UNENROL removing only untouched topics no other pathway holds, a removed
// pathway enrolment coming back, a pathway without topics, skills, a
// problem, a failed user and topic codes outside any pathway in between.
func pathwayRulesBatch() (seed, batch []learngate.BatchRow) {
	seed = []learngate.BatchRow{
		codeRow("ann", with(code("TP-7 COMPLETE"), "-", "2025-05-01", "-", nil), code("TP-8")),
		codeRow("ben", code("PW-1")),
		codeRow("cid", code("PW-1 COMPLETE")),
		codeRow("dot", with(code("TP-6"), "2026-12-12", "-", "-", nil)),
		codeRow("gus", code("PW-2")),
		codeRow("hal", code("PW-1")),
	}
	taken := codeRow("eve", code("PW-1"), code("TP-6 COMPLETE"))
	taken.New.In.Email = strp("ann@example.com")
	batch = []learngate.BatchRow{
		codeRow("ann", with(code("PW-2"), "2027-01-01", "-", "-", nil), with(code("TP-8 COMPLETE"), "-", "2025-06-01", "-", nil),
			code("TP-1"), code("TP-9 COMPLETE"), with(code("PW-2 UPDATE"), "2028-02-02", "-", "-", []string{"Go"})),
		codeRow("ben", with(code("PW-2"), "2027-04-04", "-", "-", nil), code("PW-1 UNENROL"),
			with(code("PW-2 UPDATE"), "", "-", "-", nil), code("PW-1"), code("TP-9")),
		codeRow("cid", with(code("TP-6 COMPLETE"), "-", "2025-01-01", "-", nil), code("TP-6 COMPLETE"), code("TP-7 COMPLETE")),
		codeRow("dot", with(code("PW-1"), "2027-07-07", "-", "-", nil), with(code("PW-1 UPDATE"), "2027-08-08", "-", "-", nil),
			code("PW-3"), with(code("PW-3 COMPLETE"), "-", "-", "-", []string{"Go", "SQL"}),
			with(code("PW-3 UPDATE"), "-", "-", "-", []string{"SQL"})),
		taken,
		codeRow("dot", code("PW-1 UNENROL"), code("PW-1 UPDATE"), code("TP-2"), code("PW-2 UNENROL")),
		codeRow("fay", code("TP-6"), with(code("PW-1 COMPLETE"), "-", "2025-03-03", "-", nil), code("TP-7 COMPLETE"),
			with(code("PW-1 UPDATE"), "-", "-", "", nil), code("PW-2")),
		codeRow("gus", code("TP-8"), with(code("TP-9 UPDATE"), "-", "2025-07-07", "-", nil), code("TP-9 COMPLETE"),
			code("TP-8 COMPLETE"), code("TP-7 COMPLETE")),
		codeRow("hal", code("PW-1 UNENROL"), code("PW-1"), code("TP-6 UNENROL"), code("PW-1 COMPLETE"), code("PW-1 UNENROL")),
		codeRow("ann", code("PW-2 UNENROL"), code("PW-2"), code("TP-8 UNENROL"), code("PW-2 COMPLETE")),
	}
	return seed, batch
}

// The rules of pathway codes and of codes of a pathway's topics give what
// applying them group by group gave (testdata/batch_codes_pathway_rules.golden,
// written by the group-by-group apply).
func TestBatchSaveUsersPathwayCodeRules(t *testing.T) {
	t.Parallel()
	seedAt := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	seed, batch := pathwayRulesBatch()
	got, statements := codesOutcomeWith(t, pathwayRulesCatalog, pathwayRulesSetup, seed, batch, seedAt, seedAt.Add(time.Hour))
	t.Logf("%d statements", statements)
	checkGolden(t, "batch_codes_pathway_rules", got)
}

// mixedCodesBatch is the load test's batch with codes in small: each user
// gets a topic of a pathway with a due date, a topic outside any pathway
// and a pathway (the one holding that topic or another); some users exist
// with enrolments in those pathways and topics.
func mixedCodesBatch() (seed, batch []learngate.BatchRow) {
	seed = []learngate.BatchRow{codeRow("u0", code("PW-2")), codeRow("u1", with(code("TP-7 COMPLETE"), "-", "2025-04-04", "-", nil)),
		codeRow("u2", code("TP-6"), code("PW-1"))}
	for k := range 8 {
		batch = append(batch, codeRow(fmt.Sprintf("u%d", k),
			with(code(fmt.Sprintf("TP-%d", 6+k%4)), "2031-01-31", "-", "-", nil),
			code(fmt.Sprintf("TP-%d", 1+k%5)),
			code(fmt.Sprintf("PW-%d", 1+k%2))))
	}
	return seed, batch
}

// A batch of mixed codes as the load test sends gives what applying them
// group by group gave (testdata/batch_codes_mixed.golden, written by the
// group-by-group apply).
func TestBatchSaveUsersMixedCodes(t *testing.T) {
	t.Parallel()
	seedAt := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	seed, batch := mixedCodesBatch()
	got, statements := codesOutcomeWith(t, pathwayRulesCatalog, "", seed, batch, seedAt, seedAt.Add(time.Hour))
	t.Logf("%d statements", statements)
	checkGolden(t, "batch_codes_mixed", got)
}
