// Package datagen builds learngate's benchmark dataset: tenants created
// through the real registry (so schemas, keys and migrations are exactly
// what production makes), then filled set-based (INSERT ... SELECT FROM
// generate_series) with users, their roles, groups, goals and custom field
// values, topics, pathways, enrolments and external knowledge: rows the
// Public API could have written. A marker in the database records the spec
// it holds, so an unchanged dataset is reused instead of rebuilt.
package datagen

import (
	"encoding/json"
	"fmt"
)

// TenantSpec is one tenant of a dataset and how much data it holds.
type TenantSpec struct {
	Slug string `json:"slug"`
	// Users is the number of users (user_name user0000001 ...).
	Users int `json:"users"`
	// TopicEnrolments is the number of current topic enrolments; at most
	// Users × Topics (a user is enrolled at most once per topic).
	TopicEnrolments int `json:"topic_enrolments"`
	// Knowledge is the number of external knowledge records.
	Knowledge int `json:"knowledge"`
	// PathwayEnrolments is the number of current pathway enrolments. Each
	// one's user holds a current enrolment in each of the pathway's
	// PathwayTopics topics (relationship pathway), counted in
	// TopicEnrolments, and its status follows them as the store's rules
	// say; the other topic enrolments are direct ones in the topics no
	// pathway holds. Left out of the spec's key when zero, so that a
	// dataset built before the field existed keeps its key.
	PathwayEnrolments int `json:"pathway_enrolments,omitempty"`
}

// Spec is a whole dataset.
type Spec struct {
	Tenants []TenantSpec `json:"tenants"`
}

// Catalog sizes of every tenant: the names users, topics and records refer to.
const (
	Roles      = 10
	Groups     = 20
	Goals      = 10
	Skills     = 30
	Categories = 10
	Topics     = 200
	Pathways   = 20
	// PathwayTopics is the number of topics of each pathway.
	PathwayTopics = 5
)

// Slugs of the default and quick datasets' tenants with a role in the benchmark.
const (
	// BigSlug is the tenant the side-by-side scenarios read.
	BigSlug = "bench-big"
	// WriteSlug is the small tenant the batch writes go to, so that reads
	// are not disturbed by what the writes add.
	WriteSlug = "bench-s01"
	// SmallSlug is a small tenant nobody writes to: the 1k point of the curve.
	SmallSlug = "bench-s02"
	// HugeSlug is the largest tenant: the largest point of the tenant-size
	// curve, the page-number table and the cursor walks.
	HugeSlug = "bench-huge"
	// TinySlug is the 100-user tenant of the small-tenant comparison (P9).
	TinySlug = "bench-tiny"
	// MidSlug is the 50,000-user tenant it is compared with.
	MidSlug = "bench-mid"
)

// DirectTopics is the number of topics no pathway holds (the last ones):
// direct enrolments are in these, pathway enrolments' topics in the others.
const DirectTopics = Topics - Pathways*PathwayTopics

// DefaultSpec is the dataset of docs/performance.md: bench-big (100,000
// users, 1,000,000 topic enrolments), 49 tenants of 1,000 users, bench-tiny
// (100 users), bench-mid (50,000) and bench-huge (1,000,000 users, 3,000,000
// topic enrolments, 300,000 pathway enrolments, 1,000,000 records).
func DefaultSpec() Spec {
	return buildSpec(TenantSpec{Slug: BigSlug, Users: 100_000, TopicEnrolments: 1_000_000, Knowledge: 50_000,
		PathwayEnrolments: 10_000},
		49, TenantSpec{Users: 1_000, TopicEnrolments: 5_000, Knowledge: 500, PathwayEnrolments: 100},
		TenantSpec{Slug: TinySlug, Users: 100, TopicEnrolments: 500, Knowledge: 50, PathwayEnrolments: 10},
		TenantSpec{Slug: MidSlug, Users: 50_000, TopicEnrolments: 250_000, Knowledge: 5_000, PathwayEnrolments: 5_000},
		TenantSpec{Slug: HugeSlug, Users: 1_000_000, TopicEnrolments: 3_000_000, Knowledge: 1_000_000,
			PathwayEnrolments: 300_000})
}

// QuickSpec is a smoke dataset of the same shape that builds in seconds.
func QuickSpec() Spec {
	return buildSpec(TenantSpec{Slug: BigSlug, Users: 10_000, TopicEnrolments: 100_000, Knowledge: 5_000,
		PathwayEnrolments: 1_000},
		4, TenantSpec{Users: 200, TopicEnrolments: 1_000, Knowledge: 100, PathwayEnrolments: 20},
		TenantSpec{Slug: TinySlug, Users: 100, TopicEnrolments: 500, Knowledge: 50, PathwayEnrolments: 10},
		TenantSpec{Slug: MidSlug, Users: 5_000, TopicEnrolments: 25_000, Knowledge: 500, PathwayEnrolments: 500},
		TenantSpec{Slug: HugeSlug, Users: 50_000, TopicEnrolments: 150_000, Knowledge: 50_000, PathwayEnrolments: 15_000})
}

func buildSpec(big TenantSpec, smalls int, small TenantSpec, others ...TenantSpec) Spec {
	s := Spec{Tenants: []TenantSpec{big}}
	for i := 1; i <= smalls; i++ {
		t := small
		t.Slug = fmt.Sprintf("bench-s%02d", i)
		s.Tenants = append(s.Tenants, t)
	}
	return Spec{Tenants: append(s.Tenants, others...)}
}

// DirectEnrolments is the number of topic enrolments not held through a pathway.
func (t TenantSpec) DirectEnrolments() int {
	return t.TopicEnrolments - t.PathwayEnrolments*PathwayTopics
}

// Key is the spec's identity, stored in the marker.
func (s Spec) Key() string {
	b, _ := json.Marshal(s) // plain structs: never fails
	return string(b)
}

// Validate reports a spec no dataset can satisfy.
func (s Spec) Validate() error {
	seen := map[string]bool{}
	for _, t := range s.Tenants {
		switch {
		case seen[t.Slug]:
			return fmt.Errorf("tenant %s is listed twice", t.Slug)
		case t.Users < 1:
			return fmt.Errorf("tenant %s: at least one user", t.Slug)
		case t.TopicEnrolments < 0 || t.Knowledge < 0 || t.PathwayEnrolments < 0:
			return fmt.Errorf("tenant %s: negative counts", t.Slug)
		case t.PathwayEnrolments > t.Users*Pathways:
			return fmt.Errorf("tenant %s: at most %d pathway enrolments for %d users", t.Slug, t.Users*Pathways, t.Users)
		case t.TopicEnrolments < t.PathwayEnrolments*PathwayTopics:
			return fmt.Errorf("tenant %s: %d pathway enrolments need %d topic enrolments", t.Slug,
				t.PathwayEnrolments, t.PathwayEnrolments*PathwayTopics)
		case t.DirectEnrolments() > t.Users*DirectTopics:
			return fmt.Errorf("tenant %s: at most %d direct topic enrolments for %d users", t.Slug,
				t.Users*DirectTopics, t.Users)
		}
		seen[t.Slug] = true
	}
	return nil
}

// Lookup returns the spec of the tenant called slug.
func (s Spec) Lookup(slug string) (TenantSpec, bool) {
	for _, t := range s.Tenants {
		if t.Slug == slug {
			return t, true
		}
	}
	return TenantSpec{}, false
}
