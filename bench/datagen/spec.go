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
	// HugeSlug is the tenant of the largest point of the tenant-size curve.
	HugeSlug = "bench-huge"
)

// DefaultSpec is the dataset of docs/performance.md: 50 tenants, one of them with 100,000
// users and 1,000,000 topic enrolments, 49 with 1,000 users; plus the
// 1,000,000-user tenant of the tenant-size curve (users only).
func DefaultSpec() Spec {
	return buildSpec(TenantSpec{Slug: BigSlug, Users: 100_000, TopicEnrolments: 1_000_000, Knowledge: 50_000},
		49, TenantSpec{Users: 1_000, TopicEnrolments: 5_000, Knowledge: 500},
		TenantSpec{Slug: HugeSlug, Users: 1_000_000})
}

// QuickSpec is a smoke dataset of the same shape that builds in seconds.
func QuickSpec() Spec {
	return buildSpec(TenantSpec{Slug: BigSlug, Users: 10_000, TopicEnrolments: 100_000, Knowledge: 5_000},
		4, TenantSpec{Users: 200, TopicEnrolments: 1_000, Knowledge: 100},
		TenantSpec{Slug: HugeSlug, Users: 50_000})
}

func buildSpec(big TenantSpec, smalls int, small, huge TenantSpec) Spec {
	s := Spec{Tenants: []TenantSpec{big}}
	for i := 1; i <= smalls; i++ {
		t := small
		t.Slug = fmt.Sprintf("bench-s%02d", i)
		s.Tenants = append(s.Tenants, t)
	}
	return Spec{Tenants: append(s.Tenants, huge)}
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
		case t.TopicEnrolments > t.Users*Topics:
			return fmt.Errorf("tenant %s: at most %d topic enrolments for %d users", t.Slug, t.Users*Topics, t.Users)
		case t.TopicEnrolments < 0 || t.Knowledge < 0:
			return fmt.Errorf("tenant %s: negative counts", t.Slug)
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
