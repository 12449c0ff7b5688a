package store

import (
	"context"
	"fmt"
	"learngate"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"learngate/store/list"
)

// seedRankedLists gives tdb, in one statement each, users × n topic
// enrolments, pathway enrolments and external knowledge records (n topics,
// n pathways, n records a user); every seventh topic enrolment is already
// removed. updated_at grows with the id, one second a row.
func seedRankedLists(t testing.TB, tdb *TenantDB, prefix string, users, topics int) {
	t.Helper()
	err := tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(fmt.Sprintf(`
			INSERT INTO topics (title) SELECT '%[1]s topic ' || g FROM generate_series(1, %[3]d) g;
			INSERT INTO pathways (title) SELECT '%[1]s pathway ' || g FROM generate_series(1, %[3]d) g;
			INSERT INTO users (user_name, first_name, last_name, email, timezone)
				SELECT '%[1]s' || g, 'F', 'L', '%[1]s' || g || '@example.com', 'UTC' FROM generate_series(1, %[2]d) g;
			INSERT INTO topic_enrolments (user_id, topic_id, enrolled_by, removed_at, updated_at)
				SELECT u.id, t.id, 'api', CASE WHEN (u.id * 31 + t.id) %% 7 = 0 THEN now() END,
					timestamptz '2025-01-01' + row_number() OVER (ORDER BY u.id, t.id) * interval '1 second'
				FROM users u CROSS JOIN topics t ORDER BY u.id, t.id;
			INSERT INTO pathway_enrolments (user_id, pathway_id, updated_at)
				SELECT u.id, p.id, timestamptz '2025-01-01' + row_number() OVER (ORDER BY u.id, p.id) * interval '1 second'
				FROM users u CROSS JOIN pathways p ORDER BY u.id, p.id;
			INSERT INTO external_knowledges (user_id, knowledge_type, title, date_obtained, updated_at)
				SELECT u.id, 1, 'Course ' || g, date '2026-01-01',
					timestamptz '2025-01-01' + row_number() OVER (ORDER BY u.id, g) * interval '1 second'
				FROM users u CROSS JOIN generate_series(1, %[3]d) g ORDER BY u.id, g;
			ANALYZE`, prefix, users, topics))
		return err
	})
	if err != nil {
		t.Fatalf("seed lists: %v", err)
	}
}

// rankedListIDs returns the ids and total of one numbered page of list l
// through its store call, unfiltered.
func rankedListIDs(t *testing.T, tdb *TenantDB, l list.Spec, page list.Page) ([]int64, int64) {
	t.Helper()
	ctx := context.Background()
	ids := []int64{}
	var total int64
	var err error
	switch l.Table {
	case "topic_enrolments":
		var rows []learngate.TopicEnrolment
		rows, total, err = ListTopicEnrolments(ctx, tdb, list.EnrolmentFilter{}, page)
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
	case "pathway_enrolments":
		var rows []learngate.PathwayEnrolment
		rows, total, err = ListPathwayEnrolments(ctx, tdb, list.EnrolmentFilter{}, page)
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
	default:
		var rows []learngate.ExternalKnowledge
		rows, total, err = ListExternalKnowledges(ctx, tdb, list.KnowledgeFilter{}, page)
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
	}
	if err != nil {
		t.Fatalf("list %s page %d: %v", l.Table, page.Number, err)
	}
	return ids, total
}

