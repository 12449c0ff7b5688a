package store_test

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"sync"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// topicsStart is when every topic store test begins.
var topicsStart = time.Date(2025, 6, 1, 9, 30, 0, 0, time.UTC)

// topicTenantDB is a tenant whose catalog holds the skills Go and SQL and
// the categories CPD and Safety.
func topicTenantDB(t *testing.T, db *store.DB, slug string) *store.TenantDB {
	t.Helper()
	ctx := context.Background()
	tdb := catalogTenantDB(t, db, slug)
	for kind, names := range map[learngate.CatalogKind][]string{learngate.Skills: {"Go", "SQL"}, learngate.Categories: {"CPD", "Safety"}} {
		for _, name := range names {
			if _, err := store.CreateCatalogItem(ctx, tdb, kind, name); err != nil {
				t.Fatal(err)
			}
		}
	}
	return tdb
}

// mustTopic creates a topic called title, failing the test on error.
func mustTopic(t *testing.T, tdb *store.TenantDB, in learngate.TopicInput) learngate.Topic {
	t.Helper()
	topic, err := store.CreateTopic(context.Background(), tdb, in, topicsStart)
	if err != nil {
		t.Fatalf("CreateTopic(%+v): %v", in, err)
	}
	return topic
}

func TestTopicCreateGetUpdate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	tdb := topicTenantDB(t, db, "acme")

	plain := mustTopic(t, tdb, learngate.TopicInput{Title: ptr("Plain")})
	if !regexp.MustCompile(`^TP-1-[0-9]{3}$`).MatchString(plain.EnrolmentCode) {
		t.Fatalf("generated code %q, want TP-1-nnn", plain.EnrolmentCode)
	}
	want := learngate.Topic{
		ID: 1, Title: "Plain", KnowledgeType: store.KnowledgeTopic, Skills: []learngate.CatalogItem{},
		Categories: []learngate.TopicCategory{}, EnrolmentCode: plain.EnrolmentCode, CreatedAt: topicsStart, UpdatedAt: topicsStart,
	}
	if !reflect.DeepEqual(normalTopic(plain), want) {
		t.Fatalf("created %+v, want %+v", plain, want)
	}

	full := mustTopic(t, tdb, learngate.TopicInput{
		Title: ptr("Full"), KnowledgeType: ptr(store.KnowledgeArticle), ExternalID: ptr("EXT-1"),
		ShowCertificate: ptr(true), RecertificationAllowed: ptr(true), CertifyDays: ptr(365), Minutes: ptr(90),
		CPDMinutes: ptr(30), Skills: []string{"sql", "GO"},
		Categories:    []learngate.TopicCategoryInput{{Name: "safety", Minutes: 10, Points: 1.5}, {Name: "CPD", Minutes: 0, Points: 2}},
		EnrolmentCode: ptr("Full-2025"),
	})
	want = learngate.Topic{
		ID: 2, Title: "Full", KnowledgeType: store.KnowledgeArticle, ExternalID: "EXT-1", ShowCertificate: true,
		RecertificationAllowed: true, CertifyDays: ptr(365), Minutes: 90, CPDMinutes: 30,
		Skills:        []learngate.CatalogItem{{ID: 1, Name: "Go"}, {ID: 2, Name: "SQL"}},
		Categories:    []learngate.TopicCategory{{ID: 1, Name: "CPD", Points: 2}, {ID: 2, Name: "Safety", Minutes: 10, Points: 1.5}},
		EnrolmentCode: "Full-2025", CreatedAt: topicsStart, UpdatedAt: topicsStart,
	}
	if !reflect.DeepEqual(normalTopic(full), want) {
		t.Fatalf("created %+v, want %+v", full, want)
	}
	got, err := store.GetTopic(ctx, tdb, 2)
	if err != nil || !reflect.DeepEqual(normalTopic(got), want) {
		t.Fatalf("GetTopic = %+v, %v; want %+v", got, err, want)
	}

	// The same values change nothing: updated_at stays.
	later := topicsStart.Add(time.Hour)
	same, err := store.UpdateTopic(ctx, tdb, 2, learngate.TopicInput{
		Title: ptr("Full"), CertifyDays: ptr(365), Skills: []string{"go", "sql"}, EnrolmentCode: ptr("Full-2025"),
		Categories: []learngate.TopicCategoryInput{{Name: "CPD", Points: 2}, {Name: "Safety", Minutes: 10, Points: 1.5}},
	}, later)
	if err != nil || !same.UpdatedAt.Equal(topicsStart) {
		t.Fatalf("unchanged update = %+v, %v; want updated_at %v", same, err, topicsStart)
	}
	// Clearing: certify_days 0, empty skills and categories, "" regenerates the code.
	cleared, err := store.UpdateTopic(ctx, tdb, 2, learngate.TopicInput{
		CertifyDays: ptr(0), Skills: []string{}, Categories: []learngate.TopicCategoryInput{}, EnrolmentCode: ptr(""),
		ExternalID: ptr(""),
	}, later)
	if err != nil {
		t.Fatal(err)
	}
	if cleared.CertifyDays != nil || len(cleared.Skills) != 0 || len(cleared.Categories) != 0 || cleared.ExternalID != "" ||
		!regexp.MustCompile(`^TP-2-[0-9]{3}$`).MatchString(cleared.EnrolmentCode) || !cleared.UpdatedAt.Equal(later) ||
		!cleared.CreatedAt.Equal(topicsStart) || cleared.Title != "Full" || cleared.Minutes != 90 {
		t.Fatalf("cleared = %+v", cleared)
	}
	// The freed code can be taken by another topic, in another case.
	mustTopic(t, tdb, learngate.TopicInput{Title: ptr("Third"), EnrolmentCode: ptr("FULL-2025")})

	_, err = store.GetTopic(ctx, tdb, 99)
	assertCode(t, err, learngate.NotFound, "not found")
	_, err = store.UpdateTopic(ctx, tdb, 99, learngate.TopicInput{Title: ptr("x")}, later)
	assertCode(t, err, learngate.NotFound, "not found")
}

