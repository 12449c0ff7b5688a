package store

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// The event recorder every writer uses: a change records its events in its
// own transaction, for the webhook endpoints subscribed to them (the
// deliveries are in webhook_*.go).

// Event types (docs/decisions.md, "Webhooks"). A change records its event with
// TenantDB.RecordEvent in the change's own transaction.
const (
	EventUserCreated               = "user.created"
	EventUserUpdated               = "user.updated"
	EventUserDeactivated           = "user.deactivated"
	EventUserReactivated           = "user.reactivated"
	EventUserSignedIn              = "user.signed_in" // a learner signed in on the tenant's host (docs/decisions.md, "Sign-in")
	EventTopicEnrolmentCreated     = "topic_enrolment.created"
	EventTopicEnrolmentUpdated     = "topic_enrolment.updated"
	EventTopicEnrolmentConquered   = "topic_enrolment.conquered"
	EventPathwayEnrolmentCreated   = "pathway_enrolment.created"
	EventPathwayEnrolmentUpdated   = "pathway_enrolment.updated"
	EventPathwayEnrolmentConquered = "pathway_enrolment.conquered"
	EventExternalKnowledgeCreated  = "external_knowledge.created"
	EventExternalKnowledgeUpdated  = "external_knowledge.updated"
	EventCertificateCompleted      = "certificate.completed"
	EventCertificateFailed         = "certificate.failed"
	// EventPing is sent by POST /papi/webhooks/{id}/test to that endpoint
	// only; it cannot be subscribed to.
	EventPing = "ping"
	// AllEvents in an endpoint's events subscribes it to every type but ping.
	AllEvents = "*"
)

// subscribableEvents are the types an endpoint may name, in the order of
// docs/decisions.md, "Webhooks".
var subscribableEvents = []string{
	EventUserCreated, EventUserUpdated, EventUserDeactivated, EventUserReactivated, EventUserSignedIn,
	EventTopicEnrolmentCreated, EventTopicEnrolmentUpdated, EventTopicEnrolmentConquered,
	EventPathwayEnrolmentCreated, EventPathwayEnrolmentUpdated, EventPathwayEnrolmentConquered,
	EventExternalKnowledgeCreated, EventExternalKnowledgeUpdated,
	EventCertificateCompleted, EventCertificateFailed,
}

// EventTypes returns the event types an endpoint may subscribe to.
func EventTypes() []string { return slices.Clone(subscribableEvents) }

// Event is an event to record.
type Event struct {
	Type string
	// Data is the resource exactly as the API returns it; it is marshalled
	// to JSON when the event is recorded, so later changes do not alter it.
	Data any
	// At is when the change happened, by the caller's clock: the payload's
	// created_at.
	At time.Time
}

// webhookTarget is an enabled endpoint and the event types it subscribes to.
type webhookTarget struct {
	ID     int64          `db:"id"`
	Events pq.StringArray `db:"events"`
}

// wants reports whether the endpoint subscribes to events of type typ.
func (w webhookTarget) wants(typ string) bool {
	return typ != EventPing && (slices.Contains(w.Events, AllEvents) || slices.Contains(w.Events, typ))
}

// webhookTargetsSQL lists the tenant's enabled endpoints, by id. The benchmark's baseline
// (bench/baseline) keeps a copy.
const webhookTargetsSQL = `SELECT id, events FROM webhook_endpoints WHERE enabled ORDER BY id`

// webhookTargets lists the tenant's enabled endpoints, by id.
func webhookTargets(ctx context.Context, tx *sqlx.Tx) ([]webhookTarget, error) {
	var targets []webhookTarget
	if err := tx.SelectContext(ctx, &targets, webhookTargetsSQL); err != nil {
		return nil, fmt.Errorf("list webhook endpoints: %w", err)
	}
	return targets, nil
}

// anyWants reports whether any of targets subscribes to typ.
func anyWants(targets []webhookTarget, typ string) bool {
	return slices.ContainsFunc(targets, func(w webhookTarget) bool { return w.wants(typ) })
}

// RecordEvent records one event inside tx, the transaction of the change
// that caused it: it is delivered to every enabled endpoint subscribed to
// typ once tx commits, and never if tx rolls back. data is the resource
// exactly as the API returns it. With no subscribed endpoint nothing is
// stored; the cost is then one small query.
func (t *TenantDB) RecordEvent(ctx context.Context, tx *sqlx.Tx, typ string, data any, at time.Time) error {
	return t.RecordEvents(ctx, tx, Event{Type: typ, Data: data, At: at})
}

