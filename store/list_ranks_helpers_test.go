package store

import (
	"context"
	"strings"

	"learngate/store/list"
)

// The anchored lists ordered by id, as the tests go over them.
var (
	rankedLists         = []list.Spec{list.TopicEnrolments, list.PathwayEnrolments, list.Knowledge}
	topicEnrolmentRanks = list.TopicEnrolments
)

// maintainUserRanks keeps the users list's anchors every spacing users, in
// transactions of at most batch.
func maintainUserRanks(ctx context.Context, tdb *TenantDB, spacing, batch int64) (int64, error) {
	return maintainListRanks(ctx, tdb, list.Users, spacing, batch)
}

// listed is the condition of the rows list l shows, over its table without
// an alias.
func listed(l list.Spec) string {
	if l.Listed == "" {
		return "true"
	}
	return strings.TrimPrefix(l.Listed, l.Alias+".")
}

// pageOffset is the number of records before a numbered page.
func pageOffset(p list.Page) int64 { return int64(p.Number-1) * int64(p.Size) }

// usersSelect is the users list's SELECT, as ListUsers gives it to list.Select.
const usersSelect = `SELECT ` + userColumns + ` FROM users`

// rankAnchors is the row of list.Spec.AnchorsStatement for a list ordered by id.
type rankAnchors struct {
	NewestRank int64 `db:"newest_rank"`
	NewestID   int64 `db:"newest_id"`
	PageRank   int64 `db:"page_rank"`
	PageID     int64 `db:"page_id"`
}