// checkRankedPages compares every page of size of list l (and the one past
// the end) with the plain count and OFFSET in one snapshot.
func checkRankedPages(t *testing.T, tdb *TenantDB, l list.Spec, size int) {
	t.Helper()
	for number := 1; ; number++ {
		page := list.Page{Number: number, Size: size}
		got, total := rankedListIDs(t, tdb, l, page)
		want := []int64{}
		var wantTotal int64
		err := tdb.SnapshotTx(context.Background(), func(tx *sqlx.Tx) error {
			if err := tx.Get(&wantTotal, `SELECT count(*) FROM `+l.Table+` WHERE `+listed(l)); err != nil {
				return err
			}
			return tx.Select(&want, `SELECT id FROM `+l.Table+` WHERE `+listed(l)+` ORDER BY id LIMIT $1 OFFSET $2`,
				page.Size, pageOffset(page))
		})
		if err != nil {
			t.Fatal(err)
		}
		if total != wantTotal || !slices.Equal(got, want) {
			t.Fatalf("%s page %d of %d: total %d, ids %v; want total %d, ids %v", l.Table, number, size, total, got, wantTotal, want)
		}
		if len(want) == 0 {
			return
		}
	}
}

// listRankState returns list l's anchor and dirty row counts.
func listRankState(t *testing.T, tdb *TenantDB, l list.Spec) (anchors, dirty int) {
	t.Helper()
	err := tdb.ReadTx(context.Background(), func(tx *sqlx.Tx) error {
		return tx.QueryRow(`SELECT (SELECT count(*) FROM `+l.Anchors.Table+`), (SELECT count(*) FROM `+l.Anchors.Dirty+`)`).
			Scan(&anchors, &dirty)
	})
	if err != nil {
		t.Fatal(err)
	}
	return anchors, dirty
}

// execTenant runs q in a read-write transaction of tdb.
func execTenant(t *testing.T, tdb *TenantDB, q string, args ...any) {
	t.Helper()
	err := tdb.Tx(context.Background(), func(tx *sqlx.Tx) error {
		_, err := tx.Exec(q, args...)
		return err
	})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestListRanksGuards: an id never changes, and a row committed with an id
// below the anchors (a transaction that took its id early and committed
// after the job ran) marks them dirty, so every page stays exact before
// the job runs again.
func TestListRanksGuards(t *testing.T) {
	t.Parallel()
	tdb, _ := benchTenant(t)
	seedRankedLists(t, tdb, "u", 20, 5)
	ctx := context.Background()
	for _, l := range rankedLists {
		maintain := func() {
			t.Helper()
			if _, err := maintainListRanks(ctx, tdb, l, 10, 1000); err != nil {
				t.Fatal(err)
			}
		}
		maintain()
		err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
			_, err := tx.Exec(`UPDATE ` + l.Table + ` SET id = id + 100000 WHERE id = (SELECT max(id) FROM ` + l.Table + `)`)
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "never changes") {
			t.Fatalf("%s: re-keying a row: %v, want refused", l.Table, err)
		}
		// Take a listed row below the anchors out, let the job run, then
		// commit it again under its old id, as a late transaction would.
		var row string
		err = tdb.Tx(ctx, func(tx *sqlx.Tx) error {
			return tx.Get(&row, `DELETE FROM `+l.Table+` WHERE id = (
				SELECT id FROM `+l.Table+` WHERE `+listed(l)+` ORDER BY id OFFSET 15 LIMIT 1) RETURNING to_jsonb(`+l.Table+`)::text`)
		})
		if err != nil {
			t.Fatal(err)
		}
		maintain()
		if _, d := listRankState(t, tdb, l); d != 0 {
			t.Fatalf("%s: %d dirty ids after the job", l.Table, d)
		}
		execTenant(t, tdb, `INSERT INTO `+l.Table+` SELECT (jsonb_populate_record(NULL::`+l.Table+`, $1::jsonb)).*`, row)
		if _, d := listRankState(t, tdb, l); d != 1 {
			t.Fatalf("%s: a late commit below the anchors left %d dirty ids, want 1", l.Table, d)
		}
		checkRankedPages(t, tdb, l, 6)
		maintain()
		checkRankedPages(t, tdb, l, 6)
	}
}

