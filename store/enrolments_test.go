package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/list"
	"learngate/store/storetest"
)

// enrolTenant is a topic tenant with user ann, topic GO-101 (certified for
// 10 days) and pathway PATH-1 holding it, recertification allowed.
func enrolTenant(t *testing.T, db *store.DB, slug string) *store.TenantDB {
	t.Helper()
	ctx := context.Background()
	tdb := topicTenantDB(t, db, slug)
	if _, err := store.CreateUser(ctx, tdb, learngate.UserInput{UserName: ptr("ann"), FirstName: ptr("Ann"),
		LastName: ptr("Lee"), Email: ptr("ann@example.com"), Timezone: ptr("UTC")}, topicsStart); err != nil {
		t.Fatal(err)
	}
	topic := mustTopic(t, tdb, learngate.TopicInput{Title: ptr("Go"), EnrolmentCode: ptr("GO-101"), CertifyDays: ptr(10)})
	if _, err := store.CreatePathway(ctx, tdb, learngate.PathwayInput{Title: ptr("Path"), EnrolmentCode: ptr("PATH-1"),
		CertifyDays: ptr(10), RecertificationAllowed: ptr(true),
		Topics: []learngate.PathwayTopicInput{{TopicID: topic.ID}}}, topicsStart); err != nil {
		t.Fatal(err)
	}
	return tdb
}

func TestAssignEnrolments(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	acme := enrolTenant(t, db, "acme")
	other := enrolTenant(t, db, "other")
	ann := "ann"

	// A group without a code is refused, never applied.
	_, err := store.AssignEnrolments(ctx, acme, learngate.UserRef{UserName: &ann}, []learngate.EnrolmentRequest{{N: 1}}, topicsStart)
	var le *learngate.Error
	if !errors.As(err, &le) || le.Code != learngate.Invalid || len(le.Details) != 1 ||
		le.Details[0] != "Missing parameter 'enrolment_code_1'" {
		t.Fatalf("group without a code: %v", err)
	}
	zed := "zed"
	if _, err := store.AssignEnrolments(ctx, acme, learngate.UserRef{UserName: &zed}, nil, topicsStart); !learngate.IsCode(err, learngate.NotFound) {
		t.Fatalf("unknown user: %v", err)
	}

	// Conquering the pathway's only topic conquers the pathway.
	got, err := store.AssignEnrolments(ctx, acme, learngate.UserRef{UserName: &ann}, []learngate.EnrolmentRequest{
		{N: 1, Raw: "path-1", Code: "path-1"},
		{N: 2, Raw: "GO-101 COMPLETE", Code: "GO-101", Action: learngate.ActionComplete},
	}, topicsStart)
	if err != nil || len(got) != 2 || got[0].Pathway == nil || got[1].Topic == nil {
		t.Fatalf("enrol: %+v, %v", got, err)
	}
	pe, err := store.GetPathwayEnrolment(ctx, acme, got[0].Pathway.ID)
	if err != nil || pe.Status != learngate.StatusConquered || !pe.ConqueredAt.Equal(topicsStart) ||
		!pe.CertifiedDate.Equal(topicsStart.AddDate(0, 0, 10)) {
		t.Fatalf("pathway: %+v, %v", pe, err)
	}

	// The sweep moves it to recertify from its certified date on, in its tenant only.
	for _, tt := range []struct {
		at   time.Time
		want int
	}{{topicsStart.AddDate(0, 0, 10).Add(-time.Second), 0}, {topicsStart.AddDate(0, 0, 10), 1}, {topicsStart.AddDate(0, 0, 11), 0}} {
		if n, err := store.ApplyRecertification(ctx, acme, tt.at); err != nil || n != tt.want {
			t.Fatalf("recertification at %s: %d, %v; want %d", tt.at, n, err, tt.want)
		}
	}
	if n, err := store.ApplyRecertification(ctx, other, topicsStart.AddDate(1, 0, 0)); err != nil || n != 0 {
		t.Fatalf("other tenant's sweep: %d, %v", n, err)
	}
	if _, err := store.GetPathwayEnrolment(ctx, other, got[0].Pathway.ID); !learngate.IsCode(err, learngate.NotFound) {
		t.Fatalf("other tenant reads acme's pathway enrolment: %v", err)
	}
	list, total, err := store.ListTopicEnrolments(ctx, other, list.EnrolmentFilter{}, list.Page{Number: 1, Size: 25})
	if err != nil || total != 0 || len(list) != 0 {
		t.Fatalf("other tenant's topic enrolments: %d, %v", total, err)
	}
}