// normalTopic drops the monotonic clock readings so topics compare with DeepEqual.
func normalTopic(t learngate.Topic) learngate.Topic {
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	return t
}

func TestTopicRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	tdb := topicTenantDB(t, db, "acme")
	mustTopic(t, tdb, learngate.TopicInput{Title: ptr("One"), EnrolmentCode: ptr("ONE")})
	pw, err := store.CreatePathway(ctx, tdb, learngate.PathwayInput{Title: ptr("Path"), EnrolmentCode: ptr("Path-1")}, topicsStart)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   learngate.TopicInput
		code learngate.Code
		msg  string
	}{
		{"unknown skill", learngate.TopicInput{Skills: []string{"Go", "Rust"}}, learngate.Invalid, "Illegal value 'Rust' for 'skills'"},
		{"unknown category", learngate.TopicInput{Categories: []learngate.TopicCategoryInput{{Name: "Nope"}}}, learngate.Invalid,
			"Illegal value 'Nope' for 'categories.name'"},
		{"category twice", learngate.TopicInput{Categories: []learngate.TopicCategoryInput{{Name: "CPD"}, {Name: "cpd"}}}, learngate.Invalid,
			"category 'cpd' appears more than once in 'categories'"},
		{"topic code taken", learngate.TopicInput{EnrolmentCode: ptr("one")}, learngate.Unprocessable, "enrolment_code 'one' is already taken"},
		{"pathway code taken", learngate.TopicInput{EnrolmentCode: ptr("PATH-1")}, learngate.Unprocessable, "enrolment_code 'PATH-1' is already taken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.Title = ptr("Two")
			_, err := store.CreateTopic(ctx, tdb, in, topicsStart)
			assertCode(t, err, tt.code, tt.msg)
			_, err = store.UpdateTopic(ctx, tdb, 1, tt.in, topicsStart.Add(time.Hour))
			if tt.msg == "enrolment_code 'one' is already taken" {
				// Topic 1 owns ONE: a new spelling of its own code is allowed.
				if err != nil {
					t.Fatalf("respelling own code: %v", err)
				}
				return
			}
			assertCode(t, err, tt.code, tt.msg)
		})
	}
	// Nothing refused was stored, and ids stay dense.
	if n := count(t, db, `SELECT count(*) FROM `+tdb.Schema()+`.topics`); n != 1 {
		t.Fatalf("%d topics, want 1", n)
	}
	next := mustTopic(t, tdb, learngate.TopicInput{Title: ptr("Next")})
	if next.ID != 2 || pw.ID != 1 {
		t.Fatalf("next topic id %d, pathway id %d; want 2 and 1", next.ID, pw.ID)
	}
}

// TestTopicCodeRaces creates topics concurrently with the same code in
// different cases: exactly one wins, the rest are Unprocessable.
func TestTopicCodeRaces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	tdb := topicTenantDB(t, db, "acme")
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			code := "race"
			if i%2 == 1 {
				code = "RACE"
			}
			if i%3 == 0 {
				_, errs[i] = store.CreatePathway(ctx, tdb, learngate.PathwayInput{Title: ptr(fmt.Sprint(i)), EnrolmentCode: ptr(code)}, topicsStart)
				return
			}
			_, errs[i] = store.CreateTopic(ctx, tdb, learngate.TopicInput{Title: ptr(fmt.Sprint(i)), EnrolmentCode: ptr(code)}, topicsStart)
		}(i)
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case learngate.ErrorCode(err) != learngate.Unprocessable:
			t.Fatalf("losing create: %v, want Unprocessable", err)
		}
	}
	if won != 1 || count(t, db, `SELECT count(*) FROM `+tdb.Schema()+`.enrolment_codes`) != 1 {
		t.Fatalf("%d creates won, want 1", won)
	}
}

// TestGeneratedCodeAvoidsTakenCodes takes 999 of the 1000 codes topic 1000
// could be given: it must get the last one.
func TestGeneratedCodeAvoidsTakenCodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storetest.NewDB(t)
	tdb := topicTenantDB(t, db, "acme")
	s := tdb.Schema()
	if _, err := db.Pool().ExecContext(ctx, `INSERT INTO `+s+`.topics (title) SELECT 'squat' FROM generate_series(1, 999)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool().ExecContext(ctx, `INSERT INTO `+s+`.enrolment_codes (code, topic_id)
		SELECT 'tp-1000-' || lpad((n - 1)::text, 3, '0'), n FROM generate_series(1, 999) AS n`); err != nil {
		t.Fatal(err)
	}
	topic := mustTopic(t, tdb, learngate.TopicInput{Title: ptr("Last")})
	if topic.ID != 1000 || topic.EnrolmentCode != "TP-1000-999" {
		t.Fatalf("topic %d got code %q, want 1000 and TP-1000-999", topic.ID, topic.EnrolmentCode)
	}
}
