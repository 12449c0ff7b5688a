package datagen

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"learngate/store/storetest"
	"learngate/tenant"
)

// tinySpec is a dataset small enough for a unit test.
var tinySpec = Spec{Tenants: []TenantSpec{
	{Slug: "tiny-a", Users: 30, TopicEnrolments: 95, Knowledge: 12, PathwayEnrolments: 9},
	{Slug: "tiny-b", Users: 7, TopicEnrolments: 0, Knowledge: 0},
	// More pathway enrolments than users: users hold several pathways.
	{Slug: "tiny-c", Users: 4, TopicEnrolments: 61, Knowledge: 1, PathwayEnrolments: 10},
}}

func TestEnsureBuildsTheCountsAskedForAndReusesThem(t *testing.T) {
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	reg := tenant.NewRegistry(db, tenant.Options{BaseDomains: []string{"learngate.localhost"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ts, err := Ensure(ctx, db, reg, tinySpec, io.Discard)
	if err != nil {
		t.Fatalf("ensure: %v", err)
	}
	if len(ts) != 3 || ts[0].Slug != "tiny-a" || ts[0].Key == "" || ts[0].Schema == "" {
		t.Fatalf("tenants = %+v", ts)
	}
	for _, tt := range ts {
		var got struct {
			Users      int `db:"users"`
			Enrolments int `db:"enrolments"`
			Knowledge  int `db:"knowledge"`
			Topics     int `db:"topics"`
			Leaders    int `db:"leaders"`
			Pathways   int `db:"pathways"`
			ByPathway  int `db:"by_pathway"`
		}
		err := db.Pool().GetContext(ctx, &got, `SELECT
			(SELECT count(*) FROM `+tt.Schema+`.users) AS users,
			(SELECT count(*) FROM `+tt.Schema+`.topic_enrolments WHERE removed_at IS NULL) AS enrolments,
			(SELECT count(*) FROM `+tt.Schema+`.external_knowledges) AS knowledge,
			(SELECT count(*) FROM `+tt.Schema+`.topics) AS topics,
			(SELECT count(DISTINCT manager_email) FROM `+tt.Schema+`.users) AS leaders,
			(SELECT count(*) FROM `+tt.Schema+`.pathway_enrolments WHERE removed_at IS NULL) AS pathways,
			(SELECT count(*) FROM `+tt.Schema+`.topic_enrolments WHERE relationship = 'pathway') AS by_pathway`)
		if err != nil {
			t.Fatalf("count %s: %v", tt.Slug, err)
		}
		if got.Users != tt.Users || got.Enrolments != tt.TopicEnrolments || got.Knowledge != tt.Knowledge ||
			got.Topics != Topics || got.Leaders != (tt.Users+9)/10-boolInt(tt.Users%10 == 1) ||
			got.Pathways != tt.PathwayEnrolments || got.ByPathway != tt.PathwayEnrolments*PathwayTopics {
			t.Errorf("%s: counts %+v, spec %+v", tt.Slug, got, tt.TenantSpec)
		}
	}
	// The sequences are past the generated ids: the API can add rows.
	var next int64
	if err := db.Pool().GetContext(ctx, &next, `SELECT nextval('`+ts[0].Schema+`.users_id_seq')`); err != nil || next != 31 {
		t.Errorf("next user id = %d, %v; want 31", next, err)
	}

	again, err := Ensure(ctx, db, reg, tinySpec, io.Discard)
	if err != nil || len(again) != 3 || again[0].Key != ts[0].Key {
		t.Fatalf("second ensure = %+v, %v; want the same tenants reused", again, err)
	}
	other := Spec{Tenants: []TenantSpec{{Slug: "tiny-a", Users: 31}}}
	if _, err := Ensure(ctx, db, reg, other, io.Discard); !errors.Is(err, ErrOtherSpec) {
		t.Fatalf("ensure with another spec: %v, want ErrOtherSpec", err)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