// RecordEvents is RecordEvent for several events, in order, with a fixed
// number of statements whatever their number: the event rows, one delivery
// per subscribed endpoint and event, and one drain job per endpoint.
func (t *TenantDB) RecordEvents(ctx context.Context, tx *sqlx.Tx, events ...Event) error {
	if len(events) == 0 {
		return nil
	}
	targets, err := webhookTargets(ctx, tx)
	if err != nil {
		return err
	}
	return t.recordEventsFor(ctx, tx, targets, events)
}

// recordEventsFor records events for targets (webhookTargets of tx).
func (t *TenantDB) recordEventsFor(ctx context.Context, tx *sqlx.Tx, targets []webhookTarget, events []Event) error {
	var ids, types, ats, datas pq.StringArray
	var delEndpoints pq.Int64Array
	var delEvents, delAts pq.StringArray
	endpoints := map[int64]bool{}
	var gen eventIDs
	for _, ev := range events {
		var wanted []int64
		for _, w := range targets {
			if w.wants(ev.Type) {
				wanted = append(wanted, w.ID)
			}
		}
		if len(wanted) == 0 {
			continue
		}
		data, err := json.Marshal(ev.Data)
		if err != nil {
			return fmt.Errorf("event %s data: %w", ev.Type, err)
		}
		id, err := gen.next(ev.At)
		if err != nil {
			return err
		}
		at := ev.At.UTC().Format(time.RFC3339Nano)
		ids, types, ats, datas = append(ids, id), append(types, ev.Type), append(ats, at), append(datas, string(data))
		for _, e := range wanted {
			delEndpoints, delEvents, delAts = append(delEndpoints, e), append(delEvents, id), append(delAts, at)
			endpoints[e] = true
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_events (id, type, created_at, data)
		SELECT i, ty, at::timestamptz, d::json FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS x(i, ty, at, d)`,
		ids, types, ats, datas); err != nil {
		return fmt.Errorf("record events: %w", err)
	}
	// Delivery ids follow the order of the events: the order of delivery.
	// A new delivery is due at once by the database's clock, whatever the
	// caller's (dueNowSQL).
	if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (endpoint_id, event_id, next_attempt_at, created_at, updated_at)
		SELECT e, v, `+dueNowSQL+`, at::timestamptz, at::timestamptz
		FROM unnest($1::bigint[], $2::text[], $3::text[]) WITH ORDINALITY AS x(e, v, at, n) ORDER BY n`,
		delEndpoints, delEvents, delAts); err != nil {
		return fmt.Errorf("record deliveries: %w", err)
	}
	queue := make([]int64, 0, len(endpoints))
	for e := range endpoints {
		queue = append(queue, e)
	}
	sort.Slice(queue, func(i, j int) bool { return queue[i] < queue[j] })
	if err := t.queueDrains(ctx, tx, queue); err != nil {
		return err
	}
	// The new deliveries are due at once: webhook maintenance watches the
	// tenant until they are delivered (store.NextDue), and purges the
	// events after WebhookRetention.
	return markDue(ctx, tx, t.schema, DueWebhooks, events[0].At)
}

// crockford is Crockford's base-32 alphabet (no I, L, O or U to misread),
// used by event ids (ULIDs) and certificate ids.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// eventIDs makes event ids: evt_ and a ULID (the event's time in Unix
// milliseconds, then 80 random bits, in Crockford base32), so ids sort by
// time. Within one generator ids strictly increase, also in one millisecond.
type eventIDs struct {
	lastMS  int64
	entropy [10]byte
	started bool
}

// next returns the id of an event at `at`.
func (g *eventIDs) next(at time.Time) (string, error) {
	ms := max(at.UnixMilli(), 0)
	if g.started && ms <= g.lastMS {
		ms = g.lastMS
		for i := len(g.entropy) - 1; i >= 0; i-- { // increment, big-endian
			g.entropy[i]++
			if g.entropy[i] != 0 {
				break
			}
		}
	} else if _, err := rand.Read(g.entropy[:]); err != nil {
		return "", fmt.Errorf("event id: %w", err)
	}
	g.lastMS, g.started = ms, true

	var out [26]byte
	for i := 9; i >= 0; i-- {
		out[i] = crockford[ms&31]
		ms >>= 5
	}
	for i := range 16 { // 80 bits, 5 at a time
		bit := i * 5
		v := uint16(g.entropy[bit/8]) << 8
		if bit/8+1 < len(g.entropy) {
			v |= uint16(g.entropy[bit/8+1])
		}
		out[10+i] = crockford[(v>>(11-bit%8))&31]
	}
	return "evt_" + string(out[:]), nil
}
