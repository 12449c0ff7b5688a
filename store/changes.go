package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"learngate"
)

// The changes a transaction makes to users, enrolments and external
// knowledge, collected while it runs and recorded as events at its end.

// resourceKind is the kind of resource an event carries.
type resourceKind int

const (
	kindUser resourceKind = iota
	kindTopicEnrolment
	kindPathwayEnrolment
	kindKnowledge
)

// resourceRef addresses one resource of the tenant.
type resourceRef struct {
	kind resourceKind
	id   int64
}

// change is one change a transaction made to a resource, and the type of
// the event it causes. Changes are collected while the transaction runs
// and their events recorded at its end (recordChanges), each with the
// resource as the transaction left it.
type change struct {
	resourceRef
	typ string
}

// changes are a transaction's changes in the order they happened: the
// order their events are recorded and delivered in.
type changes []change

// add appends a change.
func (cs *changes) add(kind resourceKind, id int64, typ string) {
	*cs = append(*cs, change{resourceRef: resourceRef{kind: kind, id: id}, typ: typ})
}

// note adds the change of a resource as part of one change (one enrolment
// code, one progress report): when cs already holds a change of that
// resource, it keeps the more specific of the two types instead, so one
// change causes one event per resource. Callers pass a cs of one change only.
func (cs *changes) note(kind resourceKind, id int64, typ string) {
	for i, c := range *cs {
		if c.kind == kind && c.id == id {
			if eventRank(typ) > eventRank(c.typ) {
				(*cs)[i].typ = typ
			}
			return
		}
	}
	cs.add(kind, id, typ)
}

// eventRank orders the enrolment event types from the least to the most
// specific: updated, created, conquered. A new enrolment that a change also
// conquers is conquered (receivers act on conquests); any other new one is
// created.
func eventRank(typ string) int {
	switch typ {
	case EventTopicEnrolmentConquered, EventPathwayEnrolmentConquered:
		return 2
	case EventTopicEnrolmentCreated, EventPathwayEnrolmentCreated:
		return 1
	}
	return 0
}

// userChange is what a save did to a user: userUnchanged, or the type of
// the event the change causes.
type userChange string

// userUnchanged: nothing was written.
const userUnchanged userChange = ""

// changeOf is the event of a save that wrote something: user.created for a
// new user (old nil); user.deactivated or user.reactivated when active
// flipped; user.updated for any other change. One save causes one event.
func changeOf(old *userRow, active bool) userChange {
	switch {
	case old == nil:
		return EventUserCreated
	case old.Active && !active:
		return EventUserDeactivated
	case !old.Active && active:
		return EventUserReactivated
	}
	return EventUserUpdated
}

// recordUser records the event of one save (nothing when unchanged), with
// user as it now stands.
// It then marks the due work the save created (markChanges).
func (t *TenantDB) recordUser(ctx context.Context, tx *sqlx.Tx, change userChange, user learngate.User, at time.Time) error {
	if change == userUnchanged {
		return nil
	}
	if err := t.RecordEvent(ctx, tx, string(change), user, at); err != nil {
		return err
	}
	var cs changes
	cs.add(kindUser, user.ID, string(change))
	return t.markChanges(ctx, tx, cs, at)
}

// recordChanges records the events of cs, in order, each with its resource
// as it stands in tx and created_at at. Only the resources whose event some
// endpoint subscribes to are loaded, with a fixed number of queries per
// kind of resource whatever their number; with no change nothing is sent,
// with no subscribed endpoint only the query that finds the endpoints.
// Last, it marks the periodic work the changes create (markChanges).
func (t *TenantDB) recordChanges(ctx context.Context, tx *sqlx.Tx, cs changes, at time.Time) error {
	if len(cs) == 0 {
		return nil
	}
	if err := t.recordChangeEvents(ctx, tx, cs, at); err != nil {
		return err
	}
	return t.markChanges(ctx, tx, cs, at)
}

// recordChangeEvents is the events part of recordChanges.
func (t *TenantDB) recordChangeEvents(ctx context.Context, tx *sqlx.Tx, cs changes, at time.Time) error {
	targets, err := webhookTargets(ctx, tx)
	if err != nil {
		return err
	}
	ids := map[resourceKind]pq.Int64Array{}
	seen := map[resourceRef]bool{}
	for _, c := range cs {
		if anyWants(targets, c.typ) && !seen[c.resourceRef] {
			seen[c.resourceRef] = true
			ids[c.kind] = append(ids[c.kind], c.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	loaded := make(map[resourceRef]any, len(seen))
	for kind, kindIDs := range ids {
		if err := loadResources(ctx, tx, kind, kindIDs, loaded); err != nil {
			return err
		}
	}
	events := make([]Event, 0, len(cs))
	for _, c := range cs {
		if data, ok := loaded[c.resourceRef]; ok && anyWants(targets, c.typ) {
			events = append(events, Event{Type: c.typ, Data: data, At: at})
		}
	}
	return t.recordEventsFor(ctx, tx, targets, events)
}

// loadResources loads the resources of kind with ids, as the API returns
// them, into out (keyed by kind and id), with the loaders the lists use.
// Removed enrolments are loaded too: the event of UNENROL carries one.
func loadResources(ctx context.Context, tx *sqlx.Tx, kind resourceKind, ids pq.Int64Array, out map[resourceRef]any) error {
	switch kind {
	case kindUser:
		var rows []userRow
		if err := tx.SelectContext(ctx, &rows, `SELECT `+userColumns+` FROM users WHERE id = ANY($1)`, ids); err != nil {
			return fmt.Errorf("load changed users: %w", err)
		}
		users, err := loadUsers(ctx, tx, rows)
		if err != nil {
			return err
		}
		for _, u := range users {
			out[resourceRef{kind, u.ID}] = u
		}
	case kindTopicEnrolment:
		var rows []topicEnrolmentRow
		if err := tx.SelectContext(ctx, &rows, topicEnrolmentSelect+` WHERE e.id = ANY($1)`, ids); err != nil {
			return fmt.Errorf("load changed topic enrolments: %w", err)
		}
		loaded, err := loadTopicEnrolments(ctx, tx, rows)
		if err != nil {
			return err
		}
		for _, e := range loaded {
			out[resourceRef{kind, e.ID}] = e
		}
	case kindPathwayEnrolment:
		var rows []pathwayEnrolmentRow
		if err := tx.SelectContext(ctx, &rows, pathwayEnrolmentSelect+` WHERE e.id = ANY($1)`, ids); err != nil {
			return fmt.Errorf("load changed pathway enrolments: %w", err)
		}
		loaded, err := loadPathwayEnrolments(ctx, tx, rows)
		if err != nil {
			return err
		}
		for _, e := range loaded {
			out[resourceRef{kind, e.ID}] = e
		}
	case kindKnowledge:
		var rows []knowledgeRow
		if err := tx.SelectContext(ctx, &rows, selectKnowledge+` WHERE k.id = ANY($1)`, ids); err != nil {
			return fmt.Errorf("load changed external knowledge: %w", err)
		}
		loaded, err := loadKnowledges(ctx, tx, rows)
		if err != nil {
			return err
		}
		for _, k := range loaded {
			out[resourceRef{kind, k.ID}] = k
		}
	default:
		return fmt.Errorf("load changed resources: unknown kind %d", kind)
	}
	return nil
}
