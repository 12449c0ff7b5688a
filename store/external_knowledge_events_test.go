package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"learngate"
	"learngate/store"
	"learngate/store/storetest"
)

// TestKnowledgeEvents checks the external knowledge events: created for a
// record and for each record of a batch, updated only when a PUT changes
// something, none for a failed batch.
func TestKnowledgeEvents(t *testing.T) {
	t.Parallel()
	db, _ := storetest.NewDB(t)
	ctx := context.Background()
	tdb := enrolTenant(t, db, "acme")
	subscribeAll(t, tdb)
	log := &eventLog{t: t, db: db, tdb: tdb}
	log.next()
	day := time.Date(2025, 3, 31, 0, 0, 0, 0, time.UTC)
	record := func(title string) learngate.KnowledgeInput {
		return learngate.KnowledgeInput{UserName: ptr("ANN"), KnowledgeType: ptr(1), Title: ptr(title), DateObtained: &day}
	}
	if _, err := store.CreateExternalKnowledge(ctx, tdb, record("First aid"), time.Now()); err != nil {
		t.Fatal(err)
	}
	log.expect("create", "external_knowledge.created 1")
	rows := []learngate.KnowledgeBatchRow{{In: record("A")}, {In: record("B")}}
	if _, err := store.BatchCreateExternalKnowledges(ctx, tdb, rows, time.Now()); err != nil {
		t.Fatal(err)
	}
	log.expect("batch", "external_knowledge.created 2", "external_knowledge.created 3")
	rows = append(rows, learngate.KnowledgeBatchRow{In: learngate.KnowledgeInput{UserName: ptr("zed"), KnowledgeType: ptr(1),
		Title: ptr("C"), DateObtained: &day}})
	if _, err := store.BatchCreateExternalKnowledges(ctx, tdb, rows, time.Now()); !learngate.IsCode(err, learngate.Invalid) {
		t.Fatalf("batch with an unknown user: %v", err)
	}
	log.expect("failed batch")
	for i, in := range []learngate.KnowledgeInput{{Title: ptr("First aid")}, {Skills: []string{}}, {Title: ptr("CPR")},
		{Title: ptr("CPR"), UserName: ptr("Ann")}, {Skills: []string{"go"}}, {Skills: []string{"GO"}}} {
		if _, err := store.UpdateExternalKnowledge(ctx, tdb, 1, in, time.Now()); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		want := []string{}
		if i == 2 || i == 4 {
			want = append(want, "external_knowledge.updated 1")
		}
		log.expect(fmt.Sprintf("update %d", i), want...)
	}
	if _, err := store.UpdateExternalKnowledge(ctx, tdb, 1, learngate.KnowledgeInput{UserName: ptr("bob")}, time.Now()); err == nil {
		t.Fatal("update naming another user succeeded")
	}
	log.expect("failed update")
}
