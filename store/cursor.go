package store

import "learngate"

// Cursor pages (docs/api.md, "Walking a list with links"; docs/decisions.md,
// "Lists and paging"): a page found by keyset from the last record of the page
// before it, rather than by OFFSET, so that its cost does not grow with depth.

// ListKey is the enrolment's position in its list (id ascending).
func (e TopicEnrolment) ListKey() learngate.Key { return learngate.Key{ID: e.ID} }

// ListKey is the enrolment's position in its list (id ascending).
func (e PathwayEnrolment) ListKey() learngate.Key { return learngate.Key{ID: e.ID} }

// ListKey is the record's position in its list (id ascending).
func (k ExternalKnowledge) ListKey() learngate.Key { return learngate.Key{ID: k.ID} }

// ListKey is the entry's position in its catalog (id ascending).
func (c CatalogItem) ListKey() learngate.Key { return learngate.Key{ID: c.ID} }

// ListKey is the field's position in its list (id ascending).
func (f CustomField) ListKey() learngate.Key { return learngate.Key{ID: f.ID} }

// ListKey is the topic's position in its list (id ascending).
func (t Topic) ListKey() learngate.Key { return learngate.Key{ID: t.ID} }

// ListKey is the pathway's position in its list (id ascending).
func (p Pathway) ListKey() learngate.Key { return learngate.Key{ID: p.ID} }

// ListKey is the endpoint's position in its list (id ascending).
func (w Webhook) ListKey() learngate.Key { return learngate.Key{ID: w.ID} }

// ListKey is the delivery's position in its list (id descending).
func (d Delivery) ListKey() learngate.Key { return learngate.Key{ID: d.ID} }

// ListKey is the user's position in the users list (created_at, then id,
// descending).
func (u User) ListKey() learngate.Key { return learngate.Key{CreatedAt: u.CreatedAt, ID: u.ID} }
