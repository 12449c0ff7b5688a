package store_test

import (
	"context"
	"reflect"
	"regexp"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/list"
	"learngate/store/storetest"
)

// mustPathway creates a pathway, failing the test on error.
func mustPathway(t *testing.T, tdb *store.TenantDB, in learngate.PathwayInput) learngate.Pathway {
	t.Helper()
	p, err := store.CreatePathway(context.Background(), tdb, in, topicsStart)
	if err != nil {
		t.Fatalf("CreatePathway(%+v): %v", in, err)
	}
	return p
}

func TestPathwayCreateGetUpdateList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	tdb := topicTenantDB(t, db, "acme")
	other := topicTenantDB(t, db, "other")
	for _, title := range []string{"Alpha", "Beta", "Gamma"} {
		mustTopic(t, tdb, learngate.TopicInput{Title: ptr(title)})
	}

	empty := mustPathway(t, tdb, learngate.PathwayInput{Title: ptr("Empty")})
	if !regexp.MustCompile(`^PW-1-[0-9]{3}$`).MatchString(empty.EnrolmentCode) || len(empty.Topics) != 0 || empty.Topics == nil {
		t.Fatalf("empty pathway = %+v", empty)
	}
	full := mustPathway(t, tdb, learngate.PathwayInput{
		Title: ptr("Full"), ExternalID: ptr("X"), ShowCertificate: ptr(true), RecertificationAllowed: ptr(true),
		CertifyDays: ptr(30), Ordered: ptr(true), Skills: []string{"sql"}, EnrolmentCode: ptr("FULL"),
		Topics: []learngate.PathwayTopicInput{{TopicID: 3}, {TopicID: 1, Mandatory: ptr(false)}},
	})
	want := learngate.Pathway{
		ID: 2, Title: "Full", ExternalID: "X", ShowCertificate: true, RecertificationAllowed: true, CertifyDays: ptr(30),
		Ordered: true, Skills: []learngate.CatalogItem{{ID: 2, Name: "SQL"}}, EnrolmentCode: "FULL",
		Topics: []learngate.PathwayTopic{
			{TopicID: 3, Title: "Gamma", Mandatory: true, Position: 1}, {TopicID: 1, Title: "Alpha", Mandatory: false, Position: 2},
		},
		CreatedAt: topicsStart, UpdatedAt: topicsStart,
	}
	got, err := store.GetPathway(ctx, tdb, 2)
	got.CreatedAt, got.UpdatedAt = got.CreatedAt.UTC(), got.UpdatedAt.UTC()
	if err != nil || !reflect.DeepEqual(got, want) || full.EnrolmentCode != "FULL" {
		t.Fatalf("GetPathway = %+v, %v; want %+v", got, err, want)
	}

	later := topicsStart.Add(time.Hour)
	same, err := store.UpdatePathway(ctx, tdb, 2, learngate.PathwayInput{Ordered: ptr(true), Skills: []string{"SQL"},
		Topics: []learngate.PathwayTopicInput{{TopicID: 3, Mandatory: ptr(true)}, {TopicID: 1, Mandatory: ptr(false)}}}, later)
	if err != nil || !same.UpdatedAt.Equal(topicsStart) {
		t.Fatalf("unchanged update = %+v, %v", same, err)
	}
	changed, err := store.UpdatePathway(ctx, tdb, 2, learngate.PathwayInput{CertifyDays: ptr(0),
		Topics: []learngate.PathwayTopicInput{{TopicID: 2}}}, later)
	if err != nil || changed.CertifyDays != nil || !changed.UpdatedAt.Equal(later) ||
		!reflect.DeepEqual(changed.Topics, []learngate.PathwayTopic{{TopicID: 2, Title: "Beta", Mandatory: true, Position: 1}}) {
		t.Fatalf("changed = %+v, %v", changed, err)
	}

	tests := []struct {
		name string
		in   learngate.PathwayInput
		code learngate.Code
		msg  string
	}{
		{"unknown topic", learngate.PathwayInput{Topics: []learngate.PathwayTopicInput{{TopicID: 1}, {TopicID: 9}}}, learngate.Invalid,
			"Illegal value '9' for 'topics.topic_id'"},
		{"topic twice", learngate.PathwayInput{Topics: []learngate.PathwayTopicInput{{TopicID: 1}, {TopicID: 1}}}, learngate.Invalid,
			"topic_id '1' appears more than once in 'topics'"},
		{"unknown skill", learngate.PathwayInput{Skills: []string{"Perl"}}, learngate.Invalid, "Illegal value 'Perl' for 'skills'"},
		{"code of a topic", learngate.PathwayInput{EnrolmentCode: ptr("tp-1-x")}, learngate.Unprocessable, "enrolment_code 'tp-1-x' is already taken"},
	}
	if _, err := store.UpdateTopic(ctx, tdb, 1, learngate.TopicInput{EnrolmentCode: ptr("TP-1-X")}, later); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Title = ptr("New")
			_, err := store.CreatePathway(ctx, tdb, in, later)
			assertCode(t, err, tt.code, tt.msg)
			_, err = store.UpdatePathway(ctx, tdb, 1, tt.in, later)
			assertCode(t, err, tt.code, tt.msg)
		})
	}

	pathways, total, err := store.ListPathways(ctx, tdb, list.UpdatedFilter{UpdatedAfter: &topicsStart}, list.Page{Number: 1, Size: 25})
	if err != nil || total != 1 || len(pathways) != 1 || pathways[0].ID != 2 {
		t.Fatalf("updated after start: %+v, %d, %v", pathways, total, err)
	}
	pathways, total, err = store.ListPathways(ctx, tdb, list.UpdatedFilter{}, list.Page{Number: 2, Size: 1})
	if err != nil || total != 2 || len(pathways) != 1 || pathways[0].ID != 2 {
		t.Fatalf("page 2 of 1: %+v, %d, %v", pathways, total, err)
	}

	// The other tenant has no pathways and cannot use acme's topics.
	if pathways, total, err := store.ListPathways(ctx, other, list.UpdatedFilter{}, list.Page{Number: 1, Size: 25}); err != nil || total != 0 || len(pathways) != 0 {
		t.Fatalf("other's pathways: %+v, %d, %v", pathways, total, err)
	}
	_, err = store.GetPathway(ctx, other, 2)
	assertCode(t, err, learngate.NotFound, "not found")
	_, err = store.CreatePathway(ctx, other, learngate.PathwayInput{Title: ptr("Mine"), Topics: []learngate.PathwayTopicInput{{TopicID: 1}}}, later)
	assertCode(t, err, learngate.Invalid, "Illegal value '1' for 'topics.topic_id'")
	// acme's code is free in the other tenant.
	if p := mustPathway(t, other, learngate.PathwayInput{Title: ptr("Mine"), EnrolmentCode: ptr("full")}); p.EnrolmentCode != "full" {
		t.Fatalf("other's code %q", p.EnrolmentCode)
	}
}
