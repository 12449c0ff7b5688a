package list

import (
	"context"
	"fmt"
	"math"
	"reflect"

	"github.com/jmoiron/sqlx"

	"learngate"
)

// Statement is one SQL statement and its arguments, as the engine sends it.
type Statement struct {
	SQL  string
	Args []any
}

// Select fills dest (a pointer to a slice of the rows selectSQL scans) with
// one page of list s filtered by q, and returns how many records pass q.
// selectSQL is the store's SELECT of the list's rows and joins, with no
// WHERE, naming the list's table by s's alias. A numbered page counts
// (CountMatches, or from the rank anchors) and reads from whichever end is
// nearer (or from the anchor at or below the page); a cursor page reads the
// Size records after page.After and answers page.Total, counting nothing.
// It must run in one snapshot (the store's SnapshotTx) when it counts.
func Select(ctx context.Context, tx *sqlx.Tx, dest any, s Spec, selectSQL string, q *Query, page Page) (int64, error) {
	if page.After != nil {
		st := s.PageStatement(selectSQL, q, Window{Size: int64(page.Size), After: page.After})
		if err := tx.SelectContext(ctx, dest, st.SQL, st.Args...); err != nil {
			return 0, fmt.Errorf("select %s after a cursor: %w", s.Name, err)
		}
		return page.Total, nil
	}
	anchored := q.Plan.Count == CountAnchored || q.Plan.Count == CountAnchoredExcept
	if anchored && s.Anchors == nil {
		return 0, fmt.Errorf("list %s has no rank anchors", s.Name)
	}
	if q.Plan.Count == CountAnchored && q.filtered() {
		return 0, fmt.Errorf("list %s: an anchored count of a filtered list", s.Name)
	}
	offset := page.offset()
	var total int64
	var found anchorPair
	switch {
	case anchored:
		// An oldest-first list knows the rank of its page's first row now;
		// a newest-first one only once it has its total.
		rank := offset
		if s.desc() {
			rank = math.MaxInt64
		}
		var err error
		if found, err = s.lookUpAnchors(ctx, tx, rank); err != nil {
			return 0, err
		}
		if total, err = s.countSince(ctx, tx, found.newest); err != nil {
			return 0, err
		}
		if q.Plan.Count == CountAnchoredExcept {
			var except int64
			if err := tx.GetContext(ctx, &except, s.ExceptStatement(q).SQL); err != nil {
				return 0, fmt.Errorf("count %s left out: %w", s.Name, err)
			}
			total -= except
		}
	default:
		st := s.CountStatement(q)
		if err := tx.GetContext(ctx, &total, st.SQL, st.Args...); err != nil {
			return 0, fmt.Errorf("count %s: %w", s.Name, err)
		}
	}
	if page.Size <= 0 || total <= offset {
		return total, nil
	}
	w, err := s.window(ctx, tx, q, offset, int64(page.Size), total, found)
	if err != nil {
		return 0, err
	}
	st := s.PageStatement(selectSQL, q, w)
	if err := tx.SelectContext(ctx, dest, st.SQL, st.Args...); err != nil {
		return 0, fmt.Errorf("select %s page: %w", s.Name, err)
	}
	if s.reversed(q, w) {
		reverse(dest)
	}
	return total, nil
}

// window is where a numbered page of size rows after offset, of total,
// is read from: the nearer end of the list, or, for the unfiltered list,
// the rank anchor at or below it when that skips fewer rows. found holds
// the anchors already looked up.
func (s Spec) window(ctx context.Context, tx *sqlx.Tx, q *Query, offset, size, total int64, found anchorPair) (Window, error) {
	size = min(size, total-offset)
	rest := total - offset - size // the rows after the page
	w := Window{Size: size, Skip: offset}
	if rest < offset {
		w = Window{Size: size, Skip: rest, Backward: true}
	}
	if q.Plan.Count != CountAnchored || w.Skip < AnchorSpacing {
		return w, nil
	}
	// Anchors rank the rows in ascending key order: an oldest-first list's
	// page starts at rank offset, a newest-first one's lowest row at rank rest.
	rank, ascending := offset, false
	if s.desc() {
		rank, ascending = rest, true
		var err error
		if found, err = s.lookUpAnchors(ctx, tx, rank); err != nil {
			return Window{}, err
		}
	}
	if a := found.page; a.ok && rank-a.rank < w.Skip {
		return Window{Size: size, Skip: rank - a.rank, Backward: ascending, From: &a.key}, nil
	}
	return w, nil
}

// Window is the part of a list one page statement reads: Size rows after
// skipping Skip, from the list's start or its end (Backward), after a
// cursor's key (After) or from an anchor's key on (From, ascending).
type Window struct {
	Size, Skip int64
	Backward   bool
	After      *learngate.Key
	From       *learngate.Key
}

// reversed says whether the rows of w's statement come in the reverse of
// the list's order (a backward read of the rows themselves).
func (s Spec) reversed(q *Query, w Window) bool {
	return s.form(q, w) == ReadInOrder && w.Backward
}

// reverse reverses the slice dest points at.
func reverse(dest any) {
	v := reflect.ValueOf(dest).Elem()
	swap := reflect.Swapper(v.Interface())
	for i, j := 0, v.Len()-1; i < j; i, j = i+1, j-1 {
		swap(i, j)
	}
}
