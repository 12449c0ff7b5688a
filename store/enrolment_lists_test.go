//go:build slow

package store

import (
	"context"
	"learngate"
	"slices"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate/store/list"
)

// TestSeveralTargetsPagesExact proves that the topic and pathway lists
// filtered by several ids (found per target and merged, perTarget) equal
// the plain count and OFFSET page by page, with an id named twice and one
// of no enrolment, that a cursor walk sees every match once in id order,
// and that another tenant's enrolments of the same ids never show.
func TestSeveralTargetsPagesExact(t *testing.T) {
	tdb, _ := benchTenant(t)
	other := secondTenant(t, tdb, "other")
	seedRankedLists(t, tdb, "u", 40, 9) // removed enrolments included
	seedRankedLists(t, other, "o", 17, 9)
	ctx := context.Background()
	ids := []int64{3, 8, 3, 5, 999}
	f := list.EnrolmentFilter{TargetIDs: ids}
	if f.Query(list.TopicEnrolments).Plan.Read != list.ReadMerged {
		t.Fatal("several ids alone should be found per target")
	}
	for _, lst := range []struct{ table, target string }{{"topic_enrolments", "topic_id"}, {"pathway_enrolments", "pathway_id"}} {
		t.Run(lst.table, func(t *testing.T) {
			var want []int64
			if err := tdb.ReadTx(ctx, func(tx *sqlx.Tx) error {
				return tx.Select(&want, `SELECT id FROM `+lst.table+` WHERE removed_at IS NULL AND `+lst.target+
					` = ANY($1) ORDER BY id`, pq.Int64Array(ids))
			}); err != nil {
				t.Fatal(err)
			}
			if len(want) < 100 {
				t.Fatalf("seed gives %d matches, want over 100", len(want))
			}
			list1 := func(page list.Page) ([]int64, int64) {
				t.Helper()
				var got []int64
				var total int64
				var err error
				if lst.table == "topic_enrolments" {
					var es []learngate.TopicEnrolment
					es, total, err = ListTopicEnrolments(ctx, tdb, f, page)
					for _, e := range es {
						got = append(got, e.ID)
					}
				} else {
					var es []learngate.PathwayEnrolment
					es, total, err = ListPathwayEnrolments(ctx, tdb, f, page)
					for _, e := range es {
						got = append(got, e.ID)
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				return got, total
			}
			for _, size := range []int{7, 100} {
				for number := 1; ; number++ {
					got, total := list1(list.Page{Number: number, Size: size})
					lo := min((number-1)*size, len(want))
					if total != int64(len(want)) || !slices.Equal(got, want[lo:min(lo+size, len(want))]) {
						t.Fatalf("page %d of %d: total %d, ids %v; want %d, %v", number, size, total, got, len(want),
							want[lo:min(lo+size, len(want))])
					}
					if len(got) == 0 {
						break
					}
				}
			}
			var walked []int64
			var after *learngate.Key
			for number := 1; number <= len(want); number++ {
				got, _ := list1(list.Page{Number: number, Size: 11, After: after, Total: int64(len(want))})
				if len(got) == 0 {
					break
				}
				walked = append(walked, got...)
				after = &learngate.Key{ID: got[len(got)-1]}
			}
			if !slices.Equal(walked, want) {
				t.Fatalf("cursor walk saw %v, want %v", walked, want)
			}
		})
	}
}