// TestListRanksConcurrentWriters runs writers that enrol new users (their
// ids taken in transactions that overlap, so some commit below a newer
// anchor), unenrol and restore random enrolments, while the job runs
// without pause and a reader compares anchored pages of topic enrolments
// with the plain count and OFFSET in the same snapshot; at the end every
// page is compared again.
func TestListRanksConcurrentWriters(t *testing.T) {
	t.Parallel()
	tdb, _ := benchTenant(t)
	ctx := context.Background()
	seedRankedLists(t, tdb, "u", 60, 6) // 360 topic enrolments
	const spacing, batch = 5, 60
	l := topicEnrolmentRanks
	if _, err := maintainListRanks(ctx, tdb, l, spacing, batch); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	errs := make(chan error, 16)
	var writers, others sync.WaitGroup
	for w := 0; w < 3; w++ {
		writers.Add(1)
		go func() {
			defer writers.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for i := 0; i < 40; i++ {
				err := tdb.Tx(ctx, func(tx *sqlx.Tx) error {
					var err error
					switch rng.IntN(3) {
					case 0:
						_, err = tx.Exec(`WITH u AS (INSERT INTO users (user_name, first_name, last_name, email, timezone)
							VALUES ($1, 'F', 'L', $1 || '@example.com', 'UTC') RETURNING id)
							INSERT INTO topic_enrolments (user_id, topic_id) SELECT u.id, t.id FROM u, topics t WHERE t.id <= 2`,
							fmt.Sprintf("w%d-%d", w, i))
					case 1:
						_, err = tx.Exec(`UPDATE topic_enrolments SET removed_at = now() WHERE id = (
							SELECT id FROM topic_enrolments WHERE removed_at IS NULL ORDER BY random() LIMIT 1)`)
					default:
						_, err = tx.Exec(`UPDATE topic_enrolments SET removed_at = NULL WHERE id = (
							SELECT id FROM topic_enrolments WHERE removed_at IS NOT NULL ORDER BY random() LIMIT 1)`)
					}
					if err != nil {
						return err
					}
					time.Sleep(time.Duration(rng.IntN(5)) * time.Millisecond)
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	others.Add(2)
	go func() { // the job
		defer others.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := maintainListRanks(ctx, tdb, l, spacing, batch); err != nil {
				errs <- err
				return
			}
		}
	}()
	go func() { // a reader checking within one snapshot
		defer others.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			page := list.Page{Number: 1 + i%60, Size: 7}
			err := tdb.SnapshotTx(ctx, func(tx *sqlx.Tx) error {
				var rows []topicEnrolmentRow
				total, err := list.Select(ctx, tx, &rows, l, topicEnrolmentSelect, list.EnrolmentFilter{}.Query(l), page)
				if err != nil {
					return err
				}
				want := []int64{}
				var wantTotal int64
				if err := tx.Get(&wantTotal, `SELECT count(*) FROM topic_enrolments WHERE removed_at IS NULL`); err != nil {
					return err
				}
				if err := tx.Select(&want, `SELECT id FROM topic_enrolments WHERE removed_at IS NULL ORDER BY id LIMIT 7 OFFSET $1`,
					pageOffset(page)); err != nil {
					return err
				}
				got := []int64{}
				for _, r := range rows {
					got = append(got, r.ID)
				}
				if total != wantTotal || !slices.Equal(got, want) {
					return fmt.Errorf("page %d: total %d ids %v; want %d %v", page.Number, total, got, wantTotal, want)
				}
				return nil
			})
			if err != nil {
				errs <- err
				return
			}
		}
	}()
	writers.Wait()
	close(done)
	others.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkRankedPages(t, tdb, l, 13)
	if _, err := maintainListRanks(ctx, tdb, l, spacing, batch); err != nil {
		t.Fatal(err)
	}
	checkRankedPages(t, tdb, l, 13)
	if _, dirty := listRankState(t, tdb, l); dirty != 0 {
		t.Fatalf("%d dirty ids after the last run", dirty)
	}
}
