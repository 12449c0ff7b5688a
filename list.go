package learngate

import (
	"time"
)

// Key is a record's position in its list's order: its id, and for users
// (ordered by created_at, then id) its created_at too.
type Key struct {
	CreatedAt time.Time
	ID        int64
}

// Keyed is a list record that knows its position in its list.
type Keyed interface {
	// ListKey is the record's position in its list's order.
	ListKey() Key
}

// ListKey is the enrolment's position in its list (id ascending).
func (e TopicEnrolment) ListKey() Key { return Key{ID: e.ID} }

// ListKey is the enrolment's position in its list (id ascending).
func (e PathwayEnrolment) ListKey() Key { return Key{ID: e.ID} }

// ListKey is the record's position in its list (id ascending).
func (k ExternalKnowledge) ListKey() Key { return Key{ID: k.ID} }

// ListKey is the entry's position in its catalog (id ascending).
func (c CatalogItem) ListKey() Key { return Key{ID: c.ID} }

// ListKey is the field's position in its list (id ascending).
func (f CustomField) ListKey() Key { return Key{ID: f.ID} }

// ListKey is the topic's position in its list (id ascending).
func (t Topic) ListKey() Key { return Key{ID: t.ID} }

// ListKey is the pathway's position in its list (id ascending).
func (p Pathway) ListKey() Key { return Key{ID: p.ID} }

// ListKey is the endpoint's position in its list (id ascending).
func (w Webhook) ListKey() Key { return Key{ID: w.ID} }

// ListKey is the delivery's position in its list (id descending).
func (d Delivery) ListKey() Key { return Key{ID: d.ID} }

// ListKey is the user's position in the users list (created_at, then id,
// descending).
func (u User) ListKey() Key { return Key{CreatedAt: u.CreatedAt, ID: u.ID} }
