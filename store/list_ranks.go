package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"learngate/store/list"
)

// anchoredLists are the lists with rank anchors (list.Anchors), in the
// order MaintainListRanks keeps them.
var anchoredLists = []list.Spec{list.Users, list.TopicEnrolments, list.PathwayEnrolments, list.Knowledge}

// MaintainListRanks brings every rank anchor of the tenant up to date: the
// users', the topic enrolments', the pathway enrolments' and the external
// knowledge records' (list.Maintain). It returns how many anchors it added.
// A list whose writers hold its lock past a short timeout is left for the
// next run, without error. A benchmark or import that bulk-loads rows calls
// it once afterwards, as the worker's rank_anchors job does every minute.
func MaintainListRanks(ctx context.Context, tdb *TenantDB) (int64, error) {
	var added int64
	for _, s := range anchoredLists {
		n, err := maintainListRanks(ctx, tdb, s, list.AnchorSpacing, list.AnchorBatch)
		added += n
		if err != nil {
			return added, err
		}
	}
	return added, nil
}

// MaintainUserRanks is MaintainListRanks for the users list alone.
func MaintainUserRanks(ctx context.Context, tdb *TenantDB) (int64, error) {
	return maintainListRanks(ctx, tdb, list.Users, list.AnchorSpacing, list.AnchorBatch)
}

// maintainListRanks keeps the anchors of list s of the tenant, every spacing
// rows, in transactions of at most batch rows.
func maintainListRanks(ctx context.Context, tdb *TenantDB, s list.Spec, spacing, batch int64) (int64, error) {
	n, err := list.Maintain(ctx, func(fn func(*sqlx.Tx) error) error { return tdb.Tx(ctx, fn) }, s, spacing, batch)
	if err != nil {
		return n, fmt.Errorf("%s: %w", tdb.schema, err)
	}
	return n, nil
}
