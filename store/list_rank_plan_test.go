package store

import (
	"context"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

func TestListRanksExplainTmp(t *testing.T) {
	tdb, _ := benchTenant(t)
	seedRankedLists(t, tdb, "u", 10000, 100)
	if _, err := tdb.db.pool.Exec(`VACUUM ANALYZE ` + tdb.schema + `.topic_enrolments`); err != nil {
		t.Fatal(err)
	}
	n, err := MaintainListRanks(context.Background(), tdb)
	if err != nil {
		t.Fatal(err)
	}
	a, d := listRankState(t, tdb, topicEnrolmentRanks)
	t.Logf("added %d, topic anchors %d dirty %d", n, a, d)
	for _, q := range []string{} {
		var lines []string
		err := tdb.ReadTx(context.Background(), func(tx *sqlx.Tx) error {
			if strings.Contains(q, "$1") {
				return tx.Select(&lines, `EXPLAIN (ANALYZE, BUFFERS) `+q, 100, 150000)
			}
			return tx.Select(&lines, `EXPLAIN (ANALYZE, BUFFERS) `+q)
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + strings.Join(lines, "\n"))
	}
}
